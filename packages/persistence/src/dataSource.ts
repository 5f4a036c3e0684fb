import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations';
import { ALL_SCHEMAS } from './records/schemas';

export const DEFAULT_DATABASE_URL = 'sqlite:./data/xfer.sqlite';

export class DatabaseUrlError extends Error {}

/**
 * `sqlite:<path>` (embedded, the default), `sqlite::memory:` (tests) or `postgres://...`.
 */
export function dataSourceOptions(url: string, options: { createDirectory?: boolean } = {}): DataSourceOptions {
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
    return { ...common, type: 'postgres', url, extra: { max: 10 } };
  }
  throw new DatabaseUrlError(`DATABASE_URL '${url}' is not supported: use sqlite:<path> or postgres://...`);
}

/** Opens the database and applies pending migrations. */
export async function openDatabase(url: string, options: { migrate?: boolean } = {}): Promise<DataSource> {
  const dataSource = new DataSource(dataSourceOptions(url));
  await dataSource.initialize();
  if (options.migrate ?? true) await dataSource.runMigrations({ transaction: 'each' });
  return dataSource;
}
