import type { ReadMemo } from '@xfer/core';
import type { EntityManager, QueryRunner } from 'typeorm';

/**
 * Raw SQL for the hot paths, where TypeORM's query building costs more than the query. Write `?`
 * placeholders; each engine's Sql binds them its way. Outside a transaction reads are prepared once
 * and reused (by the engine), and may be served from the read cache (`cached`). A repository gets
 * one from its engine, for the DataSource's manager or a transaction's.
 */
export abstract class Sql {
  constructor(
    protected readonly manager: EntityManager,
    private readonly memo: ReadMemo,
    /** The engine's: a write outside a transaction ended. */
    private readonly written: () => void,
  ) {}

  /** `?, ?, ?` for a list of values (at least one, so an empty list matches nothing). */
  list(values: readonly unknown[]): string {
    return values.length === 0 ? 'NULL' : values.map(() => '?').join(', ');
  }

  /** Values as the driver binds them. */
  abstract bind(params: readonly unknown[]): unknown[];

  /** What a read inside a transaction appends to hold the rows of `alias` until it ends ('' where the engine locks otherwise). */
  abstract forUpdateOf(alias: string): string;

  /**
   * Runs a read. `slow`: a read that may take long (a search of a very short term), which an
   * engine may send where it holds up no other read.
   */
  abstract rows<T>(sql: string, params?: readonly unknown[], options?: { slow?: boolean }): Promise<T[]>;

  /** What follows a text column to order it by code point, whatever the database's locale. */
  abstract readonly byCodePoint: string;

  /**
   * A read whose text varies with what a caller asks (a list's filters): neither prepared nor kept
   * as rows() keeps its statements, so that no caller can grow the engine's statement caches.
   */
  async adHocRows<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.manager.query(this.dialect(sql), this.bind(params))) as T[];
  }

  /** The statement as the driver takes it (placeholders). */
  protected abstract dialect(sql: string): string;

  /** A query runner of its own, when a write runs outside a transaction, is released after it. */
  protected abstract releasesOwnRunner: boolean;

  /** Whether a transaction is open on this Sql's manager. */
  protected get inTransaction(): boolean {
    return this.manager.queryRunner !== undefined;
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
    return this.inTransaction ? compute() : this.memo.remember(key, compute);
  }

  /** Runs a write; returns the number of rows it changed. */
  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    const own: QueryRunner | null = this.inTransaction ? null : this.manager.connection.createQueryRunner();
    const runner = this.manager.queryRunner ?? own!;
    try {
      const result = await runner.query(this.dialect(sql), this.bind(params), true);
      return result.affected ?? 0;
    } finally {
      if (own) this.written();
      if (own && this.releasesOwnRunner) await own.release();
    }
  }
}

/** An INSERT of one row with these columns. */
export function insertSql(table: string, columns: readonly string[]): string {
  return insertRowsSql(table, columns, 1);
}

/** An INSERT of `rows` rows with these columns (their values one row after another). */
export function insertRowsSql(table: string, columns: readonly string[], rows: number): string {
  const row = `(${columns.map(() => '?').join(', ')})`;
  return `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${Array.from({ length: rows }, () => row).join(', ')}`;
}
