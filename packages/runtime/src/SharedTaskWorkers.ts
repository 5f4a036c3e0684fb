import { createHash } from 'node:crypto';
import type { SlotClaim, TaskDispatch } from '@xfer/core';
import { Client, type QueryResult, type QueryResultRow } from 'pg';
import PgBoss from 'pg-boss';
import { taskLockKey } from './taskLock';
import type { TaskWorkerOptions, TaskWorkerPool } from './TaskWorkers';

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

/**
 * Task workers that share the work with every other xfer process on one Postgres database.
 *
 * pg-boss carries the jobs (fetched with SKIP LOCKED, one queued job per task at most, delayed
 * retries): it is a well-kept queue on the database we already have, with nothing else to run,
 * and its job table is plain SQL we can read. The tasks table stays the truth: every process with
 * workers queues a job for each ACTIVE task that nobody runs (a submit, a restart, a process that
 * died), and a job whose task is finished does nothing.
 *
 * Each process holds one extra connection for Postgres advisory locks: the task's own (one process
 * runs a task at a time) and one of its owner's slots per type (core's per-user limit) (the per-user limit holds
 * across processes). A process that dies (kill -9) loses its connection and with it its locks at
 * once, so the next sweep (every `sweepMs`) queues its tasks again for the others. pg-boss 10 has
 * no heartbeat (12 does, on Node 22): its job expiry is not what detects a death here.
 */
export class SharedTaskWorkers implements TaskWorkerPool {
  private readonly running = new Set<Promise<void>>();
  /** The advisory locks this process holds: Postgres grants a session a lock it holds again, so the process keeps count itself. */
  private readonly held = new Set<string>();
  private workIds: string[] = [];
  private sweeper: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private stopped = false;
  /** Aborted at stop() and when the locks are lost: the tasks in hand are handed back after the file in hand. */
  private readonly handBack = new AbortController();
  private paused = false;
  /** Set when the lock connection is lost: the locks are gone, so every task in hand is handed back. */
  private locksLost = false;
  /** The lock connection's last query: one connection runs one query at a time (pg 9 refuses a second). */
  private lockQueries: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly dispatch: TaskDispatch,
    private readonly boss: PgBoss,
    private readonly locks: Client,
    private readonly options: TaskWorkerOptions,
  ) {}

  /** Connects, makes pg-boss's schema and queue when missing, and starts `concurrency` workers and the sweeper. */
  static async start(dispatch: TaskDispatch, databaseUrl: string, options: TaskWorkerOptions): Promise<SharedTaskWorkers> {
    const locks = new Client({ connectionString: databaseUrl, application_name: `xfer task locks ${process.pid}` });
    await locks.connect();
    // a job is finished quickly or held by a live process's lock; expiry only tidies jobs of dead processes
    const boss = new PgBoss({ connectionString: databaseUrl, schema: SCHEMA, max: 2, application_name: `xfer task queue ${process.pid}`, schedule: false, supervise: true, maintenanceIntervalSeconds: 60 });
    const workers = new SharedTaskWorkers(dispatch, boss, locks, options);
    boss.on('error', (error) => options.log?.(`task queue: ${error.message}`));
    locks.on('error', (error) => workers.loseLocks(error));
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
      for (let i = 0; i < options.concurrency; i += 1) {
        workers.workIds.push(await boss.work<{ taskId: string }>(QUEUE, { batchSize: 1, pollingIntervalSeconds: Math.max(0.5, (options.pollMs ?? 1000) / 1000) }, ([job]) => workers.take(job!.data.taskId)));
      }
    } catch (error) {
      await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
      await locks.end().catch(() => undefined);
      throw error;
    }
    workers.schedule();
    return workers;
  }

  nudge(): void {
    if (!this.stopped && !this.paused && this.sweeping === null) this.sweeping = this.sweep().finally(() => (this.sweeping = null));
  }

  async pause(): Promise<void> {
    this.paused = true;
    await Promise.all(this.running);
  }

  resume(): void {
    this.paused = false;
    this.nudge();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.handBack.abort();
    if (this.sweeper) clearTimeout(this.sweeper);
    await this.sweeping;
    // the tasks in hand hand themselves back after their file in hand; then pg-boss and the locks close
    await Promise.all(this.running);
    await this.boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    await this.locks.end().catch(() => undefined);
  }

  private schedule(): void {
    if (this.stopped) return;
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
      if (free.length === 0) return;
      await this.boss.insert(free.map((task) => ({ name: QUEUE, data: { taskId: task.id }, singletonKey: task.id })));
      for (const id of this.workIds) this.boss.notifyWorker(id);
    } catch (error) {
      if (!this.stopped) this.options.log?.(`task workers: the queue could not be filled: ${(error as Error).message}`);
    }
  }

  /** A job: runs its task when this process can hold it and one of its owner's slots; else leaves it to the holder or a later job. */
  private async take(taskId: string): Promise<void> {
    if (this.stopped || this.paused || this.locksLost) return this.later(taskId, 1000);
    const run = this.runHeld(taskId);
    this.running.add(run);
    try {
      await run;
    } finally {
      this.running.delete(run);
    }
  }

  private async runHeld(taskId: string): Promise<void> {
    const key = taskLockKey(taskId).toString();
    if (!(await this.tryLock(`task ${key}`, 'pg_try_advisory_lock($1::bigint)', [key]))) return; // its holder runs it, and queues it again if it must wait
    try {
      const slot: SlotClaim = async (owner, type, i) => {
        const slotId = slotKey(owner, type);
        const name = `slot ${slotId} ${i}`;
        if (!(await this.tryLock(name, 'pg_try_advisory_lock($1::int, $2::int)', [slotId, i]))) return null;
        return () => this.unlock(name, 'pg_advisory_unlock($1::int, $2::int)', [slotId, i]);
      };
      const { retryAfterMs, error } = await this.dispatch.attempt(taskId, this.handBack.signal, slot);
      if (error !== null) this.options.log?.(`task ${taskId}: ${error.message}`);
      if (retryAfterMs !== null) await this.later(taskId, retryAfterMs);
    } finally {
      await this.unlock(`task ${key}`, 'pg_advisory_unlock($1::bigint)', [key]);
    }
  }

  /** Queues the task's next job after `ms` (none when one is queued already). */
  private async later(taskId: string, ms: number): Promise<void> {
    if (this.locksLost) return; // the other processes' sweeps find it
    await this.boss.insert([{ name: QUEUE, data: { taskId }, singletonKey: taskId, startAfter: new Date(Date.now() + ms).toISOString() }]).catch((error: unknown) => {
      this.options.log?.(`task ${taskId}: could not be queued again: ${(error as Error).message}`);
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
    this.handBack.abort();
    this.options.log?.(`task workers: the lock connection failed (${error.message}): tasks in hand are handed back and this process takes no more`);
  }
}
