import 'reflect-metadata';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Principal, type TaskState } from '@xfer/core';
import { transferRequest } from '@xfer/core/testing';
import { freshPostgresDatabase } from '@xfer/persistence/testing';
import { Runtime } from '../Runtime';

/** Three batches of the copy thread and then some: a close lands between two of them. */
const FILES = 3500;

/** Task workers owned by the runtime: a stop with a task in flight loses nothing; the next start finishes it. */
describe.each(['sqlite', 'postgres'] as const)('task workers across a restart (%s)', (backend) => {
  let dir: string;
  let databaseUrl: string;
  let drop: () => Promise<void> = async () => undefined;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-workers-'));
    if (backend === 'sqlite') databaseUrl = `sqlite:${join(dir, 'xfer.sqlite')}`;
    else ({ url: databaseUrl, drop } = await freshPostgresDatabase(process.env.XFER_TEST_POSTGRES_URL!));
    mkdirSync(join(dir, 'root', 'data'), { recursive: true });
    for (let i = 0; i < FILES; i += 1) writeFileSync(join(dir, 'root', 'data', `f${i}.bin`), Buffer.alloc(2048, i % 256));
  });
  afterEach(async () => {
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `read` until `done` says so, polled every 10 ms for at most 30 s (a loaded machine takes its time). */
  const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      const value = await read();
      if (done(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('gave up waiting');
  };

  it('hands a running task back on close and finishes it after the next open, every file whole', async () => {
    let runtime = await Runtime.open({ kind: 'server', databaseUrl });
    await runtime.services.admin.identities.addIdentity({ username: 'alice' });
    const alice: Principal = await runtime.services.authentication.principalOf((await runtime.services.admin.identities.listIdentities())[0]!.id);
    const lab = (await runtime.services.endpoints.createEndpoint(alice, { display_name: 'Lab', personal: false })).id;
    await runtime.services.admin.endpoints.setStorage(lab, { type: 'posix', root: join(dir, 'root') });
    const { task } = await runtime.services.tasks.submit(alice, transferRequest({ submission_id: runtime.services.tasks.submissionId(), source_endpoint: lab, destination_endpoint: lab, items: [{ source_path: '/data/', destination_path: '/copy/' }] }));
    await runtime.startTaskWorkers({ concurrency: 1, pollMs: 10, sweepMs: 50 });
    // stop once the copy has begun
    await until(() => Promise.resolve(readdirSync(join(dir, 'root')).includes('copy') ? readdirSync(join(dir, 'root', 'copy')).length : 0), (n) => n > 0);
    await runtime.close();
    const handed = (await Runtime.run({ databaseUrl }, (rt) => rt.services.tasks.get(alice, task.id))) as TaskState;
    expect(handed).toMatchObject({ status: 'ACTIVE', niceStatus: 'Queued' });
    const copied = readdirSync(join(dir, 'root', 'copy'));
    expect(copied.length).toBeLessThan(FILES);
    expect(copied.filter((name) => name.startsWith('.xfer-part-'))).toEqual([]);

    runtime = await Runtime.open({ kind: 'server', databaseUrl });
    try {
      await runtime.startTaskWorkers({ concurrency: 1, pollMs: 10, sweepMs: 50 });
      const done = await until(() => runtime.services.tasks.get(alice, task.id), (t) => t.status !== 'ACTIVE');
      expect(done).toMatchObject({ status: 'SUCCEEDED', counters: { files: FILES, filesTransferred: FILES, bytesTransferred: FILES * 2048 } });
      expect(readdirSync(join(dir, 'root', 'copy')).sort()).toEqual(readdirSync(join(dir, 'root', 'data')).sort());
    } finally {
      await runtime.close();
    }
  });

  it('runs at most 3 transfer tasks of one user at a time: the 4th waits Queued, then runs', async () => {
    const runtime = await Runtime.open({ kind: 'server', databaseUrl });
    try {
      await runtime.services.admin.identities.addIdentity({ username: 'alice' });
      const alice: Principal = await runtime.services.authentication.principalOf((await runtime.services.admin.identities.listIdentities())[0]!.id);
      const lab = (await runtime.services.endpoints.createEndpoint(alice, { display_name: 'Lab', personal: false })).id;
      await runtime.services.admin.endpoints.setStorage(lab, { type: 'posix', root: join(dir, 'root') });
      const ids: string[] = [];
      for (let t = 0; t < 4; t += 1) {
        ids.push((await runtime.services.tasks.submit(alice, transferRequest({ submission_id: runtime.services.tasks.submissionId(), source_endpoint: lab, destination_endpoint: lab, items: [{ source_path: '/data/', destination_path: `/copy${t}/` }] }))).task.id);
      }
      await runtime.startTaskWorkers({ concurrency: 6, pollMs: 10, sweepMs: 50 });
      // running: started (a STARTED event) and not finished; sampled until all four end
      let most = 0;
      for (let i = 0; i < 3000; i += 1) {
        const states = await Promise.all(ids.map(async (id) => ({ task: await runtime.services.tasks.get(alice, id), started: (await runtime.services.tasks.events(alice, id, { limit: 10 })).events.some((e) => e.code === 'STARTED') })));
        most = Math.max(most, states.filter((s) => s.started && s.task.status === 'ACTIVE').length);
        if (states.every((s) => s.task.status !== 'ACTIVE')) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(most).toBe(3);
      for (const id of ids) expect(await runtime.services.tasks.get(alice, id)).toMatchObject({ status: 'SUCCEEDED', counters: { filesTransferred: FILES } });
    } finally {
      await runtime.close();
    }
  });
});
