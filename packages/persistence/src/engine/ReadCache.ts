import { LRUCache } from 'lru-cache';
import type { ReadMemo } from '@xfer/core';

/**
 * A value that changes whenever anything the cached reads depend on may have changed, in this
 * process or any other on the same database; null while that cannot be told (then nothing is cached).
 */
export interface ChangeWatch {
  generation(): string | null;
  /** Resolves once every change committed before the call is counted in generation(); null when it already is. */
  sync(): Promise<void> | null;
  close(): Promise<void>;
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
