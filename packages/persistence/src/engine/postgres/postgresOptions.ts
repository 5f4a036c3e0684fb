import { availableParallelism } from 'node:os';
import type { DataSourceOptions } from 'typeorm';

// What a Postgres DataSource is made with, apart from the engine: read without loading node-postgres
// (an SQLite process never does; pg wakes Node's fetch machinery as it loads).

/**
 * Postgres connections a process keeps when DATABASE_POOL_SIZE is unset: twice its machine's cores,
 * from 4 to 10. One event loop keeps no more statements busy than that, and where Postgres shares
 * the machine each further backend costs CPU: every backend maps the shared buffers' pages anew.
 * At 1,000,000 endpoints on two cores, Postgres's CPU per search as a multiple of the load
 * generator's per request (this machine's speed drifts): 10 connections 7.4-7.9, 4 connections
 * 5.4-6.5, 2 connections 4.4-5.1.
 */
export function defaultPoolSize(cores = availableParallelism()): number {
  return Math.min(10, Math.max(4, 2 * cores));
}

/** The DataSource options of a `postgres://` URL. */
export function postgresDataSourceOptions(url: string, common: Partial<DataSourceOptions>, options: { poolSize?: number } = {}): DataSourceOptions {
  // No JIT: it compiles any query whose estimated cost passes jit_above_cost, and a search of a
  // large catalogue is estimated high however few rows it finds (17 ms of JIT for a 0.6 ms search).
  // Generic plans for the named statements (PostgresSql.rows): every read is driven by an index
  // whatever its values, and the default would plan a search again on every request, its generic
  // cost being estimated above its custom ones (plans checked at 1,000,000 endpoints: the same shape).
  return { ...common, type: 'postgres', url, extra: { max: options.poolSize ?? defaultPoolSize(), options: '-c jit=off -c plan_cache_mode=force_generic_plan' } } as DataSourceOptions;
}
