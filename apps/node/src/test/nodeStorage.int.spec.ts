import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { hashToken, NodeNotReachableError, StorageError } from '@xfer/core';
import { describeStorageContract } from '@xfer/core/contracts';
import { createLogger } from '@xfer/server-kit';
import { NODE_STORAGE_PATH, NodeStorage } from '@xfer/storage';
import { SignJWT } from 'jose';
import { Agent, request } from 'undici';
import { NodeServer } from '../NodeServer';
import { NODE_ID, SECRET, startNodeWorld, type NodeWorld } from './nodeWorld';

describeStorageContract('a directory of a data node, reached through the node (HTTPS on loopback)', async () => {
  const world = await startNodeWorld();
  return { storage: new NodeStorage(world.client(), 'e1', world.root, '/'), close: () => world.close() };
});

async function collect(data: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of data) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString();
}

const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => 'none',
    (error: unknown) => (error instanceof StorageError ? error.failure : error instanceof NodeNotReachableError ? 'unreachable' : String(error)),
  );

describe('the storage protocol of a data node', () => {
  let world: NodeWorld;
  beforeEach(async () => {
    world = await startNodeWorld();
    mkdirSync(join(world.root, 'share', 'inner'), { recursive: true });
    writeFileSync(join(world.root, 'share', 'inner', 'a.txt'), 'in the share');
    writeFileSync(join(world.root, 'top.txt'), 'above the share');
    symlinkSync(join(world.root, 'top.txt'), join(world.root, 'share', 'up'));
  });
  afterEach(() => world.close());

  it("sees a share's storage from its base down, and nothing above it, through links included", async () => {
    const share = new NodeStorage(world.client(), 'e1', world.root, '/share');
    expect(await collect(share.read('/inner/a.txt'))).toBe('in the share');
    expect((await share.stat('/up')).type).toBe('invalid_symlink');
    expect(await failureOf(collect(share.read('/up')))).toBe('denied');
    expect(await failureOf(share.stat('/../top.txt'))).toBe('unreachable');
  });

  it("refuses calls signed with a key the API does not publish, as a node this server cannot reach", async () => {
    const stranger = new NodeStorage(world.client(false), 'e1', world.root, '/');
    const error = await stranger.stat('/top.txt').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeNotReachableError);
    expect((error as Error).message).toMatch(/it answered 401: a token signed with a key the API does not publish/);
    await expect(stranger.write('/planted.txt', (async function* () { yield Buffer.from('x'); })())).rejects.toBeInstanceOf(NodeNotReachableError);
    expect(readdirSync(world.root).sort()).toEqual(['share', 'top.txt']);
  });

  it("F3: takes no token made from what the API's database holds (the node's secret hash): a copy of the database opens no node", async () => {
    // the key the API once derived from the stored hash of the node's secret, as a thief of the database could
    const derived = createHmac('sha256', hashToken(SECRET)).update('xfer: the API calls a data node').digest();
    const agent = new Agent({ connect: { ca: readFileSync(world.certificates.ca, 'utf8') } });
    try {
      for (const claims of [{}, { xfer_read: { endpoint: 'e1', root: world.root, base: '/', dir: '/', names: ['top.txt'], checksum: null } }]) {
        const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer('xfer-api').setAudience(NODE_ID).setIssuedAt().setExpirationTime('300s').sign(derived);
        const stat = await request(`${world.node.url}${NODE_STORAGE_PATH}/stat?root=${encodeURIComponent(world.root)}&path=/top.txt`, { dispatcher: agent, headers: { authorization: `Bearer ${forged}` } });
        expect([stat.statusCode, (await stat.body.json()) as unknown]).toEqual([401, expect.objectContaining({ code: 'Unauthorized' })]);
        const read = await request(`${world.node.url}${NODE_STORAGE_PATH}/read-files`, { dispatcher: agent, method: 'POST', headers: { authorization: `Bearer ${forged}` } });
        expect([read.statusCode, (await read.body.json()) as unknown]).toEqual([401, expect.objectContaining({ code: 'Unauthorized' })]);
      }
    } finally {
      await agent.close();
    }
  });

  it("F4: serves the directories the API's endpoints are bound to, and refuses any other the API's own key names", async () => {
    writeFileSync(join(world.dir, 'beside.txt'), 'not served');
    for (const root of ['/', world.dir, `${world.root}/share`, '/etc']) {
      const elsewhere = new NodeStorage(world.client(), 'e1', root, '/');
      const error = await elsewhere.stat('/').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NodeNotReachableError);
      expect((error as Error).message).toContain('it answered 403: root: no endpoint of the API is bound to this directory of the node');
    }
    expect((await new NodeStorage(world.client(), 'e1', world.root, '/share').stat('/inner')).type).toBe('dir');
  });

  it("opens what a grant names to read-files only: a grant is no API token, names the endpoint and not the node's directory; a grant of an unpublished key, another endpoint's, or none, opens nothing", async () => {
    const { url, grant } = await world.client().grant('e1', { endpoint: 'e1', base: '/share', dir: '/inner', names: ['a.txt'], checksum: 'md5' });
    // F15: the destination that holds the grant learns nothing of the source's disk
    expect(Buffer.from(grant.split('.')[1]!, 'base64url').toString('utf8')).not.toContain(world.root);
    const agent = new Agent({ connect: { ca: readFileSync(world.certificates.ca, 'utf8') } });
    try {
      const readFiles = (token: string | null, names = ['a.txt']) => request(`${url}${NODE_STORAGE_PATH}/read-files`, { dispatcher: agent, method: 'POST', headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) }, body: JSON.stringify({ names }) });
      const granted = await readFiles(grant);
      expect(granted.statusCode).toBe(200);
      expect((await granted.body.arrayBuffer()).byteLength).toBeGreaterThan('in the share'.length);
      // the grant as the API's token on any other call
      const stat = await request(`${url}${NODE_STORAGE_PATH}/stat?root=${encodeURIComponent(world.root)}&path=/top.txt`, { dispatcher: agent, headers: { authorization: `Bearer ${grant}` } });
      expect([stat.statusCode, await stat.body.text()]).toEqual([401, expect.stringContaining('a grant to read files is no token of the API')]);
      // a grant of a key the API never published, and nothing
      const { grant: forged } = await world.client(false).grant('e1', { endpoint: 'e1', base: '/', dir: '/', names: ['top.txt'], checksum: null });
      // the names the grant opens, and no other
      const others = await readFiles(grant, ['../top.txt']);
      expect(others.statusCode).toBe(400);
      await others.body.dump();
      const more = await readFiles(grant, ['a.txt', 'b.txt']);
      expect([more.statusCode, await more.body.text()]).toEqual([403, expect.stringContaining('not the names the grant opens')]);
      for (const token of [forged, null]) {
        const refused = await readFiles(token);
        await refused.body.dump();
        expect(refused.statusCode).toBe(401);
      }
      const { grant: other } = await world.client().grant('e1', { endpoint: 'e2', base: '/', dir: '/', names: ['top.txt'], checksum: null });
      const elsewhere = await readFiles(other, ['top.txt']);
      expect([elsewhere.statusCode, await elsewhere.body.text()]).toEqual([403, expect.stringContaining('no endpoint of this node')]);
    } finally {
      await agent.close();
    }
  });

  it('is a node this server cannot reach once the node stops, naming the endpoint and the node', async () => {
    const storage = new NodeStorage(world.client(), 'e1', world.root, '/');
    expect((await storage.stat('/top.txt')).size).toBe(15);
    await world.node.close();
    const error = await storage.stat('/top.txt').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeNotReachableError);
    expect((error as Error).message).toContain(`Endpoint 'e1' is served by data node '${NODE_ID}'`);
    // started again for the world's close
    world.node = await NodeServer.start({ apiUrl: world.apiUrl, authUrl: 'http://127.0.0.1:1', nodeId: NODE_ID, secretFile: world.secretFile, port: 0, host: '127.0.0.1', tlsCert: world.certificates.cert, tlsKey: world.certificates.key, logger: createLogger({ level: 'silent' }) });
  });
});
