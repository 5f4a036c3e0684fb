import { LRUCache } from 'lru-cache';
import { Client } from 'pg';
import { noReadMemo, type ReadMemo } from '@xfer/core';
import type { DataSource } from 'typeorm';
import { beforeDestroy } from './beforeDestroy';

/** The channel the triggers of migration ChangeNotifications notify on. */
const CHANGE_CHANNEL = 'xfer_changes';

/**
 * A value that changes whenever anything the cached reads depend on may have changed, in this
 * process or any other on the same database; null while that cannot be told (then nothing is cached).
 */
interface ChangeWatch {
  generation(): string | null;
  /** Resolves once every change committed before the call is counted in generation(); null when it already is. */
  sync(): Promise<void> | null;
  close(): Promise<void>;
}

interface SqliteHandle {
  prepare(sql: string): { pluck(): { get(): unknown } };
  readonly inTransaction: boolean;
}

/**
 * SQLite: `total_changes()` moves when this connection writes (a fraction of a microsecond, checked
 * on every read); `data_version` when another connection (another process) commits. That one costs
 * a read transaction, so it is asked once per turn of the event loop: a request that follows a
 * commit elsewhere (its client saw that commit end) arrives in a later turn.
 */
class SqliteChangeWatch implements ChangeWatch {
  private readonly own;
  private readonly others;
  private othersNow: number | null = null;

  constructor(private readonly handle: SqliteHandle) {
    this.own = handle.prepare('SELECT total_changes()').pluck();
    this.others = handle.prepare('PRAGMA data_version').pluck();
  }

  generation(): string | null {
    // a transaction open on the one connection: reads see its uncommitted writes
    if (this.handle.inTransaction) return null;
    if (this.othersNow === null) {
      this.othersNow = this.others.get() as number;
      setImmediate(() => (this.othersNow = null));
    }
    return `${this.own.get() as number}.${this.othersNow}`;
  }

  /** Reading data_version is itself the check. */
  sync(): null {
    return null;
  }

  async close(): Promise<void> {}
}

/**
 * Postgres: triggers NOTIFY from the writing transaction (at its commit); a dedicated connection
 * LISTENs. While that connection is down nothing is cached, and every reconnect starts a new
 * generation, so a notification lost in between cannot leave a stale entry.
 */
class PostgresChangeWatch implements ChangeWatch {
  private epoch = 0;
  private client: Client | null = null;
  private listening = false;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(private readonly url: string) {}

  async start(): Promise<void> {
    const client = new Client({ connectionString: this.url });
    this.client = client;
    const lost = () => {
      this.listening = false;
      this.epoch++;
      if (this.client === client) this.client = null;
      void client.end().catch(() => undefined);
      if (!this.closed && !this.retry) {
        this.retry = setTimeout(() => {
          this.retry = null;
          void this.start().catch(() => undefined);
        }, 1000);
        this.retry.unref();
      }
    };
    client.on('error', lost);
    client.on('end', () => this.client === client && lost());
    client.on('notification', () => this.epoch++);
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (error) {
      lost();
      throw error;
    }
    if (this.closed) return void (await client.end().catch(() => undefined));
    this.epoch++;
    this.listening = true;
  }

  generation(): string | null {
    return this.listening ? String(this.epoch) : null;
  }

  /**
   * A notification travels on its own: a request that follows another process's commit can reach
   * this process before it. A round trip on the listening connection comes back after every
   * notification sent to it before, so the commit is counted. Callers that arrive while one is
   * under way share the next, which leaves after they came.
   */
  sync(): Promise<void> | null {
    const client = this.client;
    // not listening: nothing is cached
    if (!client || !this.listening) return null;
    if (!this.inFlight) {
      this.inFlight = client
        .query('SELECT 1')
        .then(() => undefined, () => undefined)
        .finally(() => (this.inFlight = null));
      return this.inFlight;
    }
    this.queued ??= this.inFlight.then(async () => {
      this.queued = null;
      await this.sync();
    });
    return this.queued;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}

const MAX_ENTRIES = 20_000;
const MAX_BYTES = 64 * 1024 * 1024;
/** Roughly what an entry holds: a rendered document by its length, rows at a kilobyte each. */
const sizeOf = (value: unknown): number =>
  typeof value === 'string' || value instanceof Uint8Array ? value.length || 1 : Array.isArray(value) ? 1024 * Math.max(1, value.length) : 1024;

/**
 * What the hottest reads found (a token's holder, an endpoint with the caller's roles, rendered
 * documents), kept until anything changes: every read first asks the database whether it changed,
 * so a revocation, a new link or a role change is seen by the very next request, in every process.
 */
export class ReadCache implements ReadMemo {
  private readonly entries = new LRUCache<string, NonNullable<unknown>>({ max: MAX_ENTRIES, maxSize: MAX_BYTES, sizeCalculation: sizeOf });
  private seen: string | null = null;
  private local = 0;

  constructor(private readonly watch: ChangeWatch) {}

  private generation(): string | null {
    const outer = this.watch.generation();
    return outer === null ? null : `${outer}:${this.local}`;
  }

  async remember<T>(key: string, load: () => Promise<T>): Promise<T> {
    const synced = this.watch.sync();
    if (synced) await synced;
    const before = this.generation();
    if (before === null) return load();
    if (before !== this.seen) {
      this.entries.clear();
      this.seen = before;
    }
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit as T;
    const value = await load();
    // a change that landed while the read was in flight makes its answer suspect
    if (value !== undefined && value !== null && this.generation() === before) this.entries.set(key, value);
    return value;
  }

  /**
   * A transaction of this process ended (committed or rolled back): a new generation at once, on
   * Postgres before the commit's own notification comes back.
   */
  changed(): void {
    this.local++;
  }

  close(): Promise<void> {
    this.entries.clear();
    return this.watch.close();
  }
}

const caches = new WeakMap<DataSource, ReadCache>();

/** The read cache of a DataSource that openDatabase set one up for, else null (reads go straight through). */
export function readCacheOf(dataSource: DataSource): ReadCache | null {
  return caches.get(dataSource) ?? null;
}

/** What the apps remember rendered documents with: the read cache, or nothing without one. */
export function readMemoOf(dataSource: DataSource): ReadMemo {
  return readCacheOf(dataSource) ?? noReadMemo;
}

/** Sets up the read cache of an open DataSource; it closes with the DataSource. */
export async function attachReadCache(dataSource: DataSource): Promise<void> {
  let watch: ChangeWatch;
  if (dataSource.options.type === 'postgres') {
    const postgres = new PostgresChangeWatch((dataSource.options as { url: string }).url);
    // no listener yet means no caching yet, not a failed start: it keeps trying in the background
    await postgres.start().catch(() => undefined);
    watch = postgres;
  } else {
    watch = new SqliteChangeWatch((dataSource.driver as unknown as { databaseConnection: SqliteHandle }).databaseConnection);
  }
  const cache = new ReadCache(watch);
  caches.set(dataSource, cache);
  // the listener connection must go before the pool does
  beforeDestroy(dataSource, async () => {
    caches.delete(dataSource);
    await cache.close();
  });
}
