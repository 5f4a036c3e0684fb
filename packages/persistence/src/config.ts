import { DEFAULT_DATABASE_URL } from './dataSource';

/** A bad setting in the environment; the message names the variable. */
export class ConfigError extends Error {}

export function portFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > 65535) throw new ConfigError(`${name}='${raw}' is not a port number (0-65535)`);
  return value;
}

/** Settings both apps share. */
export function commonConfig(env: NodeJS.ProcessEnv): { databaseUrl: string; host: string } {
  return { databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL, host: env.HOST || '127.0.0.1' };
}
