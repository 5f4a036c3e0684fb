import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testBackends } from '@xfer/persistence/testing';
import { startApiAndNodes, type ApiAndNodes } from './apiAndNodes';

/** Files of several sizes, a large one among them (several chunks, several frames). */
const LARGE = Buffer.alloc(3 * 2 ** 20 + 12_345, 'xfer');
const TREE = {
  '/data/a.txt': 'hello, node',
  '/data/skip.tmp': 'left out by the filter',
  '/data/sub/deep.txt': 'deep',
  '/data/sub/large.bin': LARGE.toString('latin1'),
  '/data/sub/deeper/end.txt': 'the end',
};

const digestOf = (path: string) => createHash('md5').update(readFileSync(path)).digest('hex');

describe.each(testBackends())('transfers between data nodes ($name)', (backend) => {
  let world: ApiAndNodes;
  beforeEach(async () => {
    world = await startApiAndNodes(backend, TREE, { taskWorkers: true });
  });
  afterEach(() => world.close());

  it('copies a tree from one node to another, filtered and verified, byte for byte; a second run by checksum copies nothing', async () => {
    const document = {
      source_endpoint: world.lab.id,
      destination_endpoint: world.archive.id,
      verify_checksum: true,
      filter_rules: [{ DATA_TYPE: 'filter_rule', method: 'exclude', type: 'file', name: '*.tmp' }],
      DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/data/', destination_path: '/copy/', recursive: true }],
    };
    const submitted = await world.transfer(document);
    expect(submitted.status).toBe(202);
    const task = await world.until(submitted.body.task_id as string, (t) => t.status !== 'ACTIVE');
    expect(task).toMatchObject({ status: 'SUCCEEDED', files_transferred: 4, bytes_transferred: LARGE.length + 11 + 4 + 7, faults: 0 });
    for (const path of ['a.txt', 'sub/deep.txt', 'sub/large.bin', 'sub/deeper/end.txt']) {
      expect(digestOf(join(world.archive.root, 'copy', path))).toBe(digestOf(join(world.lab.root, 'data', path)));
    }
    expect(existsSync(join(world.archive.root, 'copy', 'skip.tmp'))).toBe(false);
    // nothing but the files at their names: no temporary name left
    expect(readdirSync(join(world.archive.root, 'copy')).sort()).toEqual(['a.txt', 'sub']);
    const again = await world.transfer({ ...document, sync_level: 3 });
    const synced = await world.until(again.body.task_id as string, (t) => t.status !== 'ACTIVE');
    expect(synced).toMatchObject({ status: 'SUCCEEDED', files_transferred: 0, files_skipped: 4 });
  });

  it('copies a file under another name node to node, and within one node (its own copy), preserving its time', async () => {
    const onLab = await world.endpoint('Scratch', world.nodes[0]!);
    const submitted = await world.transfer({
      source_endpoint: world.lab.id,
      destination_endpoint: world.archive.id,
      preserve_timestamp: true,
      DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/data/sub/large.bin', destination_path: '/renamed.bin' }],
    });
    expect(await world.until(submitted.body.task_id as string, (t) => t.status !== 'ACTIVE')).toMatchObject({ status: 'SUCCEEDED', files_transferred: 1, bytes_transferred: LARGE.length });
    expect(digestOf(join(world.archive.root, 'renamed.bin'))).toBe(digestOf(join(world.lab.root, 'data/sub/large.bin')));
    expect(statSync(join(world.archive.root, 'renamed.bin')).mtimeMs).toBe(Math.floor(statSync(join(world.lab.root, 'data/sub/large.bin')).mtimeMs / 1000) * 1000);
    const local = await world.transfer({
      source_endpoint: world.lab.id,
      destination_endpoint: onLab.id,
      verify_checksum: true,
      DATA: [
        { DATA_TYPE: 'transfer_item', source_path: '/data/', destination_path: '/tree/', recursive: true },
        { DATA_TYPE: 'transfer_item', source_path: '/data/a.txt', destination_path: '/b.txt' },
      ],
    });
    expect(await world.until(local.body.task_id as string, (t) => t.status !== 'ACTIVE')).toMatchObject({ status: 'SUCCEEDED', files_transferred: 6 });
    expect(readFileSync(join(onLab.root, 'b.txt'), 'utf8')).toBe('hello, node');
    expect(digestOf(join(onLab.root, 'tree/sub/large.bin'))).toBe(digestOf(join(world.lab.root, 'data/sub/large.bin')));
  });

  it('moves files between a node and the API\'s own machine both ways (the API reaches the node over HTTPS)', async () => {
    const local = await world.localEndpoint('Desk', { '/in/x.txt': 'from the desk' });
    const up = await world.transfer({ source_endpoint: local.id, destination_endpoint: world.lab.id, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/in/', destination_path: '/from-desk/', recursive: true }] });
    expect(await world.until(up.body.task_id as string, (t) => t.status !== 'ACTIVE')).toMatchObject({ status: 'SUCCEEDED', files_transferred: 1 });
    expect(readFileSync(join(world.lab.root, 'from-desk/x.txt'), 'utf8')).toBe('from the desk');
    const down = await world.transfer({ source_endpoint: world.lab.id, destination_endpoint: local.id, verify_checksum: true, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/data/sub/', destination_path: '/out/', recursive: true }] });
    expect(await world.until(down.body.task_id as string, (t) => t.status !== 'ACTIVE')).toMatchObject({ status: 'SUCCEEDED', files_transferred: 3 });
    expect(digestOf(join(local.root, 'out/large.bin'))).toBe(digestOf(join(world.lab.root, 'data/sub/large.bin')));
  });

  it("refuses a stranger's task between someone else's nodes", async () => {
    const stranger = await world.transfer({ source_endpoint: world.lab.id, destination_endpoint: world.archive.id, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/data/a.txt', destination_path: '/stolen.txt' }] }, world.bob.token);
    expect(stranger.status).toBe(403);
    expect(existsSync(join(world.archive.root, 'stolen.txt'))).toBe(false);
  });

  it('shows the bytes of a large file as they arrive, and stops a copy canceled mid-file: no file at its name, none half-written left', async () => {
    const huge = join(world.lab.root, 'data', 'huge.bin');
    writeFileSync(huge, '');
    truncateSync(huge, 2 * 2 ** 30);
    const submitted = await world.transfer({ source_endpoint: world.lab.id, destination_endpoint: world.archive.id, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/data/huge.bin', destination_path: '/huge.bin' }] });
    const taskId = submitted.body.task_id as string;
    // the copy under way: its temporary file at the destination
    for (const deadline = Date.now() + 20_000; !readdirSync(world.archive.root).some((name) => name.startsWith('.xfer-part-')); ) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // the node's word on the file in hand, written back while it copies
    const moving = await world.until(taskId, (t) => (t.bytes_transferred as number) > 0);
    expect(moving).toMatchObject({ status: 'ACTIVE', files_transferred: 0 });
    expect((await world.as(world.alice.token).post(`/task/${taskId}/cancel`)).body.code).toBe('Canceled');
    expect(await world.until(taskId, (t) => t.status !== 'ACTIVE')).toMatchObject({ status: 'FAILED', fatal_error: { code: 'CANCELED' } });
    for (const deadline = Date.now() + 10_000; readdirSync(world.archive.root).some((name) => name.startsWith('.xfer-part-')); ) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(existsSync(join(world.archive.root, 'huge.bin'))).toBe(false);
  });

  it('lists a special file among many small ones as skipped and copies the rest, in order, node to node', async () => {
    const dir = join(world.lab.root, 'many');
    mkdirSync(dir);
    for (let i = 0; i < 60; i += 1) writeFileSync(join(dir, `f${String(i).padStart(2, '0')}.txt`), `file ${i}`);
    execFileSync('mkfifo', [join(dir, 'f30-pipe')]);
    const submitted = await world.transfer({ source_endpoint: world.lab.id, destination_endpoint: world.archive.id, verify_checksum: true, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/many/', destination_path: '/many/', recursive: true }] });
    const task = await world.until(submitted.body.task_id as string, (t) => t.status !== 'ACTIVE');
    expect(task).toMatchObject({ status: 'SUCCEEDED', files_transferred: 60 });
    const skipped = (await world.as(world.alice.token).get(`/task/${submitted.body.task_id as string}/skipped_errors`)).body.DATA as { source_path: string; error_code: string }[];
    expect(skipped).toEqual([expect.objectContaining({ source_path: '/many/f30-pipe', error_code: 'SPECIAL_FILE' })]);
    const copied = readdirSync(join(world.archive.root, 'many')).sort();
    expect(copied).toHaveLength(60);
    for (const name of copied) expect(readFileSync(join(world.archive.root, 'many', name), 'utf8')).toBe(readFileSync(join(dir, name), 'utf8'));
  });

  it('copies a folder of many long names node to node (a grant names them by their digest: a thousand long names would not fit a header)', async () => {
    const dir = join(world.lab.root, 'long');
    mkdirSync(dir);
    const names = Array.from({ length: 300 }, (_, i) => `${String(i).padStart(3, '0')}-${'n'.repeat(200)}.txt`);
    for (const name of names) writeFileSync(join(dir, name), name.slice(0, 3));
    const submitted = await world.transfer({ source_endpoint: world.lab.id, destination_endpoint: world.archive.id, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/long/', destination_path: '/long/', recursive: true }] });
    expect(await world.until(submitted.body.task_id as string, (t) => t.status !== 'ACTIVE')).toMatchObject({ status: 'SUCCEEDED', files_transferred: 300, faults: 0 });
    expect(readdirSync(join(world.archive.root, 'long')).sort()).toEqual(names);
  });

  it("syncs by size and time with delete_destination_extra: the destination node's extra files go, what is in sync stays", async () => {
    const document = { source_endpoint: world.lab.id, destination_endpoint: world.archive.id, sync_level: 2, preserve_timestamp: true, delete_destination_extra: true, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/data/sub/', destination_path: '/sub/', recursive: true }] };
    const first = await world.transfer(document);
    expect(await world.until(first.body.task_id as string, (t) => t.status !== 'ACTIVE')).toMatchObject({ status: 'SUCCEEDED', files_transferred: 3 });
    writeFileSync(join(world.archive.root, 'sub', 'extra.txt'), 'not in the source');
    mkdirSync(join(world.archive.root, 'sub', 'extra-dir'));
    writeFileSync(join(world.archive.root, 'sub', 'extra-dir', 'x.txt'), 'x');
    const second = await world.transfer(document);
    expect(await world.until(second.body.task_id as string, (t) => t.status !== 'ACTIVE')).toMatchObject({ status: 'SUCCEEDED', files_transferred: 0, files_skipped: 3 });
    expect(readdirSync(join(world.archive.root, 'sub')).sort()).toEqual(['deep.txt', 'deeper', 'large.bin']);
  });

  it("reads nothing for a queued task whose access rule on a node-bound share was revoked", async () => {
    const alice = world.as(world.alice.token);
    await world.world.subscriptionFor('alice');
    expect((await alice.put(`/endpoint/${world.lab.id}`, { subscription_id: 'DEFAULT' })).status).toBe(200);
    const share = (await alice.post('/shared_endpoint', { display_name: 'Data share', host_endpoint: world.lab.id, host_path: '/data/' })).body.id as string;
    const granted = await alice.post(`/endpoint/${share}/access`, { DATA_TYPE: 'access', principal_type: 'identity', principal: world.bob.id, path: '/', permissions: 'r' });
    expect(granted.status).toBe(201);
    const rule = granted.body.access_id as string;
    // bob reads the share's files while the rule stands
    expect((await world.as(world.bob.token).get(`/operation/endpoint/${share}/ls?path=/`)).status).toBe(200);
    const bobs = (await world.as(world.bob.token).post('/endpoint', { display_name: 'Bob on node two', DATA: [{ hostname: 'bob.example.org' }] })).body.id as string;
    const bobRoot = join(world.nodes[1]!.root, 'bob');
    mkdirSync(bobRoot);
    await world.runtime.services.admin.endpoints.setStorage(bobs, { type: 'node', node: world.nodes[1]!.id, root: bobRoot });
    await world.workers!.pause();
    const queued = await world.transfer({ source_endpoint: share, destination_endpoint: bobs, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/a.txt', destination_path: '/a.txt' }] }, world.bob.token);
    expect(queued.status).toBe(202);
    expect((await alice.delete(`/endpoint/${share}/access/${rule}`)).status).toBe(200);
    world.workers!.resume();
    const waiting = await world.until(queued.body.task_id as string, (t) => t.nice_status !== null && t.nice_status !== 'Queued', world.bob.token);
    expect(waiting).toMatchObject({ status: 'ACTIVE', nice_status: 'PERMISSION_DENIED', files_transferred: 0 });
    expect(readdirSync(bobRoot)).toEqual([]);
  });
});
