import { createHash } from 'node:crypto';
import { SLOT_WAIT_MS, takeOwnerSlot, type RunningTask, type TaskClaim, type TaskDispatch } from '@xfer/core';
import { Client, type QueryResult, type QueryResultRow } from 'pg';
import PgBoss from 'pg-boss';
import { taskLockKey } from './taskLock';
import type { QueueAdapter, TaskWorkerOptions } from './TaskWorkers';

/** pg-boss's queue of "run this task" jobs; a job is a nudge, the tasks table says what is to do. */
const QUEUE = 'xfer-tasks';
/** pg-boss's tables live in a schema of their own beside xfer's. */
const SCHEMA = 'pgboss';
/** The advisory lock (on the lock connection) under which a process makes the queue: 64 bits of a name's digest. */
const QUEUE_SETUP_LOCK = createHash('sha256').update('xfer: make the pg-boss queue').digest().readBigInt64BE(0).toString();

/** An owner's slots for a type of task (core's dispatch says how many): a 32-bit key, the slot number beside it. */
function slotKey(owner: string, type: string): number {
  return createHash('sha256').update(`${owner}:${type}`).digest().readInt32BE(0);
}

/** A claim of this queue: the pg-boss job that brought the task, held under the task's advisory lock and one of its owner's slots. */
interface JobClaim extends TaskClaim {
  jobId: string;
  lock: string;
  task: RunningTask;
  releaseSlot: () => Promise<void>;
}

/**
 * The task queue shared with every other xfer process on one Postgres database.
 *
 * pg-boss carries the jobs (fetched with SKIP LOCKED, one queued job per task at most, delayed
 * jobs for later attempts): it is a well-kept queue on the database we already have, with nothing
 * else to run, and its job table is plain SQL we can read. The tasks table stays the truth and an
 * advisory lock the lease: every process queues a job for each ACTIVE task that nobody holds (a
 * submit, a restart, a process that died), and a job whose task is finished does nothing. pg-boss
 * owns delivery and delay; it does not own retry or expiry (a task's deadline and faults are
 * core's), and its job expiry is not what detects a death (pg-boss 10 has no heartbeat).
 *
 * Each process holds one extra connection for advisory locks: the task's own (one process runs a
 * task at a time) and one of its owner's slots per type (the per-user limit holds across
 * processes). A process that dies (kill -9) loses its connection and with it its locks at once,
 * so the next sweep (every `sweepMs`) queues its tasks again for the others.
 */
export class PgBossTaskQueue implements QueueAdapter {
  /** The advisory locks this process holds: Postgres grants a session a lock it holds again, so the process keeps count itself. */
  private readonly held = new Set<string>();
  /** The tasks this process holds, by id: whose, and of which type (an owner's share of the workers). */
  private readonly claimed = new Map<string, RunningTask>();
  private sweeper: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private closed = false;
  /** Aborted at hand-back and when the locks are lost: the tasks held are handed back after the file in hand. */
  private readonly stopping = new AbortController();
  /** Set when the lock connection is lost: the locks are gone, so every task held is handed back. */
  private locksLost = false;
  /** The lock connection's last query: one connection runs one query at a time (pg 9 refuses a second). */
  private lockQueries: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly dispatch: TaskDispatch,
    private readonly boss: PgBoss,
    private readonly locks: Client,
    private readonly options: TaskWorkerOptions,
  ) {}

  /** Connects, makes pg-boss's schema and queue when missing, and starts the sweeper. */
  static async open(dispatch: TaskDispatch, databaseUrl: string, options: TaskWorkerOptions): Promise<PgBossTaskQueue> {
    const locks = new Client({ connectionString: databaseUrl, application_name: `xfer task locks ${process.pid}` });
    await locks.connect();
    // a job is finished quickly or held by a live process's lock; expiry only tidies jobs of dead processes
    const boss = new PgBoss({ connectionString: databaseUrl, schema: SCHEMA, max: 2, application_name: `xfer task queue ${process.pid}`, schedule: false, supervise: true, maintenanceIntervalSeconds: 60 });
    const queue = new PgBossTaskQueue(dispatch, boss, locks, options);
    boss.on('error', (error) => options.log?.(`task queue: ${error.message}`));
    locks.on('error', (error) => queue.loseLocks(error));
    try {
      await boss.start();
      // pg-boss makes a queue's tables under no lock of its own: processes starting together on a
      // new database deadlock there (Postgres ends one with "deadlock detected"), so one process at
      // a time makes it and the others find it made
      await locks.query('SELECT pg_advisory_lock($1::bigint)', [QUEUE_SETUP_LOCK]);
      try {
        if (!(await boss.getQueue(QUEUE))) await boss.createQueue(QUEUE, { name: QUEUE, policy: 'short', retryLimit: 0, expireInSeconds: 60 * 60, retentionMinutes: 60 });
      } finally {
        await locks.query('SELECT pg_advisory_unlock($1::bigint)', [QUEUE_SETUP_LOCK]);
      }
    } catch (error) {
      await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
      await locks.end().catch(() => undefined);
      throw error;
    }
    queue.schedule();
    return queue;
  }

  /** Queues the tasks nobody holds now (a submit need not wait for the next sweep). */
  nudge(): void {
    if (!this.closed && this.sweeping === null) this.sweeping = this.sweep().finally(() => (this.sweeping = null));
  }

  /**
   * The tasks of fetched jobs that this process can hold, each with one of its owner's per-user
   * slots of its type (an advisory lock: the limit holds across processes) within the owner's
   * share of this process's workers (mayStart). A job whose task another process holds, or that
   * is finished, is done with; one whose owner may start no more now comes back after SLOT_WAIT_MS.
   */
  async claim(count: number): Promise<TaskClaim[]> {
    if (this.closed || this.locksLost) return [];
    await this.sweeping;
    const jobs = await this.boss.fetch<{ taskId: string }>(QUEUE, { batchSize: count });
    const claims: JobClaim[] = [];
    for (const job of jobs) {
      const lock = taskLockKey(job.data.taskId).toString();
      if (!(await this.tryLock(`task ${lock}`, 'pg_try_advisory_lock($1::bigint)', [lock]))) {
        await this.complete(job.id);
        continue;
      }
      const claimed = await this.withSlot(job.data.taskId).catch(() => null);
      if (claimed === null || claimed === 'finished') {
        if (claimed === null) await this.later(job.data.taskId, SLOT_WAIT_MS);
        await this.complete(job.id);
        await this.unlock(`task ${lock}`, 'pg_advisory_unlock($1::bigint)', [lock]);
        continue;
      }
      this.claimed.set(job.data.taskId, claimed.task);
      claims.push({ taskId: job.data.taskId, signal: this.stopping.signal, jobId: job.id, lock, ...claimed });
    }
    return claims;
  }

  /** The task, and one of its owner's slots, where its owner may start it here now; null where not; 'finished' for a task that is done or gone. */
  private async withSlot(taskId: string): Promise<{ task: RunningTask; releaseSlot: () => Promise<void> } | 'finished' | null> {
    const task = await this.dispatch.claimable(taskId);
    if (task === null) return 'finished';
    const key = slotKey(task.owner, task.type);
    const releaseSlot = await takeOwnerSlot(task, this.claimed.values(), this.options.concurrency, async (i) => {
      const name = `slot ${key} ${i}`;
      return (await this.tryLock(name, 'pg_try_advisory_lock($1::int, $2::int)', [key, i])) ? () => this.unlock(name, 'pg_advisory_unlock($1::int, $2::int)', [key, i]) : null;
    });
    return releaseSlot === null ? null : { task, releaseSlot };
  }

  /** The task's lock let go, its job done with, and a delayed job queued where it is to be tried again. */
  async release(claim: TaskClaim, retryAfterMs: number | null): Promise<void> {
    const { jobId, lock, releaseSlot } = claim as JobClaim;
    try {
      if (retryAfterMs !== null) await this.later(claim.taskId, retryAfterMs);
      await this.complete(jobId);
    } finally {
      this.claimed.delete(claim.taskId);
      await releaseSlot();
      await this.unlock(`task ${lock}`, 'pg_advisory_unlock($1::bigint)', [lock]);
    }
  }

  handBack(): void {
    this.stopping.abort();
  }

  /** Stops the sweeper, then pg-boss and the lock connection (after every claim was released). */
  async close(): Promise<void> {
    this.closed = true;
    this.handBack();
    if (this.sweeper) clearTimeout(this.sweeper);
    await this.sweeping;
    await this.boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    await this.locks.end().catch(() => undefined);
  }

  private schedule(): void {
    if (this.closed) return;
    this.sweeper = setTimeout(() => {
      this.nudge();
      void (this.sweeping ?? Promise.resolve()).then(() => this.schedule());
    }, this.options.sweepMs ?? 2000);
    this.sweeper.unref();
  }

  /** Queues a job for every ACTIVE task that no process holds (pg-boss keeps one queued job per task). */
  private async sweep(): Promise<void> {
    try {
      const active = await this.dispatch.unfinished();
      if (active.length === 0) return;
      const held = new Set(
        (await this.onLockConnection<{ classid: string; objid: string }>("SELECT classid, objid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")).rows.map((row) =>
          BigInt.asIntN(64, (BigInt(row.classid) << 32n) | BigInt(row.objid)),
        ),
      );
      const free = active.filter((task) => !held.has(taskLockKey(task.id)));
      if (free.length > 0) await this.boss.insert(free.map((task) => ({ name: QUEUE, data: { taskId: task.id }, singletonKey: task.id })));
    } catch (error) {
      if (!this.closed) this.options.log?.(`task workers: the queue could not be filled: ${(error as Error).message}`);
    }
  }

  /** Queues the task's next job after `ms` (none when one is queued already). */
  private async later(taskId: string, ms: number): Promise<void> {
    if (this.locksLost) return; // the other processes' sweeps find it
    await this.boss.insert([{ name: QUEUE, data: { taskId }, singletonKey: taskId, startAfter: new Date(Date.now() + ms).toISOString() }]).catch((error: unknown) => {
      this.options.log?.(`task ${taskId}: could not be queued again: ${(error as Error).message}`);
    });
  }

  private async complete(jobId: string): Promise<void> {
    await this.boss.complete(QUEUE, jobId).catch((error: unknown) => {
      // a job left active is tidied by pg-boss's expiry; the task is queued again by a sweep
      if (!this.closed) this.options.log?.(`task queue: a job could not be completed: ${(error as Error).message}`);
    });
  }

  /** Takes a lock nobody holds, this process included (the name marks it taken before the round trip). */
  private async tryLock(name: string, call: string, values: unknown[]): Promise<boolean> {
    if (this.locksLost || this.held.has(name)) return false;
    this.held.add(name);
    const granted = await this.onLockConnection<{ held: boolean }>(`SELECT ${call} AS held`, values).then((result) => result.rows[0]?.held === true, () => false);
    if (!granted) this.held.delete(name);
    return granted;
  }

  private async unlock(name: string, call: string, values: unknown[]): Promise<void> {
    if (!this.locksLost) await this.onLockConnection(`SELECT ${call}`, values).catch(() => undefined);
    this.held.delete(name);
  }

  /** A query on the lock connection, after the ones asked for before it. */
  private onLockConnection<R extends QueryResultRow>(sql: string, values: unknown[] = []): Promise<QueryResult<R>> {
    const query = this.lockQueries.then(() => this.locks.query<R>(sql, values));
    this.lockQueries = query.catch(() => undefined);
    return query;
  }

  private loseLocks(error: Error): void {
    if (this.locksLost) return;
    this.locksLost = true;
    this.handBack();
    this.options.log?.(`task workers: the lock connection failed (${error.message}): tasks held are handed back and this process takes no more`);
  }
}
