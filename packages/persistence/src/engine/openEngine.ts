import { renameSync, writeFileSync } from 'node:fs';
import { ConfigError } from '@xfer/config';
import type Database from 'better-sqlite3';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../migrations';
import { ALL_SCHEMAS } from '../records/schemas';
import type { EngineInternals, EngineOptions } from './Engine';
import { postgresDataSourceOptions } from './postgres/postgresOptions';
import { MEMORY_TEMPLATE, readMemoryTemplate, templateDriver, type MemoryTemplate } from './sqlite/memoryTemplate';
import { SqliteEngine, sqliteDataSourceOptions } from './sqlite/SqliteEngine';

export { DEFAULT_DATABASE_URL } from '@xfer/config';

/** DATABASE_URL is malformed, or names a database that cannot be reached, found or created. */
export class DatabaseUrlError extends ConfigError {}

/**
 * `sqlite:<path>` (embedded, the default), `sqlite::memory:` (tests) or `postgres://...`: the one
 * place that tells the engines apart, by the URL.
 */
export function dataSourceOptions(url: string, options: { createDirectory?: boolean; poolSize?: number } = {}): DataSourceOptions {
  const common = { entities: ALL_SCHEMAS, migrations: MIGRATIONS, synchronize: false, logging: false } as const;
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path === '') throw new DatabaseUrlError(`DATABASE_URL '${url}' names no file: use sqlite:<path> or sqlite::memory:`);
    return sqliteDataSourceOptions(path, common, options);
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    try {
      new URL(url);
    } catch {
      throw new DatabaseUrlError(`DATABASE_URL '${url}' is not a valid postgres:// URL`);
    }
    return postgresDataSourceOptions(url, common, options);
  }
  throw new DatabaseUrlError(`DATABASE_URL '${url}' is not supported: use sqlite:<path> or postgres://...`);
}

/**
 * Opens the database of `url` as its engine: connects, applies pending migrations, and starts what
 * the engine runs beside its connections (see SqliteEngine, PostgresEngine). A database that cannot
 * be reached, found or created throws DatabaseUrlError saying why and what to check; a thread that
 * cannot start fails the open, naming it.
 */
export async function openEngine(url: string, options: EngineOptions = {}): Promise<EngineInternals> {
  let dataSource: DataSource;
  try {
    dataSource = new DataSource(dataSourceOptions(url, { poolSize: options.poolSize }));
    await dataSource.initialize();
  } catch (error) {
    throw openingError(url, error);
  }
  if (dataSource.options.type !== 'postgres') return SqliteEngine.open(dataSource, options);
  // loaded where used: node-postgres and the Postgres engine cost an SQLite process's start ~10 ms
  const { PostgresEngine } = await import('./postgres/PostgresEngine');
  return PostgresEngine.open(dataSource, options);
}

/**
 * An SQLite engine of a throwaway in-memory database (the stand-in, whose tables it snapshots and
 * restores), begun as a copy of the build's migrated template where there is an up-to-date one.
 * Pending migrations run either way (none, after a template of this build).
 */
export async function openMemoryEngine(options: EngineOptions & { template?: MemoryTemplate } = {}): Promise<SqliteEngine> {
  const { template = MEMORY_TEMPLATE, ...engineOptions } = options;
  const bytes = readMemoryTemplate(template);
  const dataSource = new DataSource({ ...dataSourceOptions('sqlite::memory:'), ...(bytes && { driver: templateDriver(bytes) }) } as DataSourceOptions);
  await dataSource.initialize();
  return SqliteEngine.open(dataSource, engineOptions);
}

/** Migrates a blank in-memory database and writes it to `file` (whole: a temporary name, then renamed). */
export async function writeMemoryTemplate(file: string): Promise<void> {
  const dataSource = new DataSource(dataSourceOptions('sqlite::memory:'));
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    const bytes = (dataSource.driver as unknown as { databaseConnection: Database.Database }).databaseConnection.serialize();
    writeFileSync(`${file}.part`, bytes);
    renameSync(`${file}.part`, file);
  } finally {
    await dataSource.destroy();
  }
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
