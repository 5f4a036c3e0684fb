import { existsSync, readdirSync } from 'node:fs';
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
});
