import { isMainThread, parentPort, workerData, type Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { READY, startWorker, type StartReport } from '../workers';

interface SqliteHandle {
  pragma(sql: string): unknown;
  readonly inTransaction: boolean;
  readonly open: boolean;
}

/** What a PASSIVE checkpoint reports: the WAL's frames, and how many of them are in the database file. */
type Checkpointed = { asked: boolean; log: number; checkpointed: number };

/** SQLite's own: a commit that takes the WAL past this many pages checkpoints it. */
const AUTOCHECKPOINT_PAGES = 1000;
/** Checkpoints start at most this often: a run of writes is copied in batches, not one sync per commit. */
const CHECKPOINT_INTERVAL_MS = 200;
/**
 * A WAL of this many pages is copied to its end by the main connection, so that the next write
 * starts it again from the beginning and truncates the file to this size (`journal_size_limit`).
 * The thread's checkpoints alone never reach the end while writers keep appending (under the
 * bench's creates the WAL grew to 758 MB in 10 s).
 */
export const RESET_WAL_PAGES = 10_000;
/**
 * The main connection copies the rest of a long WAL itself when the thread's checkpoint got within
 * this many pages of the end it saw (a reader of an older snapshot holds a checkpoint back); more,
 * and the thread goes on first. The rest is then what came in while the thread copied: 100-520
 * pages under the bench's creates at 1,000,000 endpoints, and the main connection's pause, 70-90
 * ms, was this machine's fsync of the database file.
 */
const FINISHED_BY_MAIN_UP_TO = 500;
/** The thread checkpoints this often unasked (a checkpoint with nothing to copy costs microseconds). */
const UNASKED_CHECKPOINT_MS = 1000;
/** SQLite's default page size, which xfer keeps. */
const PAGE_SIZE = 4096;

/**
 * SQLite in WAL mode: by default the commit that takes the WAL past 1,000 pages copies them into
 * the database file and syncs it, on the connection that committed: the event loop's. At
 * 1,000,000 endpoints that stalled every request for 267-762 ms every few hundred creates (a
 * create writes about 30 pages: its row, its indexes, its search entry and words, its owner's
 * role). A thread with a connection of its own checkpoints instead, after writes and every second:
 * PASSIVE, so it never waits for or blocks a reader or a writer. When the WAL is long and the
 * thread has copied nearly all of it, the main connection copies the rest between transactions,
 * where no write of this process can come in meanwhile, so that the next write starts the WAL
 * again. Never FULL or RESTART: they hold writers back while they copy, and one that started right
 * after a large transaction (the seed's optimize) held them for longer than their busy timeout.
 * While the thread runs, the main connection checkpoints nothing else itself; if it stops, the
 * main connection does again, as SQLite does by default.
 */
export class WalCheckpoints {
  private readonly exited: Promise<unknown>;
  /** A checkpoint is asked for or under way on the thread. */
  private running = false;
  /** Writes came since the checkpoint under way started. */
  private again = false;
  private lastStarted = 0;
  private stopped = false;
  private finishTimer: NodeJS.Timeout | null = null;
  private idle: (() => void)[] = [];

  /** Starts the thread on an SQLite file whose main connection is `handle`; rejects when it cannot. */
  static async start(file: string, handle: SqliteHandle): Promise<WalCheckpoints> {
    return new WalCheckpoints(await startWorker('WAL checkpoint thread', __filename, { checkpointDatabase: file }), handle);
  }

  private constructor(
    private readonly worker: Worker,
    private readonly handle: SqliteHandle,
  ) {
    this.worker.unref();
    this.worker.on('message', (result: Checkpointed) => this.finished(result));
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
    return this.running || this.finishTimer ? new Promise((resolve) => this.idle.push(resolve)) : Promise.resolve();
  }

  /** Stops the thread once its checkpoint, if any, is done; it closes its connection first. */
  async close(): Promise<void> {
    this.stop();
    // an unreferenced thread would let the process end before it does, and before what follows
    this.worker.ref();
    this.worker.postMessage('close');
    await this.exited;
  }

  private finished({ asked, log, checkpointed }: Checkpointed): void {
    if (asked) this.running = false;
    if (log >= RESET_WAL_PAGES && !this.stopped) {
      const nearlyCopied = log - checkpointed <= FINISHED_BY_MAIN_UP_TO;
      // a finish may already wait for a transaction of the main connection to end
      if (nearlyCopied && !this.finishTimer) this.finish();
      // the thread fell behind the writers: it copies again at once, not after the interval
      if (!nearlyCopied && !this.running) {
        this.lastStarted = 0;
        this.again = true;
      }
    }
    if (this.again && !this.running && !this.stopped) {
      this.again = false;
      return this.written();
    }
    if (!this.running && !this.finishTimer) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** The main connection copies the rest of the WAL, once no transaction of its own is open. */
  private finish(): void {
    this.finishTimer = null;
    if (this.stopped || !this.handle.open) return;
    // a transaction is open on the one connection (TypeORM's spans awaits): a checkpoint there fails
    if (this.handle.inTransaction) {
      this.finishTimer = setTimeout(() => this.finish(), 5);
      this.finishTimer.unref();
      return;
    }
    try {
      this.handle.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // busy (another process checkpoints): the thread's next report tries again
    }
    if (!this.running) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** The thread is gone: the main connection checkpoints again, as SQLite does by default. */
  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.running = false;
    if (this.finishTimer) clearTimeout(this.finishTimer);
    this.finishTimer = null;
    try {
      this.handle.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    } catch {
      // the connection is closed already
    }
    for (const resolve of this.idle.splice(0)) resolve();
  }
}

/**
 * The thread's side: a PASSIVE checkpoint per message, answered with its result, and one every
 * UNASKED_CHECKPOINT_MS in any case, for the writes that end nowhere near afterWrite (the seed's
 * batches, migrations, another process's writes): with wal_autocheckpoint at 0, nothing else copies
 * them (seeding 100,000 endpoints grew the WAL to 7.5 GB). `close` ends it.
 */
function serve(file: string): void {
  const db = new Database(file, { fileMustExist: true });
  // as the main connection: the WAL is synced before a checkpoint, the database file after it
  db.pragma('synchronous = NORMAL');
  const checkpoint = (asked: boolean) => {
    let result: Checkpointed = { asked, log: 0, checkpointed: 0 };
    try {
      const [{ log, checkpointed }] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
      result = { asked, log, checkpointed };
    } catch {
      // busy (another process checkpoints): the next write or tick asks again
    }
    parentPort!.postMessage(result);
  };
  const unasked = setInterval(() => checkpoint(false), UNASKED_CHECKPOINT_MS);
  parentPort!.on('message', (message: 'checkpoint' | 'close') => {
    if (message === 'close') {
      clearInterval(unasked);
      db.close();
      return parentPort!.close();
    }
    checkpoint(true);
  });
}

if (!isMainThread && (workerData as { checkpointDatabase?: string } | null)?.checkpointDatabase) {
  try {
    serve((workerData as { checkpointDatabase: string }).checkpointDatabase);
    parentPort!.postMessage(READY satisfies StartReport);
  } catch (error) {
    parentPort!.postMessage({ failed: (error as Error).message } satisfies StartReport);
  }
}
