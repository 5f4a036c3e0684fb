import { readFileSync } from 'node:fs';
import { transfer } from '@globus/sdk';
import { testBackends } from '@xfer/persistence/testing';
import { inside, startHiddenNodes, type HiddenNode, type HiddenNodes } from './hiddenNodes';

interface Task {
  status: string;
  faults: number;
  files_transferred: number;
  bytes_transferred: number;
  nice_status: string | null;
}

/** Bytes this process has read through any read call (files, sockets, pipes), from /proc. */
const bytesRead = () => Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

/**
 * Transfers between two data nodes whose storage the API process cannot see, each node its own
 * process (killed with SIGKILL and started again over the same files): the destination pulls from
 * the source, the API only orchestrates.
 */
describe.each(testBackends())('transfers between nodes out of the API\'s sight ($name)', (backend) => {
  let world: HiddenNodes;
  let one: HiddenNode;
  let two: HiddenNode;
  let lab: string;
  let archive: string;
  beforeEach(async () => {
    world = await startHiddenNodes(backend);
    [one, two] = world.nodes as [HiddenNode, HiddenNode];
    [lab, archive] = world.endpoints as [string, string];
  });
  afterEach(() => world.close());

  const submit = async (items: { source_path: string; destination_path: string; recursive?: boolean }[], options: Record<string, unknown> = {}) => {
    const submission = ((await (await transfer.taskSubmission.submissionId(world.as(world.alice))).json()) as { value: string }).value;
    const payload = { DATA_TYPE: 'transfer', submission_id: submission, source_endpoint: lab, destination_endpoint: archive, ...options, DATA: items.map((item) => ({ DATA_TYPE: 'transfer_item', ...item })) };
    const answer = await transfer.taskSubmission.submitTransfer({ payload: payload as never, ...world.as(world.alice) });
    return ((await answer.json()) as { task_id: string }).task_id;
  };
  const task = async (id: string) => (await (await transfer.task.get(id, world.as(world.alice))).json()) as Task;
  const until = async (id: string, done: (task: Task) => boolean, seconds: number): Promise<Task> => {
    for (const deadline = Date.now() + seconds * 1000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
      const now = await task(id);
      if (done(now)) return now;
    }
    throw new Error(`task ${id}: not there within ${seconds} s (${JSON.stringify(await task(id))})`);
  };
  const md5 = (node: HiddenNode, path: string) => inside(node, 'md5sum', `${node.storage}${path}`).split(' ')[0];
  /** Waits until the destination node writes under a temporary name. */
  const copying = async (node: HiddenNode, dir: string) => {
    for (const deadline = Date.now() + 20_000; !inside(node, 'ls', '-a', `${node.storage}${dir}`).includes('.xfer-part-'); ) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('lands a filtered, verified tree byte for byte, the API reading under 5% of the bytes moved; then a sync by checksum copies nothing', async () => {
    inside(one, 'sh', '-c', `cd ${one.storage} && mkdir -p data/sub && head -c 48M /dev/urandom > data/big.bin && head -c 16M /dev/urandom > data/sub/mid.bin && echo small > data/sub/small.txt && echo no > data/sub/leave.tmp`);
    const before = bytesRead();
    const filter_rules = [{ DATA_TYPE: 'filter_rule', method: 'exclude', type: 'file', name: '*.tmp' }];
    const id = await submit([{ source_path: '/data/', destination_path: '/copy/', recursive: true }], { verify_checksum: true, filter_rules });
    const done = await until(id, (t) => t.status !== 'ACTIVE', 60);
    const moved = 64 * 2 ** 20 + 6;
    expect(done).toMatchObject({ status: 'SUCCEEDED', files_transferred: 3, bytes_transferred: moved });
    expect(bytesRead() - before).toBeLessThan(0.05 * moved);
    for (const path of ['/big.bin', '/sub/mid.bin', '/sub/small.txt']) expect(md5(two, `/copy${path}`)).toBe(md5(one, `/data${path}`));
    expect(inside(two, 'ls', '-a', `${two.storage}/copy/sub`).split('\n').filter(Boolean)).toEqual(['.', '..', 'mid.bin', 'small.txt']);
    const again = await until(await submit([{ source_path: '/data/', destination_path: '/copy/', recursive: true }], { sync_level: 3, filter_rules }), (t) => t.status !== 'ACTIVE', 60);
    expect(again).toMatchObject({ status: 'SUCCEEDED', files_transferred: 0 });
  });

  for (const side of ['source', 'destination'] as const) {
    it(`shows a ${side} node killed mid-file as a fault within 30 s, and succeeds once it is back, no partial file at its name`, async () => {
      inside(one, 'sh', '-c', `mkdir -p ${one.storage}/data && head -c 1M /dev/urandom > ${one.storage}/data/head.bin && truncate -s 512M ${one.storage}/data/huge.bin`);
      const id = await submit([{ source_path: '/data/huge.bin', destination_path: '/huge.bin' }]);
      await copying(two, '/');
      const killed = side === 'source' ? one : two;
      await world.kill(killed);
      const faulted = await until(id, (t) => t.faults >= 1, 30);
      expect(faulted.status).toBe('ACTIVE');
      const events = (await (await transfer.task.getEventList(id, world.as(world.alice))).json()) as { DATA: { is_error: boolean; details: string }[] };
      expect(events.DATA.some((event) => event.is_error && event.details.includes(`Endpoint '${side === 'source' ? lab : archive}'`))).toBe(true);
      expect(inside(two, 'ls', two.storage)).not.toContain('huge.bin');
      await world.restart(killed);
      expect(await until(id, (t) => t.status !== 'ACTIVE', 90)).toMatchObject({ status: 'SUCCEEDED', files_transferred: 1, bytes_transferred: 512 * 2 ** 20 });
      expect(md5(two, '/huge.bin')).toBe(md5(one, '/data/huge.bin'));
    });
  }
});
