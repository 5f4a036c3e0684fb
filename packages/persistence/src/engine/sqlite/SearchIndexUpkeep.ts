export interface UpkeepHandle {
  prepare(sql: string): { run(): unknown; pluck(): { get(): unknown } };
  readonly inTransaction: boolean;
  readonly open: boolean;
}

/** Leaf pages of merge work per step: each step holds the event loop while it runs. */
export const MERGE_PAGES_PER_STEP = 16;
/** After a write, the merge waits this long: a run of writes is followed by one merge, not one each. */
const MERGE_DELAY_MS = 25;

/**
 * SQLite: FTS5 writes a new segment of the search index at every commit that changes it, and a
 * search looks its words up in every segment. Its automerge works in steps as small as each write,
 * so a run of small commits leaves a dozen (1,700 creates at 100,000 endpoints left 11, and the same
 * process then answered 14-27% fewer searches a second than with one). After such a commit, merge steps run on the one
 * connection between requests until FTS5 finds no level of two segments left to merge
 * (`usermerge`, set by migration SearchIndexMerging): a segment per level, as in any LSM tree.
 */
export class SearchIndexUpkeep {
  private readonly structure;
  private readonly merge;
  private readonly changes;
  private merged: Buffer | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly handle: UpkeepHandle) {
    // the index's structure record (FTS5 keeps it at id 10): it changes whenever a segment is added or merged
    this.structure = handle.prepare('SELECT block FROM endpoint_search_data WHERE id = 10').pluck();
    this.merge = handle.prepare(`INSERT INTO endpoint_search (endpoint_search, rank) VALUES ('merge', ${MERGE_PAGES_PER_STEP})`);
    this.changes = handle.prepare('SELECT total_changes()').pluck();
  }

  /** A transaction of this process ended: if it added a segment, merge soon. Never throws: the write it follows stands. */
  written(): void {
    if (this.timer || this.closed || !this.handle.open) return;
    try {
      const now = this.structure.get() as Buffer | undefined;
      if (now && this.merged && now.equals(this.merged)) return;
    } catch {
      return;
    }
    this.schedule(MERGE_DELAY_MS);
  }

  /** Resolves once no merge is pending (tests). */
  async settled(): Promise<void> {
    while (this.timer) await new Promise((resolve) => setTimeout(resolve, MERGE_DELAY_MS));
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => this.step(), ms);
    // a pending merge never keeps a process alive
    this.timer.unref();
  }

  private step(): void {
    this.timer = null;
    if (this.closed || !this.handle.open) return;
    // a transaction is open on the one connection (TypeORM's spans awaits): a step now would join it
    if (this.handle.inTransaction) return this.schedule(MERGE_DELAY_MS);
    try {
      const before = this.changes.get() as number;
      this.merge.run();
      // FTS5 changes two rows or more when it merged something, one when there was nothing to merge
      if ((this.changes.get() as number) - before >= 2) return this.schedule(0);
      this.merged = (this.structure.get() as Buffer | undefined) ?? null;
    } catch {
      // busy: another process writes, and its own upkeep merges after it; else the next write here tries again
    }
  }
}
