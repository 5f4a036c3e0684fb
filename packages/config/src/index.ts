/** Where the database is when DATABASE_URL does not say: an SQLite file under the working directory. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/xfer.sqlite';

/** A bad setting: the message names the variable to fix. Entry points exit with 2 on it. */
export class ConfigError extends Error {}

export function portFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > 65535) throw new ConfigError(`${name}='${raw}' is not a port number (0-65535)`);
  return value;
}

/** A whole number from `min` to `max` (`what` it counts, for the message); `fallback` when unset or empty. */
export function wholeNumberFromEnv<T>(name: string, fallback: T, env: NodeJS.ProcessEnv, { min, max, what }: { min: number; max: number; what: string }): number | T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ConfigError(`${name}='${raw}' must be a number of ${what} from ${min} to ${max}`);
  return Number(raw);
}

/** A whole number of seconds from `min` to `max`; `fallback` when unset or empty. */
export function secondsFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv, { min = 1, max }: { min?: number; max: number }): number {
  return wholeNumberFromEnv(name, fallback, env, { min, max, what: 'seconds' });
}

export function booleanFromEnv(name: string, env: NodeJS.ProcessEnv): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (['', '0', 'false', 'no'].includes(raw)) return false;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  throw new ConfigError(`${name}='${env[name]}' must be true or false`);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** What every server process reads: where to listen and how much to log. */
export function serviceConfig(env: NodeJS.ProcessEnv): { host: string; logLevel: string } {
  const host = env.HOST ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:-]+$/.test(host)) throw new ConfigError(`HOST='${host}' is not an address to listen on`);
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL='${logLevel}' must be one of ${LOG_LEVELS.join(', ')}`);
  return { host, logLevel };
}
