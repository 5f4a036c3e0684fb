import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { noReadMemo, type ReadMemo } from '@xfer/core';
import type Database from 'better-sqlite3';
import { DataSource, type DataSourceOptions, type EntityManager } from 'typeorm';
import type { EngineInternals, EngineOptions, RowBatch } from '../Engine';
import { ReadCache } from '../ReadCache';
import { insertSql } from '../Sql';
import { Fts5Terms } from './fts5';
import { SearchIndexUpkeep } from './SearchIndexUpkeep';
import { SearchThread } from './SearchThread';
import { SqliteChangeWatch } from './SqliteChangeWatch';
import { SqliteEndpointSearch } from './SqliteEndpointSearch';
import { SqliteSql } from './SqliteSql';
import { analyze, dropStat4Samples } from './statistics';
import { restoreTables, snapshotTables, type TableSnapshot } from './tableSnapshot';
import { WalCheckpoints } from './WalCheckpoints';

/**
 * Every this many bulk batches the main connection copies the WAL into the database, so that the
 * next batch starts it again from the beginning. Batches written back to back never let the
 * checkpoint thread reach the WAL's end (WalCheckpoints): a 1,000,000-endpoint seed's WAL passed
 * 49 GB at three fifths of the way.
 */
const BATCHES_PER_CHECKPOINT = 20;

/** The DataSource options of `sqlite:<path>` (`:memory:` for a throwaway database). */
export function sqliteDataSourceOptions(path: string, common: Partial<DataSourceOptions>, options: { createDirectory?: boolean } = {}): DataSourceOptions {
  const memory = path === ':memory:';
  const database = memory ? ':memory:' : resolve(path);
  if (!memory && (options.createDirectory ?? true)) mkdirSync(dirname(database), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database,
    enableWAL: !memory,
    // NORMAL in WAL mode survives a killed process; only a power loss may drop the last commits.
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma('busy_timeout = 5000');
      db.pragma('synchronous = NORMAL');
    },
  } as DataSourceOptions;
}

/** What an SQLite engine runs beside its connection; each may be absent (an in-memory database has no other connection). */
export interface SqliteParts {
  readCache: ReadCache | null;
  upkeep: SearchIndexUpkeep | null;
  checkpoints: WalCheckpoints | null;
  searchThread: SearchThread | null;
  quickSearchThread: SearchThread | null;
}

/**
 * Embedded SQLite (better-sqlite3): one connection, so this process's write transactions queue one
 * behind the other and begin IMMEDIATE; its read statements prepared once; on a file, the WAL's
 * checkpoints and the searches on threads of their own, and the search index's segments merged
 * between requests. Closes them in the reverse order of their start, then the connection.
 */
export class SqliteEngine implements EngineInternals {
  readonly name = 'sqlite';
  private readonly statements = new Map<string, Database.Statement>();
  private readonly terms = new Fts5Terms();
  private queue: Promise<unknown> = Promise.resolve();
  private bulkBatches = 0;
  private closing: Promise<void> | null = null;

  private constructor(
    readonly dataSource: DataSource,
    private readonly handle: Database.Database,
    private readonly parts: SqliteParts,
  ) {}

  /** Opens `path`, applies migrations, and starts what runs beside the connection; a thread that cannot start fails the open. */
  static async open(dataSource: DataSource, options: EngineOptions): Promise<SqliteEngine> {
    const parts: SqliteParts = { readCache: null, upkeep: null, checkpoints: null, searchThread: null, quickSearchThread: null };
    const handle = (dataSource.driver as unknown as { databaseConnection: Database.Database }).databaseConnection;
    const engine = new SqliteEngine(dataSource, handle, parts);
    try {
      if (options.migrate ?? true) {
        await dataSource.runMigrations({ transaction: 'each' });
        await dropStat4Samples(dataSource);
      }
      if (options.readCache ?? true) parts.readCache = new ReadCache(new SqliteChangeWatch(handle));
      const background = options.background ?? true;
      const [index] = (await dataSource.query(`SELECT 1 FROM sqlite_master WHERE name = 'endpoint_search_data'`)) as unknown[];
      if (index && background) parts.upkeep = new SearchIndexUpkeep(handle);
      const file = (dataSource.options as { database: string }).database;
      if (file !== ':memory:' && background) {
        parts.checkpoints = await WalCheckpoints.start(file, handle);
        [parts.searchThread, parts.quickSearchThread] = await Promise.all([SearchThread.start(file, 'search thread'), SearchThread.start(file, 'quick search thread')]);
      }
    } catch (error) {
      await engine.close();
      throw error;
    }
    return engine;
  }

  get readMemo(): ReadMemo {
    return this.parts.readCache ?? noReadMemo;
  }

  /** What runs beside the connection, for tests that watch it settle or stop. */
  get background(): Readonly<SqliteParts> {
    return this.parts;
  }

  sql(manager: EntityManager): SqliteSql {
    return new SqliteSql(manager, this.readMemo, () => this.written(), (sql) => this.statement(sql));
  }

  endpointSearch(manager: EntityManager): SqliteEndpointSearch {
    // inside a transaction the threads' connections would not see its writes: it searches on its own
    const outside = manager.queryRunner === undefined;
    return new SqliteEndpointSearch(this.sql(manager), {
      terms: this.terms,
      searchThread: outside ? this.parts.searchThread : null,
      quickSearchThread: outside ? this.parts.quickSearchThread : null,
    });
  }

  /**
   * A write transaction, queued behind this process's others on the one connection, begun
   * IMMEDIATE: it takes the write lock when it begins, where TypeORM's begins deferred. Another
   * process on the same file (a second API worker, the auth app) may be writing: a deferred
   * transaction that has read cannot wait for it (SQLite answers "database is locked" at once, as
   * waiting could deadlock), while BEGIN IMMEDIATE waits its turn under the busy timeout before
   * reading anything. Only write transactions come here: reads run outside them.
   */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const run = () => this.immediate(work).finally(() => this.written());
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async immediate<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.query('BEGIN IMMEDIATE');
      let result: T;
      try {
        result = await work(runner.manager);
      } catch (error) {
        // SQLite may have rolled back already (on some I/O errors): the work's error is the one to tell
        await runner.query('ROLLBACK').catch((rollback: unknown) => {
          if (!/no transaction is active/.test(String(rollback))) throw rollback;
        });
        throw error;
      }
      await runner.query('COMMIT');
      return result;
    } finally {
      await runner.release();
    }
  }

  written(): void {
    this.parts.readCache?.changed();
    this.parts.upkeep?.written();
    this.parts.checkpoints?.written();
  }

  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  migrationsPending(): Promise<boolean> {
    return this.dataSource.showMigrations();
  }

  async migrate(): Promise<string[]> {
    return (await this.dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  }

  /** One prepared statement per table, run for each row on the better-sqlite3 handle, in one transaction. */
  async insertRows(batches: readonly RowBatch[]): Promise<void> {
    const values = (row: Record<string, unknown>, columns: readonly string[]) => columns.map((c) => (typeof row[c] === 'boolean' ? (row[c] ? 1 : 0) : (row[c] ?? null)));
    const statements = batches.map(({ table, columns }) => this.handle.prepare(insertSql(table, columns)));
    this.handle.transaction(() => batches.forEach(({ columns, rows }, i) => rows.forEach((row) => statements[i].run(...values(row, columns)))))();
    if (++this.bulkBatches % BATCHES_PER_CHECKPOINT === 0) this.handle.pragma('wal_checkpoint(PASSIVE)');
    this.written();
  }

  /**
   * Fresh statistics, so the planner picks the indexes for the bulk-loaded tables; and the search
   * index merged into one segment: a bulk load leaves FTS5 with many, each read by every search (a
   * two-term search at 1,000 endpoints took a third of the time after it).
   */
  async settleAfterBulkLoad(): Promise<void> {
    await analyze(this.dataSource);
    await this.dataSource.query("INSERT INTO endpoint_search (endpoint_search) VALUES ('optimize')");
    this.written();
  }

  /** Every row of every table (a throwaway database: a stand-in's seed). */
  snapshot(): Promise<TableSnapshot> {
    return snapshotTables(this.dataSource);
  }

  /** Back to a snapshot, in one transaction queued like any other. */
  async restore(snapshot: TableSnapshot): Promise<void> {
    await this.transaction((manager) => restoreTables(manager, snapshot));
  }

  /** Searches first (their threads), then the checkpoints (a last one), the upkeep, the cache, the tokenizer, the connection. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const { searchThread, quickSearchThread, checkpoints, upkeep, readCache } = this.parts;
      await Promise.all([searchThread?.close(), quickSearchThread?.close()]);
      await checkpoints?.close();
      upkeep?.close();
      await readCache?.close();
      this.terms.close();
      this.statements.clear();
      if (this.dataSource.isInitialized) await this.dataSource.destroy();
    })();
    return this.closing;
  }

  /** The prepared statement of a read outside a transaction, prepared once on the connection. */
  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.handle.prepare(sql)));
    return statement;
  }
}
