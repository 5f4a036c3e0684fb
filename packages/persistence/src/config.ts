import { wholeNumberFromEnv } from '@xfer/config';
import { DatabaseUrlError, DEFAULT_DATABASE_URL, dataSourceOptions } from './engine/openEngine';

/** Where the database is and how many connections a process keeps, checked up front (a bad value names its variable). */
export function databaseConfig(env: NodeJS.ProcessEnv): { databaseUrl: string; databasePoolSize: number | undefined } {
  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  dataSourceOptions(databaseUrl, { createDirectory: false });
  // Postgres only: connections each process keeps (unset: defaultPoolSize)
  const databasePoolSize = wholeNumberFromEnv('DATABASE_POOL_SIZE', undefined, env, { min: 1, max: 100, what: 'connections' });
  return { databaseUrl, databasePoolSize };
}

export { DatabaseUrlError };
