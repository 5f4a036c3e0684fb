import { noReadMemo, type ReadMemo } from '@xfer/core';
import type { ClientConfig } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { EngineInternals, EngineOptions, RowBatch } from '../Engine';
import { ReadCache } from '../ReadCache';
import { PIPELINED_READ_CONNECTIONS, PipelinedReads, type NamedQuery } from './PipelinedReads';
import { PostgresChangeWatch } from './PostgresChangeWatch';
import { PostgresEndpointSearch } from './PostgresEndpointSearch';
import { numbered, PostgresSql, type PostgresReads } from './PostgresSql';

/** node-postgres's pool: a query with a name is parsed once per connection and its plan may be kept. */
interface PgPool {
  options: ClientConfig;
  query(query: NamedQuery): Promise<{ rows: unknown[] }>;
}

/**
 * Postgres: transactions run concurrently on the pool; reads outside them as named statements, on a
 * pipelined connection of their own (or the pool, when slow); the read cache follows the commits of
 * every process by LISTEN. Closes the cache's listener and the pipelined connection, then the pool.
 */
export class PostgresEngine implements EngineInternals, PostgresReads {
  readonly name = 'postgres';
  /** The named statements by their `?` text: a name and the `$n` text (one per text and connection). */
  private readonly preparedStatements = new Map<string, { name: string; text: string }>();
  private statementsNamed = 0;
  private closing: Promise<void> | null = null;

  private constructor(
    readonly dataSource: DataSource,
    private readonly pool: PgPool,
    private readonly pipelined: PipelinedReads,
    private readCache: ReadCache | null,
  ) {}

  static async open(dataSource: DataSource, options: EngineOptions): Promise<PostgresEngine> {
    const pool = (dataSource.driver as unknown as { master: PgPool }).master;
    const engine = new PostgresEngine(dataSource, pool, new PipelinedReads(pool.options, PIPELINED_READ_CONNECTIONS), null);
    try {
      if (options.migrate ?? true) await dataSource.runMigrations({ transaction: 'each' });
      if (options.readCache ?? true) {
        const watch = new PostgresChangeWatch((dataSource.options as { url: string }).url);
        // no listener yet means no caching yet, not a failed start: it keeps trying in the background
        await watch.start().catch(() => undefined);
        engine.readCache = new ReadCache(watch);
      }
    } catch (error) {
      await engine.close();
      throw error;
    }
    return engine;
  }

  get readMemo(): ReadMemo {
    return this.readCache ?? noReadMemo;
  }

  sql(manager: EntityManager): PostgresSql {
    return new PostgresSql(manager, this.readMemo, () => this.written(), this);
  }

  endpointSearch(manager: EntityManager): PostgresEndpointSearch {
    return new PostgresEndpointSearch(this.sql(manager));
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work).finally(() => this.written());
  }

  written(): void {
    this.readCache?.changed();
  }

  prepared(sql: string, again = false): { name: string; text: string } {
    let statement = this.preparedStatements.get(sql);
    if (statement === undefined || again) this.preparedStatements.set(sql, (statement = { name: `xfer_${++this.statementsNamed}`, text: numbered(sql) }));
    return statement;
  }

  /** A read on the pipelined connection, or (`slow`) the pool: on the pipelined connection every read written after it would wait for it. */
  query(query: NamedQuery, slow: boolean): Promise<{ rows: unknown[] }> {
    return slow ? this.pool.query(query) : this.pipelined.query(query);
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

  /** One multi-row INSERT per table, in one transaction. */
  async insertRows(batches: readonly RowBatch[]): Promise<void> {
    await this.transaction(async (manager) => {
      for (const { table, columns, rows } of batches) {
        if (rows.length === 0) continue;
        let n = 0;
        const tuples = rows.map(() => `(${columns.map(() => `$${++n}`).join(', ')})`).join(', ');
        await manager.query(`INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${tuples}`, rows.flatMap((row) => columns.map((c) => row[c] ?? null)));
      }
    });
  }

  /**
   * Fresh statistics, and VACUUM too, as after any bulk load: otherwise the first read of each row
   * marks it committed (writing its page again) and index-only scans visit the table until
   * autovacuum comes by, so a bench right after the seed measures that first pass. (The GIN index
   * takes writes straight in: nothing to merge, see the SearchTerms migration.)
   */
  async settleAfterBulkLoad(): Promise<void> {
    await this.dataSource.query('VACUUM (ANALYZE)');
  }

  /** The cache's listener, the pipelined connection, then the pool. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.readCache?.close();
      await this.pipelined.close();
      if (this.dataSource.isInitialized) await this.dataSource.destroy();
    })();
    return this.closing;
  }
}
