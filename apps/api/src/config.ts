import { DEFAULT_DATABASE_URL } from '@xfer/persistence';

export class ConfigError extends Error {}

function port(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new ConfigError(`${name}='${raw}' is not a port number (0-65535)`);
  }
  return value;
}

export interface ApiConfig {
  databaseUrl: string;
  apiPort: number;
  host: string;
  bodyLimit: string;
}

export function apiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  return {
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    apiPort: port('API_PORT', 8080, env),
    host: env.HOST || '127.0.0.1',
    bodyLimit: env.API_BODY_LIMIT || '1mb',
  };
}

export { port as portFromEnv };
