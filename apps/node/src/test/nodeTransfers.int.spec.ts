import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
});
