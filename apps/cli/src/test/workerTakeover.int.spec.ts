import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal, TaskState } from '@xfer/core';
import { transferRequest } from '@xfer/core/testing';
import { freshPostgresDatabase } from '@xfer/persistence/testing';
import { Runtime, taskLockKey } from '@xfer/runtime';
import { Client } from 'pg';

const ROOT = join(__dirname, '..', '..', '..', '..');
const TASKS = 6;
const FILES = 300;

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * Three `xfer worker` processes on one Postgres database share the tasks; the one running tasks is
 * killed (SIGKILL) mid-copy, and the other two take its tasks up and finish every one, every file
 * whole at its final name.
 */
describe('xfer worker processes sharing tasks on Postgres', () => {
  let dir: string;
  let databaseUrl: string;
  let drop: () => Promise<void>;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-takeover-'));
    ({ url: databaseUrl, drop } = await freshPostgresDatabase(process.env.XFER_TEST_POSTGRES_URL!));
    for (let t = 0; t < TASKS; t += 1) {
      mkdirSync(join(dir, 'root', `data${t}`), { recursive: true });
      for (let i = 0; i < FILES; i += 1) writeFileSync(join(dir, 'root', `data${t}`, `f${i}.bin`), Buffer.alloc(32 * 1024, (t * 31 + i) % 256));
    }
  });
  afterAll(async () => {
    for (const worker of workers) if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    await Promise.all(workers.map((worker) => (worker.exitCode === null && worker.signalCode === null ? new Promise((resolve) => worker.once('exit', resolve)) : null)));
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finishes every accepted task when the process running them is killed', async () => {
    const runtime = await Runtime.open({ kind: 'command', databaseUrl });
    const locks = new Client({ connectionString: databaseUrl });
    await locks.connect();
    try {
      await runtime.services.admin.identities.addIdentity({ username: 'alice' });
      const alice: Principal = await runtime.services.authentication.principalOf((await runtime.services.admin.identities.listIdentities())[0]!.id);
      const lab = (await runtime.services.endpoints.createEndpoint(alice, { display_name: 'Lab', personal: false })).id;
      await runtime.services.admin.endpoints.setStorage(lab, { type: 'posix', root: join(dir, 'root') });

      let output = '';
      for (let i = 0; i < 3; i += 1) {
        const worker = spawn(process.execPath, [join(ROOT, 'apps/cli/bin/xfer.js'), 'worker'], { env: { ...process.env, DATABASE_URL: databaseUrl, API_TASK_WORKERS: '2', LOG_LEVEL: 'silent' } });
        worker.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        workers.push(worker);
      }
      const tasks: string[] = [];
      for (let t = 0; t < TASKS; t += 1) {
        const submitted = await runtime.services.tasks.submit(alice, transferRequest({ submission_id: runtime.services.tasks.submissionId(), source_endpoint: lab, destination_endpoint: lab, items: [{ source_path: `/data${t}/`, destination_path: `/copy${t}/` }] }));
        tasks.push(submitted.task.id);
      }

      // the worker whose lock connection holds a task that has begun copying
      const byKey = new Map(tasks.map((id, t) => [taskLockKey(id), t]));
      const found: { victim: { pid: number; held: number[] } | null } = { victim: null };
      for (let i = 0; i < 600 && found.victim === null; i += 1) {
        const rows = (await locks.query<{ application_name: string; classid: string; objid: string }>("SELECT a.application_name, l.classid, l.objid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted")).rows;
        const holders = new Map<number, number[]>();
        for (const row of rows) {
          const t = byKey.get(BigInt.asIntN(64, (BigInt(row.classid) << 32n) | BigInt(row.objid)));
          const pid = Number(/(\d+)$/.exec(row.application_name)?.[1]);
          if (t !== undefined && workers.some((w) => w.pid === pid)) holders.set(pid, [...(holders.get(pid) ?? []), t]);
        }
        for (const [pid, held] of holders) {
          const begun = held.some((t) => readdirSync(join(dir, 'root')).includes(`copy${t}`) && readdirSync(join(dir, 'root', `copy${t}`)).length > 0);
          if (begun && !held.every((t) => readdirSync(join(dir, 'root', `copy${t}`)).length >= FILES)) found.victim = { pid, held };
        }
        if (found.victim === null) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const victim = found.victim;
      if (victim === null) throw new Error(`no worker held a task mid-copy: ${output}`);
      const killedAt = Date.now();
      process.kill(victim.pid, 'SIGKILL');

      // every task ends, SUCCEEDED
      const finished: TaskState[] = [];
      for (const id of tasks) {
        for (let i = 0; ; i += 1) {
          const task = await runtime.services.tasks.get(alice, id);
          if (task.status !== 'ACTIVE') {
            finished.push(task);
            break;
          }
          if (i > 1200) throw new Error(`task ${id} did not finish: ${JSON.stringify(task)}\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      expect(finished.map((task) => task.status)).toEqual(Array(TASKS).fill('SUCCEEDED'));

      // the killed process's unfinished tasks were started again by another within 30 seconds
      const cut = victim.held.filter((t) => finished[t]!.completionTime!.getTime() > killedAt);
      expect(cut.length).toBeGreaterThan(0);
      for (const t of cut) {
        const { events } = await runtime.services.tasks.events(alice, tasks[t]!, { limit: 100, offset: 0, errorsOnly: false });
        const restarted = events.filter((event) => event.code === 'STARTED' && event.time.getTime() >= killedAt - 1000);
        expect(restarted.length).toBeGreaterThan(0);
        expect(Math.min(...restarted.map((event) => event.time.getTime())) - killedAt).toBeLessThan(30_000);
      }

      // every file whole at its final name; a half-written one only ever under a temporary name
      for (let t = 0; t < TASKS; t += 1) {
        const copied = readdirSync(join(dir, 'root', `copy${t}`)).filter((name) => !name.startsWith('.xfer-part-'));
        expect(copied.sort()).toEqual(readdirSync(join(dir, 'root', `data${t}`)).sort());
        for (const name of copied) expect(digest(join(dir, 'root', `copy${t}`, name))).toBe(digest(join(dir, 'root', `data${t}`, name)));
      }
      // the two left still run
      const stopped = workers.filter((worker) => worker.pid !== victim.pid && (worker.exitCode !== null || worker.signalCode !== null));
      if (stopped.length > 0) throw new Error(`a worker that was not killed stopped (${stopped.map((w) => w.exitCode ?? w.signalCode).join(', ')}):\n${output}`);
    } finally {
      await locks.end();
      await runtime.close();
    }
  });
});
