import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { ConfigError } from '@xfer/config';
import { MIGRATIONS } from './migrations';
import { dropStat4Samples } from './plannerStatistics';
import { attachPipelinedReads } from './pipelinedReads';
import { attachReadCache } from './readCache';
import { attachSearchIndexUpkeep } from './searchIndexUpkeep';
import { attachWalCheckpoints } from './walCheckpoints';
import { ALL_SCHEMAS } from './records/schemas';

export const DEFAULT_DATABASE_URL = 'sqlite:./data/xfer.sqlite';

/** DATABASE_URL is malformed, or names a database that cannot be reached, found or created. */
export class DatabaseUrlError extends ConfigError {}

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

/**
 * `sqlite:<path>` (embedded, the default), `sqlite::memory:` (tests) or `postgres://...`.
 */
export function dataSourceOptions(url: string, options: { createDirectory?: boolean; poolSize?: number } = {}): DataSourceOptions {
  const common = { entities: ALL_SCHEMAS, migrations: MIGRATIONS, synchronize: false, logging: false } as const;
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path === '') throw new DatabaseUrlError(`DATABASE_URL '${url}' names no file: use sqlite:<path> or sqlite::memory:`);
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
    };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    try {
      new URL(url);
    } catch {
      throw new DatabaseUrlError(`DATABASE_URL '${url}' is not a valid postgres:// URL`);
    }
    // No JIT: it compiles any query whose estimated cost passes jit_above_cost, and a search of a
    // large catalogue is estimated high however few rows it finds (17 ms of JIT for a 0.6 ms search).
    // Generic plans for the named statements (Sql.rows): every read is driven by an index whatever
    // its values, and the default would plan a search again on every request, its generic cost
    // being estimated above its custom ones (plans checked at 1,000,000 endpoints: the same shape).
    return { ...common, type: 'postgres', url, extra: { max: options.poolSize ?? defaultPoolSize(), options: '-c jit=off -c plan_cache_mode=force_generic_plan' } };
  }
  throw new DatabaseUrlError(`DATABASE_URL '${url}' is not supported: use sqlite:<path> or postgres://...`);
}

/**
 * Opens the database, applies pending migrations (and on SQLite drops STAT4's samples, see
 * plannerStatistics.ts) and sets up the read cache (readCache.ts), on Postgres the pipelined
 * reads (pipelinedReads.ts) and, on
 * SQLite, the search index's upkeep (searchIndexUpkeep.ts) and the WAL's checkpoints off the
 * event loop (walCheckpoints.ts). A database that cannot be reached, found or
 * created throws DatabaseUrlError saying why and what to check.
 */
export async function openDatabase(url: string, options: { migrate?: boolean; readCache?: boolean; poolSize?: number } = {}): Promise<DataSource> {
  let dataSource: DataSource;
  try {
    dataSource = new DataSource(dataSourceOptions(url, { poolSize: options.poolSize }));
    await dataSource.initialize();
  } catch (error) {
    throw openingError(url, error);
  }
  if (options.migrate ?? true) {
    await dataSource.runMigrations({ transaction: 'each' });
    await dropStat4Samples(dataSource);
  }
  attachPipelinedReads(dataSource);
  if (options.readCache ?? true) await attachReadCache(dataSource);
  await attachSearchIndexUpkeep(dataSource);
  attachWalCheckpoints(dataSource);
  return dataSource;
}

/** Why a database could not be opened, in words that name the setting to fix. */
function openingError(url: string, error: unknown): Error {
  if (error instanceof DatabaseUrlError) return error;
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (url.startsWith('sqlite:')) {
    return new DatabaseUrlError(`cannot create or open ${url.slice('sqlite:'.length)}: ${message ?? code}: check DATABASE_URL`);
  }
  const target = new URL(url);
  const database = decodeURIComponent(target.pathname.slice(1)) || target.username || 'postgres';
  const where = `${target.hostname}:${target.port || 5432}`;
  if (code === '3D000') return new DatabaseUrlError(`database ${database} does not exist: createdb ${database} or check DATABASE_URL`);
  if (code === '28P01' || code === '28000') return new DatabaseUrlError(`Postgres at ${where} refused the user ${target.username || '(none)'}: ${message}: check DATABASE_URL`);
  if (code && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET'].includes(code)) {
    return new DatabaseUrlError(`cannot reach Postgres at ${where} (${code}): check DATABASE_URL`);
  }
  return error instanceof Error ? error : new Error(String(error));
}
