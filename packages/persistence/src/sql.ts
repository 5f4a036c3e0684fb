import type { EntityManager } from 'typeorm';
import { afterWrite } from './afterWrite';
import { pipelinedReadsOf } from './pipelinedReads';
import { readCacheOf } from './readCache';
import { quickSearchThreadOf, searchThreadOf, type SearchThread } from './searchThread';

interface Statement {
  all(...params: unknown[]): unknown[];
}
interface SqliteHandle {
  prepare(sql: string): Statement;
}

const statementCaches = new WeakMap<object, Map<string, Statement>>();

/** node-postgres's pool: a query with a name is parsed once per connection and its plan may be kept. */
interface PgPool {
  query(query: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Postgres's prepared statements by their `?` text: a name and the `$n` text (one per text and connection). */
const preparedStatements = new Map<string, { name: string; text: string }>();
let statementsNamed = 0;

/** `?` placeholders as Postgres's `$1, $2, ...`. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** The prepared statement of `sql`; `again`: under a new name, so that every connection prepares it anew. */
function preparedStatement(sql: string, again = false): { name: string; text: string } {
  let statement = preparedStatements.get(sql);
  if (statement === undefined || again) preparedStatements.set(sql, (statement = { name: `xfer_${++statementsNamed}`, text: numbered(sql) }));
  return statement;
}

/** Postgres refuses a prepared statement whose result columns changed (`SELECT *` after ADD COLUMN). */
function resultTypeChanged(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '0A000';
}

/**
 * Raw SQL for the hot paths, where TypeORM's query building costs more than the query. Write `?`
 * placeholders; they become `$n` on Postgres. Outside a transaction, reads are prepared once and
 * reused: on SQLite on the better-sqlite3 handle; on Postgres as named statements of each pooled
 * connection (parsing and planning took more than half of Postgres's time for a search).
 */
export class Sql {
  readonly postgres: boolean;

  constructor(private readonly manager: EntityManager) {
    this.postgres = manager.connection.options.type === 'postgres';
  }

  /** `?, ?, ?` for a list of values (at least one, so an empty list matches nothing). */
  list(values: readonly unknown[]): string {
    return values.length === 0 ? 'NULL' : values.map(() => '?').join(', ');
  }

  /** Values as the driver binds them: SQLite has no booleans. */
  bind(params: readonly unknown[]): unknown[] {
    return this.postgres ? [...params] : params.map((p) => (p === true ? 1 : p === false ? 0 : p));
  }

  private dialect(sql: string): string {
    return this.postgres ? numbered(sql) : sql;
  }

  /**
   * Runs a read. `slow`: a read that may take long (a search of a very short term). On Postgres it
   * goes to the pool: on the pipelined connection every read written after it would wait for it.
   */
  async rows<T>(sql: string, params: readonly unknown[] = [], options: { slow?: boolean } = {}): Promise<T[]> {
    const handle = this.sqliteHandle();
    if (handle) {
      let cache = statementCaches.get(handle);
      if (!cache) statementCaches.set(handle, (cache = new Map()));
      let statement = cache.get(sql);
      if (!statement) cache.set(sql, (statement = handle.prepare(sql)));
      return statement.all(...this.bind(params)) as T[];
    }
    const pool = this.postgresPool(options.slow ?? false);
    if (pool) {
      const values = this.bind(params);
      try {
        return (await pool.query({ ...preparedStatement(sql), values })).rows as T[];
      } catch (error) {
        // a newer instance migrated a table under this read: prepare it again, under a new name
        if (!resultTypeChanged(error)) throw error;
        return (await pool.query({ ...preparedStatement(sql, true), values })).rows as T[];
      }
    }
    return (await this.manager.query(this.dialect(sql), this.bind(params))) as T[];
  }

  /**
   * Like rows, served from the read cache while the database has not changed (outside a
   * transaction only). For reads on every request; the rows must not be changed by the caller.
   */
  async cachedRows<T>(sql: string, params: readonly unknown[] = []): Promise<readonly T[]> {
    return this.cached(`${sql}\u0000${JSON.stringify(params)}`, () => this.rows<T>(sql, params));
  }

  /** What `compute` makes of a read, remembered like cachedRows; it must not be changed by the caller. */
  async cached<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const cache = this.manager.queryRunner ? null : readCacheOf(this.manager.connection);
    return cache ? cache.remember(key, compute) : compute();
  }

  /** Runs a write; returns the number of rows it changed. */
  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    const own = this.manager.queryRunner ? null : this.manager.connection.createQueryRunner();
    const runner = this.manager.queryRunner ?? own!;
    try {
      const result = await runner.query(this.dialect(sql), this.bind(params), true);
      return result.affected ?? 0;
    } finally {
      if (own) afterWrite(this.manager.connection);
      if (own && this.postgres) await own.release();
    }
  }

  /** SQLite: the search thread, where a read may leave this connection (a file, no transaction open here). */
  searchThread(): SearchThread | null {
    return this.sqliteHandle() ? searchThreadOf(this.manager.connection) : null;
  }

  /** SQLite: the quick search thread, for searches of few matches (as searchThread). */
  quickSearchThread(): SearchThread | null {
    return this.sqliteHandle() ? quickSearchThreadOf(this.manager.connection) : null;
  }

  /** The pipelined reads (unless `slow`), else node-postgres's pool, when a read may bypass TypeORM (Postgres, no transaction open here). */
  private postgresPool(slow: boolean): PgPool | null {
    if (!this.postgres || this.manager.queryRunner) return null;
    const pool = (this.manager.connection.driver as unknown as { master?: PgPool }).master ?? null;
    return (slow ? null : pipelinedReadsOf(this.manager.connection)) ?? pool;
  }

  /** The better-sqlite3 handle when a statement may bypass TypeORM (SQLite, no transaction open here). */
  private sqliteHandle(): SqliteHandle | null {
    if (this.postgres || this.manager.queryRunner) return null;
    return (this.manager.connection.driver as unknown as { databaseConnection?: SqliteHandle }).databaseConnection ?? null;
  }
}

/** An INSERT of one row with these columns. */
export function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
}
