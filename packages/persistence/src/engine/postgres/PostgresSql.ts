import type { ReadMemo } from '@xfer/core';
import type { EntityManager } from 'typeorm';
import { Sql } from '../Sql';
import type { NamedQuery } from './PipelinedReads';

/** `?` placeholders as Postgres's `$1, $2, ...`. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Where a read outside a transaction goes: the pipelined connection, or node-postgres's pool (`slow`). */
export interface PostgresReads {
  /** The named statement of `sql`; `again`: under a new name, so that every connection prepares it anew. */
  prepared(sql: string, again?: boolean): { name: string; text: string };
  query(query: NamedQuery, slow: boolean): Promise<{ rows: unknown[] }>;
}

/** Postgres refuses a prepared statement whose result columns changed (`SELECT *` after ADD COLUMN). */
function resultTypeChanged(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '0A000';
}

/**
 * Postgres's Sql: `?` becomes `$n`; reads outside a transaction run as named statements of each
 * connection (parsing and planning took more than half of Postgres's time for a search), on the
 * engine's pipelined connection or, `slow`, its pool.
 */
export class PostgresSql extends Sql {
  readonly byCodePoint = ' COLLATE "C"';
  protected readonly releasesOwnRunner = true;

  constructor(
    manager: EntityManager,
    memo: ReadMemo,
    written: () => void,
    private readonly reads: PostgresReads,
  ) {
    super(manager, memo, written);
  }

  bind(params: readonly unknown[]): unknown[] {
    return [...params];
  }

  forUpdateOf(alias: string): string {
    return ` FOR UPDATE OF ${alias}`;
  }

  protected dialect(sql: string): string {
    return numbered(sql);
  }

  async rows<T>(sql: string, params: readonly unknown[] = [], options: { slow?: boolean } = {}): Promise<T[]> {
    const values = this.bind(params);
    if (this.inTransaction) return (await this.manager.query(numbered(sql), values)) as T[];
    const slow = options.slow ?? false;
    try {
      return (await this.reads.query({ ...this.reads.prepared(sql), values }, slow)).rows as T[];
    } catch (error) {
      // a newer instance migrated a table under this read: prepare it again, under a new name
      if (!resultTypeChanged(error)) throw error;
      return (await this.reads.query({ ...this.reads.prepared(sql, true), values }, slow)).rows as T[];
    }
  }
}
