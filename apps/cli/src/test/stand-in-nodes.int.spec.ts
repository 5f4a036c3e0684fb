import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';

const BIN = join(__dirname, '..', '..', 'bin', 'xfer.js');
const LAB = '2f7c5d4e-1b8a-4c3d-9e6f-0a1b2c3d4e5f';
const READER = { id: '6f4a2f4e-6e0e-4d36-9d1b-3f1f0b9c2a11', secret: 'reader-secret-for-tests' };

/**
 * A seed's data nodes, which `serve --ephemeral` runs in its own process with a CA of its own: a
 * test suite exercises HTTPS access (here as the SDK's GCSDownloader goes about it) with one command.
 */
describe("the stand-in's data nodes", () => {
  let dir: string;
  let child: ChildProcess;
  let stderr: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-stand-in-nodes-test-'));
    mkdirSync(join(dir, 'lab'));
    writeFileSync(join(dir, 'lab', 'a.txt'), 'from the node');
    const seed = {
      identities: [{ username: 'alice' }],
      clients: [{ id: READER.id, name: 'Reader', confidential: true, secret: READER.secret }],
      tokens: [{ identity: 'alice', value: 'alice-token' }],
      // the reader client administers the node's GCS endpoint (its Manager API) and the Lab collection
      nodes: [{ name: 'lab-node', port: 0, owner: `${READER.id}@clients.auth.globus.org` }],
      endpoints: [{ id: LAB, display_name: 'Lab', owner: 'alice', storage: { type: 'node', node: 'lab-node', root: join(dir, 'lab'), users_deny: ['nobody'] }, roles: [{ principal: `${READER.id}@clients.auth.globus.org`, role: 'administrator' }] }],
    };
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
  });
  afterEach(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<string> {
    child = spawn(process.execPath, [BIN, 'serve', '--ephemeral', '--port', '0', '--seed', 'seed.json', '--print-env'], { cwd: dir, env: { ...process.env, HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let out = '';
    return new Promise((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.once('exit', (code) => reject(new Error(`the stand-in exited ${code}: ${stderr}`)));
    });
  }

  it('starts the nodes with a CA it prints; a client reads a node\'s file as GCSDownloader does, with client credentials', async () => {
    const url = await start();
    const caFile = /^export GLOBUS_SDK_VERIFY_SSL=(.+)$/m.exec(stderr)?.[1];
    expect(caFile).toBeDefined();
    expect(stderr).toMatch(/^data node lab-node \([0-9a-f-]{36}\) at https:\/\/localhost:\d+$/m);
    const agent = new Agent({ connect: { ca: readFileSync(caFile!, 'utf8') } });
    try {
      // a Transfer token first, for the endpoint document (entity_type and https_server)
      const token = async (scope: string) => {
        const answer = await fetch(`${url}/v2/oauth2/token`, { method: 'POST', headers: { Authorization: `Basic ${Buffer.from(`${READER.id}:${READER.secret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', scope }) });
        return (await answer.json()) as { access_token: string; scope: string; resource_server: string; other_tokens: unknown[] };
      };
      const transferToken = await token('urn:globus:auth:scope:transfer.api.globus.org:all');
      const endpoint = (await (await fetch(`${url}/v0.10/endpoint/${LAB}`, { headers: { Authorization: `Bearer ${transferToken.access_token}` } })).json()) as { https_server: string; entity_type: string };
      expect(endpoint.entity_type).toBe('GCSv5_mapped_collection');
      const file = `${endpoint.https_server}/a.txt`;
      // the sniff: no credentials, a redirect naming the endpoint as client_id
      const sniff = await request(file, { dispatcher: agent });
      await sniff.body.dump();
      expect(sniff.statusCode).toBe(302);
      expect(new URL(String(sniff.headers.location)).searchParams.getAll('client_id')).toEqual([LAB]);
      // the https scope, asked twice as the SDK may, and data_access beside it as GCSDownloader asks: one token, for the collection as resource server
      const scope = `https://auth.globus.org/scopes/${LAB}/https`;
      const dataAccess = `https://auth.globus.org/scopes/${LAB}/data_access`;
      const https = await token(`${scope} ${scope} ${dataAccess}`);
      expect([https.resource_server, https.scope.split(' ').sort(), https.other_tokens]).toEqual([LAB, [dataAccess, scope], []]);
      const read = await request(file, { dispatcher: agent, headers: { authorization: `Bearer ${https.access_token}` } });
      expect([read.statusCode, await read.body.text()]).toEqual([200, 'from the node']);
      // the node is a GCS endpoint: its Manager API lists the seeded collection to its owner
      const [, nodeId, nodeUrl] = /^data node lab-node \(([0-9a-f-]{36})\) at (https:\/\/localhost:\d+)$/m.exec(stderr)!;
      const manage = await token(`urn:globus:auth:scope:${nodeId}:manage_collections`);
      expect(manage.resource_server).toBe(nodeId);
      const collections = await request(`${nodeUrl}/api/collections`, { dispatcher: agent, headers: { authorization: `Bearer ${manage.access_token}` } });
      const listed = (await collections.body.json()) as { data: { id: string; collection_type: string }[] };
      expect([collections.statusCode, listed.data.map((c) => [c.id, c.collection_type])]).toEqual([200, [[LAB, 'mapped']]]);
      // the seed's storage entry set its gateway's policies
      const gateways = await request(`${nodeUrl}/api/storage_gateways`, { dispatcher: agent, headers: { authorization: `Bearer ${manage.access_token}` } });
      expect(((await gateways.body.json()) as { data: { root: string; users_deny: string[] }[] }).data.map((g) => [g.root, g.users_deny])).toEqual([[join(dir, 'lab'), ['nobody']]]);
    } finally {
      await agent.close();
    }
    const ca = caFile!;
    child.kill('SIGTERM');
    await once(child, 'exit');
    // the CA and the nodes' secrets go with the stand-in
    expect(existsSync(ca)).toBe(false);
  });

  it("moves files between two seeded nodes as tests ask: faults on a node-bound endpoint's storage, tasks run by hand", async () => {
    const ARCHIVE = '3a8d6e5f-2c9b-4d4e-8f70-1b2c3d4e5f60';
    mkdirSync(join(dir, 'archive'));
    const seed = JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8')) as { nodes: unknown[]; endpoints: unknown[] };
    seed.nodes.push({ name: 'archive-node', port: 0 });
    seed.endpoints.push({ id: ARCHIVE, display_name: 'Archive', owner: 'alice', storage: { type: 'node', node: 'archive-node', root: join(dir, 'archive') } });
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
    const url = await start();
    const alice = { Authorization: 'Bearer alice-token', 'Content-Type': 'application/json' };
    const post = async (path: string, body: unknown) => (await fetch(`${url}${path}`, { method: 'POST', headers: alice, body: JSON.stringify(body) })).json() as Promise<Record<string, unknown>>;
    expect((await post('/_xfer/tasks/progress', { mode: 'manual' })).mode).toBe('manual');
    await post('/_xfer/faults', { endpoint: ARCHIVE, path: '/in', error: 'PERMISSION_DENIED', count: 1 });
    const submission = ((await (await fetch(`${url}/v0.10/submission_id`, { headers: alice })).json()) as { value: string }).value;
    const submitted = await post('/v0.10/transfer', { DATA_TYPE: 'transfer', submission_id: submission, source_endpoint: LAB, destination_endpoint: ARCHIVE, verify_checksum: true, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/a.txt', destination_path: '/in/a.txt' }] });
    const taskId = submitted.task_id as string;
    expect(await post(`/_xfer/tasks/${taskId}/run`, {})).toMatchObject({ status: 'ACTIVE', nice_status: 'PERMISSION_DENIED' });
    expect(existsSync(join(dir, 'archive', 'in', 'a.txt'))).toBe(false);
    expect(await post(`/_xfer/tasks/${taskId}/run`, {})).toMatchObject({ status: 'SUCCEEDED' });
    expect(readFileSync(join(dir, 'archive', 'in', 'a.txt'), 'utf8')).toBe('from the node');
  });
});
