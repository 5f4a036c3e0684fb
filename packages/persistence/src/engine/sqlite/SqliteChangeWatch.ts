import type { ChangeWatch } from '../ReadCache';

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
export class SqliteChangeWatch implements ChangeWatch {
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
