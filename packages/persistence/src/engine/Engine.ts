import type { EndpointCriteria, ReadMemo, SearchHit } from '@xfer/core';
import type { DataSource, EntityManager } from 'typeorm';
import type { Sql } from './Sql';

/** Rows for one table, as a bulk load writes them. */
export interface RowBatch {
  table: string;
  columns: readonly string[];
  rows: readonly Record<string, unknown>[];
}

/** An engine's endpoint search: the page of hits the criteria ask for. */
export interface EndpointSearcher {
  search(criteria: EndpointCriteria): Promise<SearchHit[]>;
}

/**
 * One open database and everything this process keeps beside it: its connections, read cache,
 * prepared statements, and on SQLite the search and checkpoint threads. Created once from the
 * configuration (openEngine), shared by every unit of work on it, closed once (close), in one
 * explicit order. Everything specific to one database lives in its engine's folder.
 */
export interface Engine {
  /** Which database, for messages and the health check. */
  readonly name: 'sqlite' | 'postgres';
  /** What the apps remember rendered documents with until anything changes (the read cache, or nothing). */
  readonly readMemo: ReadMemo;
  /** Raw SQL for a repository on `manager` (the DataSource's, or a transaction's). */
  sql(manager: EntityManager): Sql;
  /** The endpoint search over `manager`. */
  endpointSearch(manager: EntityManager): EndpointSearcher;
  /** Runs `work` in a write transaction: on SQLite queued behind this process's others, begun IMMEDIATE. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  /** Resolves when the database answers (the health check). */
  ping(): Promise<void>;
  /** Whether migrations are pending (the readiness check). */
  migrationsPending(): Promise<boolean>;
  /** Applies the pending migrations, each in its own transaction; returns their names (`xfer migrate`). */
  migrate(): Promise<string[]>;
  /** Batches of rows, in one transaction, fast (the benchmark's seed), outside any unit of work. */
  insertRows(batches: readonly RowBatch[]): Promise<void>;
  /** After a bulk load: the planner's statistics, and the search index compacted. */
  settleAfterBulkLoad(): Promise<void>;
  /** Stops everything the engine started, then closes the database; once. */
  close(): Promise<void>;
}

export interface EngineOptions {
  /** Apply pending migrations at open (default true). */
  migrate?: boolean;
  /** Keep a read cache (default true). */
  readCache?: boolean;
  /**
   * Start what runs beside the connection for a server (default true): on an SQLite file the search
   * and checkpoint threads and the index upkeep. A one-shot command (the xfer CLI) has none: its
   * searches run on its connection and SQLite checkpoints as it does by default.
   */
  background?: boolean;
  /** Postgres: connections this process keeps (DATABASE_POOL_SIZE). */
  poolSize?: number;
}

/**
 * What persistence's own parts (the units of work, the seed, its tests) use of an engine beside
 * its public surface: the TypeORM DataSource, and the signal that a write of this process ended
 * (the read cache starts a new generation; SQLite's upkeep and checkpoints follow).
 */
export interface EngineInternals extends Engine {
  readonly dataSource: DataSource;
  written(): void;
}

/** An engine's internals (every engine openEngine makes has them). */
export function internalsOf(engine: Engine): EngineInternals {
  if (!('dataSource' in engine)) throw new Error(`not an engine of this package: ${engine.name}`);
  return engine as EngineInternals;
}
