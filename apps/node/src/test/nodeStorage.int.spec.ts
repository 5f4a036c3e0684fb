import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeNotReachableError, StorageError } from '@xfer/core';
import { describeStorageContract } from '@xfer/core/contracts';
import { createLogger } from '@xfer/server-kit';
import { NODE_STORAGE_PATH, NodeStorage } from '@xfer/storage';
import { Agent, request } from 'undici';
import { NodeServer } from '../NodeServer';
import { NODE_ID, startNodeWorld, type NodeWorld } from './nodeWorld';

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

  it("refuses calls signed with another secret than the node's, as a node this server cannot reach", async () => {
    const stranger = new NodeStorage(world.client('xfer_another-secret'), 'e1', world.root, '/');
    const error = await stranger.stat('/top.txt').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeNotReachableError);
    expect((error as Error).message).toMatch(/it answered 401/);
    await expect(stranger.write('/planted.txt', (async function* () { yield Buffer.from('x'); })())).rejects.toBeInstanceOf(NodeNotReachableError);
    expect(readdirSync(world.root).sort()).toEqual(['share', 'top.txt']);
  });

  it("opens what a grant names to read-files only: a grant is no API token; a grant signed with another secret, or none, opens nothing", async () => {
    const { url, grant } = await world.client().grant('e1', { root: world.root, base: '/share', dir: '/inner', names: ['a.txt'], checksum: 'md5' });
    const agent = new Agent({ connect: { ca: readFileSync(world.certificates.ca, 'utf8') } });
    try {
      const readFiles = (body: unknown) => request(`${url}${NODE_STORAGE_PATH}/read-files`, { dispatcher: agent, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const granted = await readFiles({ grant });
      expect(granted.statusCode).toBe(200);
      expect((await granted.body.arrayBuffer()).byteLength).toBeGreaterThan('in the share'.length);
      // the grant as the API's token on any other call
      const stat = await request(`${url}${NODE_STORAGE_PATH}/stat?root=${encodeURIComponent(world.root)}&path=/top.txt`, { dispatcher: agent, headers: { authorization: `Bearer ${grant}` } });
      expect([stat.statusCode, await stat.body.text()]).toEqual([401, expect.stringContaining('a grant to read files is no token of the API')]);
      // a grant signed with another secret, and nothing
      const { grant: forged } = await world.client('xfer_another-secret').grant('e1', { root: world.root, base: '/', dir: '/', names: ['top.txt'], checksum: null });
      for (const body of [{ grant: forged }, {}]) {
        const refused = await readFiles(body);
        await refused.body.dump();
        expect(refused.statusCode).toBe(401);
      }
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
