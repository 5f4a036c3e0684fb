import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { DataSource } from 'typeorm';
import { beforeDestroy } from './beforeDestroy';

interface SqliteHandle {
  pragma(sql: string): unknown;
}

/** SQLite's own: a commit that takes the WAL past this many pages checkpoints it. */
const AUTOCHECKPOINT_PAGES = 1000;
/** Checkpoints start at most this often: a run of writes is copied in batches, not one sync per commit. */
const CHECKPOINT_INTERVAL_MS = 200;
/**
 * A WAL of this many pages is checkpointed whole (FULL: new writers wait while it copies what came
 * in meanwhile), so that the next writer starts it again from the beginning and truncates the file
 * to this size (`journal_size_limit`). PASSIVE checkpoints alone never catch up with writers that
 * keep appending: under the bench's creates the WAL grew to 758 MB in 10 s. Not RESTART, which
 * also waits for readers while it holds writers back: the main connection reads in a transaction
 * before it writes, and each would wait for the other until a busy timeout.
 */
export const RESET_WAL_PAGES = 10_000;
/** The thread checkpoints this often unasked (a checkpoint with nothing to copy costs microseconds). */
const UNASKED_CHECKPOINT_MS = 1000;
/** SQLite's default page size, which xfer keeps. */
const PAGE_SIZE = 4096;

/**
 * SQLite in WAL mode: by default the commit that takes the WAL past 1,000 pages copies them into
 * the database file and syncs it, on the connection that committed: the event loop's. At
 * 1,000,000 endpoints that stalled every request for 267-762 ms every few hundred creates (a
 * create writes about 30 pages: its row, its indexes, its search entry and words, its owner's
 * role). A thread with a connection of its own checkpoints instead, after writes: PASSIVE, so it
 * never waits for or blocks a reader or a writer, then whole when the WAL is long (RESET_WAL_PAGES).
 * While it runs, the main connection checkpoints nothing itself; if it stops, the main connection
 * does again.
 */
export class WalCheckpoints {
  private readonly worker: Worker;
  private readonly exited: Promise<unknown>;
  /** A checkpoint is asked for or under way on the thread. */
  private running = false;
  /** Writes came since the checkpoint under way started. */
  private again = false;
  private lastStarted = 0;
  private stopped = false;
  private idle: (() => void)[] = [];

  constructor(file: string, private readonly handle: SqliteHandle) {
    this.worker = new Worker(CHECKPOINT_SCRIPT, { workerData: { checkpointDatabase: file } });
    this.worker.unref();
    this.worker.on('message', () => this.finished());
    this.worker.on('error', () => this.stop());
    this.exited = new Promise((resolve) => this.worker.once('exit', resolve)).finally(() => this.stop());
    handle.pragma('wal_autocheckpoint = 0');
    handle.pragma(`journal_size_limit = ${RESET_WAL_PAGES * PAGE_SIZE}`);
  }

  /** A transaction of this process ended: checkpoint once the one under way, if any, is done. */
  written(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    const wait = this.lastStarted + CHECKPOINT_INTERVAL_MS - Date.now();
    if (wait > 0) setTimeout(() => this.start(), wait).unref();
    else this.start();
  }

  private start(): void {
    if (this.stopped) return;
    this.lastStarted = Date.now();
    this.worker.postMessage('checkpoint');
  }

  /** Resolves once no checkpoint is under way or asked for (tests). */
  settled(): Promise<void> {
    return this.running ? new Promise((resolve) => this.idle.push(resolve)) : Promise.resolve();
  }

  /** Stops the thread once its checkpoint, if any, is done; it closes its connection first. */
  async close(): Promise<void> {
    this.stop();
    // an unreferenced thread would let the process end before it does, and before what follows
    this.worker.ref();
    this.worker.postMessage('close');
    await this.exited;
  }

  private finished(): void {
    this.running = false;
    if (this.again && !this.stopped) {
      this.again = false;
      return this.written();
    }
    for (const resolve of this.idle.splice(0)) resolve();
  }

  /** The thread is gone: the main connection checkpoints again, as SQLite does by default. */
  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.running = false;
    try {
      this.handle.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    } catch {
      // the connection is closed already
    }
    for (const resolve of this.idle.splice(0)) resolve();
  }
}

/** The thread's script: this module, compiled (a thread runs JavaScript; `npm run build` makes it). */
const CHECKPOINT_SCRIPT = join(__dirname, '..', 'dist', 'walCheckpoints.js');

const checkpoints = new WeakMap<DataSource, WalCheckpoints>();

/** The checkpoint thread of an SQLite file database that openDatabase set one up for, else null. */
export function walCheckpointsOf(dataSource: DataSource): WalCheckpoints | null {
  return checkpoints.get(dataSource) ?? null;
}

/**
 * Starts the checkpoint thread of an open SQLite file database; it stops with the DataSource. None
 * for an in-memory database (no WAL) or before the build.
 */
export function attachWalCheckpoints(dataSource: DataSource): void {
  const file = dataSource.options.database as string;
  if (dataSource.options.type !== 'better-sqlite3' || file === ':memory:' || !existsSync(CHECKPOINT_SCRIPT)) return;
  const walCheckpoints = new WalCheckpoints(file, (dataSource.driver as unknown as { databaseConnection: SqliteHandle }).databaseConnection);
  checkpoints.set(dataSource, walCheckpoints);
  beforeDestroy(dataSource, async () => {
    checkpoints.delete(dataSource);
    await walCheckpoints.close();
  });
}

/**
 * The thread's side: a checkpoint per message, answered when done, and one every
 * UNASKED_CHECKPOINT_MS in any case, for the writes that end nowhere near afterWrite (the seed's
 * batches, migrations, another process's writes): with wal_autocheckpoint at 0, nothing else copies
 * them (seeding 100,000 endpoints grew the WAL to 7.5 GB). `close` ends it.
 */
function serve(file: string): void {
  const db = new Database(file, { fileMustExist: true });
  // as the main connection: the WAL is synced before a checkpoint, the database file after it
  db.pragma('synchronous = NORMAL');
  // a reset waits for the writer of the moment to commit (and new writers wait for it)
  db.pragma('busy_timeout = 5000');
  const checkpoint = () => {
    try {
      const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
      if (log >= RESET_WAL_PAGES) db.pragma('wal_checkpoint(FULL)');
    } catch {
      // busy (another process checkpoints): the next write or tick asks again
    }
  };
  const unasked = setInterval(checkpoint, UNASKED_CHECKPOINT_MS);
  parentPort!.on('message', (message: 'checkpoint' | 'close') => {
    if (message === 'close') {
      clearInterval(unasked);
      db.close();
      return parentPort!.close();
    }
    checkpoint();
    parentPort!.postMessage('done');
  });
}

if (!isMainThread && (workerData as { checkpointDatabase?: string } | null)?.checkpointDatabase) serve((workerData as { checkpointDatabase: string }).checkpointDatabase);
