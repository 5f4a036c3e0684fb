import type { ReadMemo } from '@xfer/core';
import type Database from 'better-sqlite3';
import type { EntityManager } from 'typeorm';
import { Sql } from '../Sql';

/**
 * SQLite's Sql: reads outside a transaction run as statements prepared once on the better-sqlite3
 * handle (the engine keeps them); SQLite has no booleans; a transaction holds the whole file
 * (BEGIN IMMEDIATE), so a read locks no rows of its own.
 */
export class SqliteSql extends Sql {
  readonly byCodePoint = ' COLLATE BINARY';
  protected readonly releasesOwnRunner = false;

  constructor(
    manager: EntityManager,
    memo: ReadMemo,
    written: () => void,
    private readonly statements: (sql: string) => Database.Statement,
  ) {
    super(manager, memo, written);
  }

  bind(params: readonly unknown[]): unknown[] {
    return params.map((p) => (p === true ? 1 : p === false ? 0 : p));
  }

  forUpdateOf(): string {
    return '';
  }

  protected dialect(sql: string): string {
    return sql;
  }

  async rows<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    if (this.inTransaction) return (await this.manager.query(sql, this.bind(params))) as T[];
    return this.statements(sql).all(...this.bind(params)) as T[];
  }
}
