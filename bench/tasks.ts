/**
 * Transfer tasks (issue 48), each beside `cp` on the same files in the same run: one 1 GiB file,
 * 10,000 files of 4 KiB, the same with verify_checksum (beside cp + sha256sum of both sides), on
 * posix storage through the API on an SQLite file, and the 10,000 files again on tmpfs where the
 * machine has /dev/shm (no disk's write-back in the way); 1,000 tiny tasks on memory storage
 * through the stand-in; and the API's peak RSS while it copies the 1 GiB file.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { createCoreServices, randomIdGenerator, systemClock } from '@xfer/core';
import { openEngine, TypeormUnitOfWork } from '@xfer/persistence';
import { peakRssMb, standInUrl, start, stop } from './processes';

export interface TaskRow {
  scenario: string;
  /** The task's (or cp's) time, in ms; for the tiny tasks, submit to SUCCEEDED. */
  p50_ms: number;
  p99_ms: number;
  /** Tasks per second (tiny tasks), else 0. */
  requests_per_second: number;
  /** xfer's rate over cp's on the same files. */
  ratio_to_cp: number | null;
  peak_rss_mb: number | null;
}

const GIB = 2 ** 30;
const SMALL_FILES = 10_000;
const TINY_TASKS = 1000;
const TINY_USERS = 10;
/** Turns of cp and xfer per scenario. */
const ROUNDS = 5;

type Api = { url: string; headers: Record<string, string> };

async function submitAndWait(api: Api, body: Record<string, unknown>): Promise<number> {
  const submissionId = ((await (await fetch(`${api.url}/submission_id`, { headers: api.headers })).json()) as { value: string }).value;
  const started = performance.now();
  const answer = await fetch(`${api.url}/transfer`, { method: 'POST', headers: { ...api.headers, 'content-type': 'application/json' }, body: JSON.stringify({ ...body, submission_id: submissionId }) });
  const { task_id: taskId } = (await answer.json()) as { task_id: string };
  if (answer.status !== 202) throw new Error(`the transfer was refused: ${answer.status}`);
  for (;;) {
    const task = (await (await fetch(`${api.url}/task/${taskId}`, { headers: api.headers })).json()) as { status: string; nice_status: string | null };
    if (task.status === 'SUCCEEDED') return performance.now() - started;
    if (task.status !== 'ACTIVE') throw new Error(`task ${taskId} ended ${task.status}`);
    if (task.nice_status !== null && task.nice_status !== 'Queued' && task.nice_status !== 'OK') throw new Error(`task ${taskId} waits: ${task.nice_status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The wall time of a shell command, in ms (it must succeed). Never spawnSync: an event loop held
 * for seconds keeps fetch's idle connections past the server's keep-alive, and the next request
 * meets a closed socket.
 */
async function timed(command: string): Promise<number> {
  const started = performance.now();
  const child = spawn('sh', ['-c', command], { stdio: ['ignore', 'ignore', 'inherit'] });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${command} failed`);
  return performance.now() - started;
}

const row = (scenario: string, ms: number, ratioToCp: number | null, rss: number | null = null): TaskRow => ({
  scenario,
  p50_ms: Math.round(ms),
  p99_ms: Math.round(ms),
  requests_per_second: 0,
  ratio_to_cp: ratioToCp === null ? null : Number(ratioToCp.toFixed(2)),
  peak_rss_mb: rss,
});

/** The posix scenarios, through the API on an SQLite file with its task workers. */
async function posixTasks(work: string, log: (line: string) => void): Promise<TaskRow[]> {
  const root = join(work, 'task-root');
  mkdirSync(join(root, 'one'), { recursive: true });
  mkdirSync(join(root, 'many'), { recursive: true });
  // one 1 GiB file of random bytes, written a MiB at a time
  const chunk = randomBytes(2 ** 20);
  const fd = openSync(join(root, 'one', 'big.bin'), 'w');
  for (let i = 0; i < GIB / chunk.length; i += 1) writeSync(fd, chunk);
  closeSync(fd);
  for (let i = 0; i < SMALL_FILES; i += 1) writeFileSync(join(root, 'many', `f${String(i).padStart(5, '0')}.dat`), randomBytes(4096));
  // the same small files in memory (tmpfs), where no disk's write-back decides: xfer's own work beside cp's
  const memoryRoot = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/xfer-bench-') : null;
  if (memoryRoot) cpSync(join(root, 'many'), join(memoryRoot, 'many'), { recursive: true });
  const databaseUrl = `sqlite:${join(work, 'tasks.sqlite')}`;
  const engine = await openEngine(databaseUrl);
  let token: string;
  let endpointId: string;
  let memoryEndpointId: string | null = null;
  try {
    const services = createCoreServices(new TypeormUnitOfWork(engine), systemClock, randomIdGenerator);
    const identity = await services.admin.identities.addIdentity({ username: 'mover@example.org' });
    const owner = await services.authentication.principalOf(identity.id);
    const storageAt = async (name: string, at: string) => {
      const id = (await services.endpoints.createEndpoint(owner, { display_name: name, personal: false })).id;
      await services.admin.endpoints.setStorage(id, { type: 'posix', root: at });
      return id;
    };
    endpointId = await storageAt('Bench storage', root);
    if (memoryRoot) memoryEndpointId = await storageAt('Bench storage on tmpfs', memoryRoot);
    token = (await services.admin.tokens.issueToken('mover@example.org')).token;
  } finally {
    await engine.close();
  }
  const server = await start(join(__dirname, '..', 'apps/api/dist/main.js'), { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, (port) => `http://127.0.0.1:${port}/healthz`);
  const api: Api = { url: `http://127.0.0.1:${server.port}/v0.10`, headers: { authorization: `Bearer ${token}` } };
  const transfer = (source: string, destination: string, extra: Record<string, unknown> = {}, on = endpointId) =>
    submitAndWait(api, { source_endpoint: on, destination_endpoint: on, DATA: [{ source_path: source, destination_path: destination }], ...extra });
  const rows: TaskRow[] = [];
  /**
   * cp and xfer in turns, ROUNDS times each, the outputs removed and the disk synced before each
   * (what one leaves to write back would slow the next): the medians, and the median of each
   * round's ratio (cp's rate over xfer's): this machine's disk changes speed several-fold over
   * minutes (cp -r of the same files 0.3-2.5 s), and a round's two runs, back to back, meet the same.
   */
  const turns = async (cp: () => Promise<number>, xfer: () => Promise<number>, outputs: string[], under = root) => {
    const times = { cp: [] as number[], xfer: [] as number[] };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const output of outputs) rmSync(join(under, output), { recursive: true, force: true });
      await timed('sync');
      times.cp.push(await cp());
      for (const output of outputs) rmSync(join(under, output), { recursive: true, force: true });
      await timed('sync');
      times.xfer.push(await xfer());
    }
    for (const output of outputs) rmSync(join(under, output), { recursive: true, force: true });
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    return { cp: median(times.cp), xfer: median(times.xfer), ratio: median(times.cp.map((cp, i) => cp / times.xfer[i]!)) };
  };
  try {
    const one = await turns(() => timed(`cp ${root}/one/big.bin ${root}/cp-big.bin`), () => transfer('/one/big.bin', '/xfer-big.bin'), ['cp-big.bin', 'xfer-big.bin']);
    const rss = peakRssMb(server.child);
    const rate = (ms: number) => Math.round(GIB / 2 ** 20 / (ms / 1000));
    rows.push(row(`transfer: one 1 GiB file, posix to posix (medians of ${ROUNDS}, the ratio the rounds' median; cp ${Math.round(one.cp)} ms, ${rate(one.cp)} MB/s; xfer ${rate(one.xfer)} MB/s); peak RSS of the API`, one.xfer, one.ratio, rss));

    const recursive = (extra: Record<string, unknown> = {}) => () => transfer('/many/', '/xfer-many/', { ...extra, DATA: [{ source_path: '/many/', destination_path: '/xfer-many/', recursive: true }] });
    const many = await turns(() => timed(`cp -r ${root}/many ${root}/cp-many`), recursive(), ['cp-many', 'xfer-many']);
    rows.push(row(`transfer: ${SMALL_FILES.toLocaleString('en')} files of 4 KiB, recursive (medians of ${ROUNDS}, the ratio the rounds' median; cp -r ${Math.round(many.cp)} ms)`, many.xfer, many.ratio));

    const summed = await turns(() => timed(`cp -r ${root}/many ${root}/cp-many && find ${root}/many ${root}/cp-many -type f -exec sha256sum {} + > /dev/null`), recursive({ verify_checksum: true }), ['cp-many', 'xfer-many']);
    rows.push(row(`transfer: ${SMALL_FILES.toLocaleString('en')} files of 4 KiB, verify_checksum (medians of ${ROUNDS}, the ratio the rounds' median; cp -r + sha256sum of both sides ${Math.round(summed.cp)} ms)`, summed.xfer, summed.ratio));

    if (memoryRoot && memoryEndpointId) {
      const inMemory = await turns(() => timed(`cp -r ${memoryRoot}/many ${memoryRoot}/cp-many`), () => transfer('/many/', '/xfer-many/', { DATA: [{ source_path: '/many/', destination_path: '/xfer-many/', recursive: true }] }, memoryEndpointId), ['cp-many', 'xfer-many'], memoryRoot);
      rows.push(row(`transfer: ${SMALL_FILES.toLocaleString('en')} files of 4 KiB on tmpfs (no disk: xfer's own work beside cp's), recursive (medians of ${ROUNDS}, the ratio the rounds' median; cp -r ${Math.round(inMemory.cp)} ms)`, inMemory.xfer, inMemory.ratio));
    }
  } finally {
    await stop(server.child);
    if (memoryRoot) rmSync(memoryRoot, { recursive: true, force: true });
  }
  for (const r of rows) log(`${r.scenario}: ${r.p50_ms} ms, ${r.ratio_to_cp} of cp${r.peak_rss_mb ? `, peak RSS ${r.peak_rss_mb} MB` : ''}`);
  return rows;
}

/** 1,000 one-file tasks of 10 users on memory storage, through the stand-in: tasks/s and submit to SUCCEEDED. */
async function tinyTasks(work: string, log: (line: string) => void): Promise<TaskRow> {
  const users = Array.from({ length: TINY_USERS }, (_, i) => ({ username: `mover${i}@example.org`, token: `mover-token-${i}`, endpoint: `0000000${i}-0000-4000-8000-000000000000` }));
  const seedFile = join(work, 'tiny-tasks-seed.json');
  writeFileSync(
    seedFile,
    JSON.stringify({
      identities: users.map((u) => ({ username: u.username, password: 'bench-password' })),
      tokens: users.map((u) => ({ identity: u.username, value: u.token })),
      endpoints: users.map((u) => ({ id: u.endpoint, owner: u.username, display_name: `Tiny ${u.username}`, storage: { type: 'memory', files: { '/in/tiny.txt': 'tiny', '/out/': null } } })),
    }),
  );
  const child = spawn(process.execPath, [join(__dirname, '..', 'apps/cli/bin/xfer.js'), 'serve', '--ephemeral', '--port', '0', '--seed', seedFile], { env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = `${await standInUrl(child)}/v0.10`;
    // each user submits its tasks one after another while a watcher lists its ACTIVE ones every 20 ms:
    // a task answered before a listing began and missing from it has ended (the documents' times are whole seconds)
    const latencies: number[] = [];
    let first = Infinity;
    let last = 0;
    await Promise.all(
      users.map(async (u) => {
        const headers = { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' };
        const submitted = new Map<string, { at: number; answeredAt: number }>();
        let submitting = true;
        const watcher = (async () => {
          while (submitting || submitted.size > 0) {
            const listedAt = performance.now();
            const list = (await (await fetch(`${url}/task_list?filter=status:ACTIVE&limit=1000`, { headers })).json()) as { DATA: { task_id: string }[] };
            const active = new Set(list.DATA.map((t) => t.task_id));
            const seenAt = performance.now();
            for (const [id, times] of submitted) {
              if (times.answeredAt < listedAt && !active.has(id)) {
                latencies.push(seenAt - times.at);
                last = Math.max(last, seenAt);
                submitted.delete(id);
              }
            }
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })();
        for (let i = 0; i < TINY_TASKS / TINY_USERS; i += 1) {
          const submissionId = ((await (await fetch(`${url}/submission_id`, { headers })).json()) as { value: string }).value;
          const body = { submission_id: submissionId, source_endpoint: u.endpoint, destination_endpoint: u.endpoint, DATA: [{ source_path: '/in/tiny.txt', destination_path: `/out/t${i}.txt` }] };
          const at = performance.now();
          first = Math.min(first, at);
          const answer = (await (await fetch(`${url}/transfer`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as { task_id: string };
          submitted.set(answer.task_id, { at, answeredAt: performance.now() });
        }
        submitting = false;
        await watcher;
      }),
    );
    latencies.sort((a, b) => a - b);
    const span = (last - first) / 1000;
    const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!);
    const result: TaskRow = {
      scenario: `${TINY_TASKS.toLocaleString('en')} tiny tasks (one 4-byte file each, ${TINY_USERS} users submitting at once), memory storage, the stand-in: tasks/s; submit to seen ended (lists every 20 ms)`,
      requests_per_second: Math.round(TINY_TASKS / span),
      p50_ms: at(0.5),
      p99_ms: at(0.99),
      ratio_to_cp: null,
      peak_rss_mb: peakRssMb(child),
    };
    log(`${result.scenario}: ${result.requests_per_second} tasks/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms`);
    return result;
  } finally {
    await stop(child);
  }
}

export async function measureTasks(work: string, log: (line: string) => void): Promise<TaskRow[]> {
  return [...(await posixTasks(work, log)), await tinyTasks(work, log)];
}
