import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { httpsScopeOf } from '@xfer/core';
import { testBackends } from '@xfer/persistence/testing';
import { startApiAndNodes, type ApiAndNodes } from './apiAndNodes';

const TREE = { '/data/a.txt': 'hello, node', '/data/sub/deep.txt': 'deep' };

/** A request sent as written (no client normalises its path or its Host), over TLS; the whole answer. */
function rawAnswer(port: number, ca: string, target: string, token: string | null, host = `localhost:${port}`): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', ca }, () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\n${token === null ? '' : `Authorization: Bearer ${token}\r\n`}Connection: close\r\n\r\n`);
    });
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** The status line of a request sent as written. */
const rawStatus = async (port: number, ca: string, target: string, token: string) => (await rawAnswer(port, ca, target, token)).split('\r\n')[0] ?? '';

describe.each(testBackends())('HTTPS access to the files of node-bound endpoints ($name)', (backend) => {
  let world: ApiAndNodes;
  let lab: string;
  beforeEach(async () => {
    world = await startApiAndNodes(backend, TREE);
    lab = await world.httpsServer(world.lab.id);
  });
  afterEach(() => world.close());

  it("names each endpoint's address on its node in https_server, and registers its https scope", async () => {
    expect(lab).toBe(`https://localhost:${world.nodes[0]!.port}/${world.lab.id}`);
    const scopes = (await world.runtime.services.admin.clients.listScopes()).map((scope) => [scope.name, scope.resource_server]);
    expect(scopes).toEqual(expect.arrayContaining([[httpsScopeOf(world.lab.id), world.lab.id], [httpsScopeOf(world.archive.id), world.archive.id]]));
  });

  it("F12: keeps a node-bound endpoint's https_server its node's address: another is refused naming the field, the document read and sent back is accepted", async () => {
    const alice = world.as(world.alice.token);
    const read = (await alice.get(`/endpoint/${world.lab.id}`)).body as Record<string, unknown>;
    const back = await alice.put(`/endpoint/${world.lab.id}`, read);
    expect([back.status, back.body.code]).toEqual([200, 'Updated']);
    for (const elsewhere of ['https://attacker.example.org', null]) {
      const moved = await alice.put(`/endpoint/${world.lab.id}`, { DATA_TYPE: 'endpoint', https_server: elsewhere });
      expect([moved.status, moved.body.message]).toEqual([400, expect.stringContaining("Invalid https_server: an endpoint served by a data node is reached at its node's address")]);
    }
    expect((await alice.get(`/endpoint/${world.lab.id}`)).body.https_server).toBe(lab);
  });

  it('reads a file whole, a range of it (206), and its headers alone (HEAD)', async () => {
    const token = await world.httpsToken('alice', world.lab.id);
    const whole = await world.fetch(`${lab}/data/a.txt`, { token });
    expect([whole.statusCode, await whole.body.text(), whole.headers['content-length'], whole.headers['accept-ranges']]).toEqual([200, 'hello, node', '11', 'bytes']);
    const part = await world.fetch(`${lab}/data/a.txt`, { token, headers: { range: 'bytes=7-' } });
    expect([part.statusCode, await part.body.text(), part.headers['content-range']]).toEqual([206, 'node', 'bytes 7-10/11']);
    const outside = await world.fetch(`${lab}/data/a.txt`, { token, headers: { range: 'bytes=20-30' } });
    expect([outside.statusCode, outside.headers['content-range']]).toEqual([416, 'bytes */11']);
    await outside.body.dump();
    // a range that ends before it begins is invalid: ignored, the whole file (RFC 9110 14.1.1)
    for (const range of ['bytes=9-2', 'bytes=0-1,9-2']) {
      const backwards = await world.fetch(`${lab}/data/a.txt`, { token, headers: { range } });
      expect([range, backwards.statusCode, await backwards.body.text()]).toEqual([range, 200, 'hello, node']);
    }
    const head = await world.fetch(`${lab}/data/a.txt`, { token, method: 'HEAD' });
    expect([head.statusCode, head.headers['content-length'], await head.body.text()]).toEqual([200, '11', '']);
    const download = await world.fetch(`${lab}/data/a.txt?download`, { token });
    expect(download.headers['content-disposition']).toBe('attachment; filename=a.txt');
    await download.body.dump();
  });

  it('writes a file through a temporary name, making the folders above it, and deletes it', async () => {
    const token = await world.httpsToken('alice', world.lab.id);
    const put = await world.fetch(`${lab}/results/2026/run%201.csv`, { token, method: 'PUT', body: 'a,b\n1,2\n' });
    expect([put.statusCode, await put.body.json()]).toEqual([200, { DATA_TYPE: 'https_upload', path: '/results/2026/run 1.csv', bytes: 8 }]);
    expect(readFileSync(join(world.lab.root, 'results', '2026', 'run 1.csv'), 'utf8')).toBe('a,b\n1,2\n');
    expect(readdirSync(join(world.lab.root, 'results', '2026'))).toEqual(['run 1.csv']);
    const replaced = await world.fetch(`${lab}/results/2026/run%201.csv`, { token, method: 'PUT', body: 'new' });
    expect(replaced.statusCode).toBe(200);
    await replaced.body.dump();
    expect(readFileSync(join(world.lab.root, 'results', '2026', 'run 1.csv'), 'utf8')).toBe('new');
    const deleted = await world.fetch(`${lab}/results/2026/run%201.csv`, { token, method: 'DELETE' });
    expect(deleted.statusCode).toBe(204);
    expect(existsSync(join(world.lab.root, 'results', '2026', 'run 1.csv'))).toBe(false);
    const gone = await world.fetch(`${lab}/results/2026/run%201.csv`, { token });
    expect(gone.statusCode).toBe(404);
    await gone.body.dump();
  });

  it('sends a reader without credentials to the authorization service with client_id=<endpoint id>; anything else without them is 401', async () => {
    const sniff = await world.fetch(`${lab}/data/a.txt`);
    expect(sniff.statusCode).toBe(302);
    const location = new URL(String(sniff.headers.location));
    expect(location.searchParams.getAll('client_id')).toEqual([world.lab.id]);
    expect(location.searchParams.get('scope')).toBe(httpsScopeOf(world.lab.id));
    // it comes back to the node's registered address, whatever Host the request named; the endpoint's own client knows that address
    expect(location.searchParams.get('redirect_uri')).toBe(`https://localhost:${world.nodes[0]!.port}/_xfer/sign-in/${world.lab.id}`);
    expect([location.searchParams.get('code_challenge_method'), location.searchParams.get('state')?.length]).toEqual(['S256', 22]);
    await sniff.body.dump();
    const spoofed = await rawAnswer(world.nodes[0]!.port, readFileSync(join(world.nodes[0]!.root, '..', 'ca.pem'), 'utf8'), `/${world.lab.id}/data/a.txt`, null, 'attacker.example.org');
    const spoofedLocation = /^location: (.+)$/im.exec(spoofed)?.[1]?.trim();
    expect(new URL(spoofedLocation!).searchParams.get('redirect_uri')).toBe(location.searchParams.get('redirect_uri'));
    expect((await world.runtime.uow.repositories.clients.findById(world.lab.id))?.redirect_uris).toEqual([location.searchParams.get('redirect_uri')]);
    const put = await world.fetch(`${lab}/data/new.txt`, { method: 'PUT', body: 'x' });
    expect(put.statusCode).toBe(401);
    await put.body.dump();
  });

  it("refuses, never redirects, whoever may not open the file: another endpoint's scope, a Transfer API token, a stranger, garbage, a revoked token", async () => {
    const archiveToken = await world.httpsToken('alice', world.archive.id);
    const strangers = await world.httpsToken('bob', world.lab.id);
    const own = await world.httpsToken('alice', world.lab.id);
    const statusOf = async (token: string, method = 'GET', url = `${lab}/data/a.txt`) => {
      const answer = await world.fetch(url, { token, method, ...(method === 'PUT' && { body: 'planted' }) });
      await answer.body.dump();
      return answer.statusCode;
    };
    expect(await statusOf(archiveToken)).toBe(403);
    expect(await statusOf(world.alice.token)).toBe(403);
    expect(await statusOf(strangers)).toBe(403);
    expect(await statusOf(strangers, 'PUT', `${lab}/data/planted.txt`)).toBe(403);
    expect(await statusOf('xfer_not-a-token')).toBe(401);
    // the other endpoint on its own node opens with its own token; not through this endpoint's node
    const archive = await world.httpsServer(world.archive.id);
    expect(await statusOf(archiveToken, 'GET', `${archive}/data/a.txt`)).toBe(200);
    expect(await statusOf(archiveToken, 'GET', `https://localhost:${world.nodes[0]!.port}/${world.archive.id}/data/a.txt`)).toBe(404);
    expect(await statusOf(own)).toBe(200);
    await world.runtime.services.admin.tokens.revokeToken(own);
    const revokedAt = Date.now();
    while ((await statusOf(own)) === 200) {
      expect(Date.now() - revokedAt).toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await statusOf(own)).toBe(401);
    expect(existsSync(join(world.lab.root, 'data', 'planted.txt'))).toBe(false);
  });

  it("serves a share of a node-bound host at its own address, by the share's access rules", async () => {
    await world.world.subscriptionFor('alice');
    const alice = world.as(world.alice.token);
    expect((await alice.put(`/endpoint/${world.lab.id}`, { subscription_id: 'DEFAULT' })).status).toBe(200);
    const share = (await alice.post('/shared_endpoint', { display_name: 'Lab data', host_endpoint: world.lab.id, host_path: '/data/' })).body.id as string;
    const address = await world.httpsServer(share);
    expect(address).toBe(`https://localhost:${world.nodes[0]!.port}/${share}`);
    const rule = await alice.post(`/endpoint/${share}/access`, { DATA_TYPE: 'access', principal_type: 'identity', principal: world.bob.id, path: '/sub/', permissions: 'r' });
    expect(rule.status).toBe(201);
    const bob = await world.httpsToken('bob', share);
    const statusOf = async (path: string, token: string, method = 'GET') => {
      const answer = await world.fetch(`${address}${path}`, { token, method, ...(method === 'PUT' && { body: 'x' }) });
      const body = await answer.body.text();
      return method === 'GET' && answer.statusCode === 200 ? body : answer.statusCode;
    };
    // the share's root is the host's /data/: its rule lets bob read /sub/ and nothing else
    expect(await statusOf('/sub/deep.txt', bob)).toBe('deep');
    expect(await statusOf('/a.txt', bob)).toBe(403);
    expect(await statusOf('/sub/new.txt', bob, 'PUT')).toBe(403);
    expect(await statusOf('/a.txt', await world.httpsToken('alice', share))).toBe('hello, node');
    // the host's token opens the host's address only
    expect(await statusOf('/a.txt', await world.httpsToken('alice', world.lab.id))).toBe(403);
    // the share follows its host's storage: detached, no address; bound again, the node's
    await world.runtime.services.admin.endpoints.setStorage(world.lab.id, null);
    expect(await world.httpsServer(share)).toBeNull();
    // the node stops serving it once its memory of the access lapses (5 s)
    const detachedAt = Date.now();
    while ((await statusOf('/sub/deep.txt', bob)) === 'deep') {
      expect(Date.now() - detachedAt).toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await statusOf('/sub/deep.txt', bob)).toBe(404);
    await world.runtime.services.admin.endpoints.setStorage(world.lab.id, { type: 'node', node: 'node-one', root: world.lab.root });
    expect(await world.httpsServer(share)).toBe(address);
  });

  it('never leaves the bound directory: .., its encoded forms, an encoded slash, a link out', async () => {
    const token = await world.httpsToken('alice', world.lab.id);
    const ca = readFileSync(join(world.nodes[0]!.root, '..', 'ca.pem'), 'utf8');
    writeFileSync(join(world.lab.root, '..', 'secret.txt'), 'not for the lab');
    symlinkSync(join(world.lab.root, '..', 'secret.txt'), join(world.lab.root, 'data', 'out'));
    const port = world.nodes[0]!.port;
    for (const path of ['/../secret.txt', '/data/../../secret.txt', '/%2e%2e/secret.txt', '/data/%2E%2E/%2E%2E/secret.txt', '/..%2fsecret.txt', '/data/out']) {
      const status = await rawStatus(port, ca, `/${world.lab.id}${path}`, token);
      expect([path, status]).toEqual([path, expect.stringMatching(/^HTTP\/1\.1 4\d\d /)]);
    }
  });

  it("tells a client 503, not 401, when the API no longer knows the node's secret", async () => {
    const token = await world.httpsToken('alice', world.lab.id);
    await world.runtime.services.admin.nodes.newSecret(world.nodes[0]!.id);
    const answer = await world.fetch(`${lab}/data/a.txt`, { token });
    expect([answer.statusCode, ((await answer.body.json()) as { code: string }).code]).toEqual([503, 'ApiRefusedNode']);
  });

  it('answers ls, stat, mkdir and rename through the API on the nodes; a node that is down is ExternalError.NodeNotReachable and the API stays healthy', async () => {
    const alice = world.as(world.alice.token);
    const listing = await alice.get(`/operation/endpoint/${world.lab.id}/ls?path=/data/`);
    expect([listing.status, listing.body.DATA.map((entry: { name: string }) => entry.name).sort()]).toEqual([200, ['a.txt', 'sub']]);
    expect((await alice.get(`/operation/endpoint/${world.archive.id}/stat?path=/data/a.txt`)).body).toMatchObject({ name: 'a.txt', size: 11, type: 'file' });
    expect((await alice.post(`/operation/endpoint/${world.lab.id}/mkdir`, { DATA_TYPE: 'mkdir', path: '/made' })).status).toBe(200);
    expect((await alice.post(`/operation/endpoint/${world.lab.id}/rename`, { DATA_TYPE: 'rename', old_path: '/made', new_path: '/moved' })).status).toBe(200);
    expect(readdirSync(world.lab.root).sort()).toEqual(['data', 'moved']);
    const node = world.nodes[1]!;
    await world.stop(node);
    const down = await alice.get(`/operation/endpoint/${world.archive.id}/ls?path=/data/`);
    expect([down.status, down.body.code]).toEqual([409, 'ExternalError.NodeNotReachable']);
    expect(down.body.message).toContain(`Endpoint '${world.archive.id}' is served by data node '${node.id}'`);
    expect((await world.http.get('/readyz')).status).toBe(200);
    expect((await alice.get(`/operation/endpoint/${world.lab.id}/ls?path=/data/`)).status).toBe(200);
    await world.restart(node);
    expect((await alice.get(`/operation/endpoint/${world.archive.id}/ls?path=/data/`)).status).toBe(200);
  });
});
