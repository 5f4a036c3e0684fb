import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testBackends } from '@xfer/persistence/testing';
import express, { type Express, type Request, type Response } from 'express';
import { startApiAndNodes, type ApiAndNodes } from './apiAndNodes';

/** A file's entry as a node sends it. */
const wireFile = (name: string, size: number) => ({ name, type: 'file', size, lastModified: '2026-01-01T00:00:00.000Z', permissions: 0o644, user: null, group: null, link: null });
const wireDir = (name: string) => ({ ...wireFile(name, 4096), type: 'dir' });

/**
 * A node that lies (security round 5): a test server registered with the API that answers the
 * storage protocol as the attack needs. `listing` is what it lists in each directory (names that
 * no honest storage lists among them); every file it names reads `content`.
 */
function lyingNode(listing: Record<string, string[]>, content = 'evil'): Express {
  const app = express();
  const path = (req: Request) => String(req.query.path ?? '/');
  app.get('/_xfer/storage/stat', (req: Request, res: Response) => {
    const asked = path(req);
    res.json(asked in listing ? wireDir(asked.slice(asked.lastIndexOf('/') + 1) || '/') : wireFile(asked.slice(asked.lastIndexOf('/') + 1), content.length));
  });
  app.get('/_xfer/storage/names', (req: Request, res: Response) => {
    res.type('application/x-ndjson').send(`${JSON.stringify(listing[path(req)] ?? [])}\n`);
  });
  app.post('/_xfer/storage/entries', express.json(), (req: Request, res: Response) => {
    const dir = path(req);
    res.json((req.body as { names: string[] }).names.map((name) => (`${dir}/${name}` in listing ? wireDir(name) : wireFile(name, content.length))));
  });
  app.get('/_xfer/storage/read', (_req: Request, res: Response) => {
    res.type('application/octet-stream').send(content);
  });
  return app;
}

/** A frame of the stream of files (a kind byte, a 32-bit length, the payload). */
const frame = (kind: 'H' | 'D' | 'E', payload: Buffer | object) => {
  const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(JSON.stringify(payload));
  const head = Buffer.alloc(5);
  head[0] = kind.charCodeAt(0);
  head.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([head, bytes]);
};

/** A source node that lists one file, `big.bin`, in /data and answers read-files with `stream` (its answer written by the test). */
function lyingSource(stream: (res: Response) => void): Express {
  const app = express();
  app.get('/_xfer/storage/stat', (_req, res) => void res.json(wireDir('data')));
  app.get('/_xfer/storage/typed-names', (_req, res) => void res.type('application/x-ndjson').send(`${JSON.stringify([{ name: 'big.bin', type: 'file' }])}\n`));
  app.post('/_xfer/storage/read-files', (_req, res) => {
    res.type('application/octet-stream');
    stream(res);
  });
  return app;
}

/** Writes `total` bytes of `byte` to an answer, a MiB at a time as it drains; resolves how many were written before the reader closed it (all: it read them all). */
function flood(res: Response, total: number, byte = 'a'): Promise<number> {
  const chunk = Buffer.alloc(2 ** 20, byte);
  return new Promise((resolve) => {
    let sent = 0;
    res.on('close', () => resolve(sent));
    const more = () => {
      while (sent < total && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
}

describe.each(testBackends())('data nodes that lie to the API ($name)', (backend) => {
  let world: ApiAndNodes;
  beforeEach(async () => {
    world = await startApiAndNodes(backend, {}, { taskWorkers: true });
  });
  afterEach(() => world.close());

  it.each(['../evil.txt', '..', 'a/../../evil.txt'])('F1: a listing that names %j fails the copy: nothing written beside the destination on the API\'s own machine', async (name) => {
    const liar = await world.hostileNode('liar', lyingNode({ '/data': ['fine.txt', name] }));
    const desk = await world.localEndpoint('Desk', { '/keep.txt': 'mine' });
    const submitted = await world.transfer({ source_endpoint: liar.endpointId, destination_endpoint: desk.id, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/data/', destination_path: '/in/copy/', recursive: true }] });
    expect(submitted.status).toBe(202);
    const task = await world.until(submitted.body.task_id as string, (t) => t.status !== 'ACTIVE');
    expect(task).toMatchObject({ status: 'FAILED', fatal_error: { code: 'INVALID_PATH', description: expect.stringContaining("which is no file's name") } });
    expect(existsSync(join(desk.root, 'in', 'evil.txt'))).toBe(false);
    expect(existsSync(join(desk.root, 'evil.txt'))).toBe(false);
    expect(readdirSync(desk.root).sort()).toEqual(['in', 'keep.txt']);
    const events = (await world.as(world.alice.token).get(`/task/${submitted.body.task_id as string}/event_list`)).body.DATA as { code: string; details: string; is_error: boolean }[];
    expect(events[0]).toMatchObject({ code: 'FAILED', is_error: true, details: expect.stringContaining('INVALID_PATH') });
  });

  it('F2: an endless line of a listing, or a document of entries without end, is given up on at its bound: the task waits on the node, the API reads no further', async () => {
    const FLOOD = 256 * 2 ** 20;
    const flooded: Promise<number>[] = [];
    let endlessNames = true;
    const app = express();
    app.get('/_xfer/storage/stat', (_req, res) => void res.json(wireDir('data')));
    app.get('/_xfer/storage/names', (_req, res) => {
      res.type('application/x-ndjson');
      if (endlessNames) flooded.push(flood(res, FLOOD));
      else res.send(`${JSON.stringify(['a.txt', 'b.txt'])}\n`);
    });
    const liar = await world.hostileNode('flooder', app);
    const desk = await world.localEndpoint('Desk', {});
    const submitted = await world.transfer({ source_endpoint: liar.endpointId, destination_endpoint: desk.id, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/data/', destination_path: '/copy/', recursive: true }] });
    const waiting = await world.until(submitted.body.task_id as string, (t) => t.nice_status === 'ENDPOINT_NOT_CONNECTED');
    expect(waiting).toMatchObject({ status: 'ACTIVE', files_transferred: 0 });
    const events = (await world.as(world.alice.token).get(`/task/${submitted.body.task_id as string}/event_list?filter=is_error:1`)).body.DATA as { details: string }[];
    expect(events[0]!.details).toContain(`a line of its answer is longer than ${4 * 2 ** 20} bytes`);
    // the API closed the answer at its bound: the node could not send the rest
    const sent = await flooded[0]!;
    expect(sent).toBeLessThan(FLOOD / 4);
    await world.as(world.alice.token).post(`/task/${submitted.body.task_id as string}/cancel`);
    // an ls (entries of what it lists) whose document has no end
    endlessNames = false;
    app.post('/_xfer/storage/entries', (_req, res) => {
      res.type('application/json');
      flooded.push(flood(res, FLOOD, ' '));
    });
    const listing = await world.as(world.alice.token).get(`/operation/endpoint/${liar.endpointId}/ls?path=/data/&orderby=size`);
    expect(listing.status).toBe(409);
    expect(listing.body).toMatchObject({ code: 'ExternalError.NodeNotReachable' });
    expect(listing.body.message).toContain(`its answer is longer than ${16 * 2 ** 20} bytes`);
    expect(await flooded[1]!).toBeLessThan(FLOOD / 4);
  });

  /** A transfer of the lying source's /data/ to the Archive node's /in/ (its previous big.bin there), and the task once it waits on a fault. */
  let liars = 0;
  const copyFromLiar = async (app: Express, options: Record<string, unknown> = {}) => {
    liars += 1;
    const liar = await world.hostileNode(`liar-${liars}`, app);
    const destination = join(world.archive.root, 'in');
    (await import('node:fs')).mkdirSync(destination, { recursive: true });
    writeFileSync(join(destination, 'big.bin'), 'previous');
    const submitted = await world.transfer({ source_endpoint: liar.endpointId, destination_endpoint: world.archive.id, ...options, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/data/', destination_path: '/in/', recursive: true }] });
    expect(submitted.status).toBe(202);
    const taskId = submitted.body.task_id as string;
    const task = await world.until(taskId, (t) => t.nice_status !== null && t.nice_status !== 'Queued');
    const events = (await world.as(world.alice.token).get(`/task/${taskId}/event_list?filter=is_error:1`)).body.DATA as { code: string; details: string }[];
    await world.as(world.alice.token).post(`/task/${taskId}/cancel`);
    return { task, events, previous: readFileSync(join(destination, 'big.bin'), 'utf8'), names: readdirSync(destination) };
  };

  it('F5: a frame header of megabytes fails the stream at once: the destination node reads no more of it', async () => {
    let sent: Promise<number> = Promise.resolve(0);
    const copy = await copyFromLiar(lyingSource((res) => {
      const head = Buffer.alloc(5);
      head[0] = 'H'.charCodeAt(0);
      head.writeUInt32BE(64 * 2 ** 20, 1);
      res.write(head);
      sent = flood(res, 64 * 2 ** 20, ' ');
    }));
    expect(copy.task).toMatchObject({ status: 'ACTIVE', nice_status: 'ENDPOINT_NOT_CONNECTED', files_transferred: 0 });
    expect(copy.events[0]!.details).toContain(`the stream of files broke the protocol: a control frame of ${64 * 2 ** 20} bytes (at most 65536)`);
    expect(await sent).toBeLessThan(16 * 2 ** 20);
    expect([copy.previous, copy.names]).toEqual(['previous', ['big.bin']]);
  });

  it.each([
    ['more bytes than its header said', [frame('D', Buffer.alloc(100_000, 'a')), frame('D', Buffer.alloc(50_000, 'b')), frame('E', { digest: null })], 'it sent more bytes of a file than its header said'],
    ['fewer bytes than its header said', [frame('D', Buffer.alloc(60_000, 'a')), frame('E', { digest: null })], 'a file ended 40000 bytes short of what its header said'],
  ])('F6: a source that sends %s fails the copy, verified or not: nothing takes the file\'s name', async (_what, frames, said) => {
    for (const verify of [false, true]) {
      const copy = await copyFromLiar(lyingSource((res) => res.end(Buffer.concat([frame('H', { name: 'big.bin', size: 100_000, mtime: 0 }), ...frames]))), { verify_checksum: verify });
      expect(copy.task).toMatchObject({ status: 'ACTIVE', nice_status: 'ENDPOINT_NOT_CONNECTED', files_transferred: 0 });
      expect(copy.events[0]!.details).toContain(said);
      expect([copy.previous, copy.names]).toEqual(['previous', ['big.bin']]);
    }
  });

  it('F6: an endless file stops at the size its header said', async () => {
    let sent: Promise<number> = Promise.resolve(0);
    const copy = await copyFromLiar(lyingSource((res) => {
      res.write(Buffer.concat([frame('H', { name: 'big.bin', size: 1_000_000, mtime: 0 }), frame('D', Buffer.alloc(1_000_000, 'a'))]));
      const head = Buffer.alloc(5);
      head[0] = 'D'.charCodeAt(0);
      head.writeUInt32BE(2 ** 32 - 1, 1);
      res.write(head);
      sent = flood(res, 256 * 2 ** 20);
    }));
    expect(copy.events[0]!.details).toContain('it sent more bytes of a file than its header said (0 left)');
    expect(await sent).toBeLessThan(64 * 2 ** 20);
    expect([copy.previous, copy.names]).toEqual(['previous', ['big.bin']]);
  });

  it('F7: a digest that differs is found before the copy takes its name: the file there stays as it was', async () => {
    for (const size of [1_000, 1_000_000]) {
      const bytes = Buffer.alloc(size, 'x');
      const copy = await copyFromLiar(lyingSource((res) => res.end(Buffer.concat([frame('H', { name: 'big.bin', size, mtime: 0 }), frame('D', bytes), frame('E', { digest: createHash('md5').update('other').digest('hex') })]))), { verify_checksum: true });
      expect(copy.task).toMatchObject({ status: 'ACTIVE', nice_status: 'CHECKSUM_MISMATCH', files_transferred: 1 });
      expect(copy.events[0]!.details).toContain(`/in/big.bin: md5 ${createHash('md5').update(bytes).digest('hex')}, expected ${createHash('md5').update('other').digest('hex')}`);
      expect([copy.previous, copy.names]).toEqual(['previous', ['big.bin']]);
    }
  });
});
