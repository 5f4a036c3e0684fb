import { TRANSFER_SCOPE } from '@xfer/core';
import { ConfigError, portFromEnv, serviceConfig } from '@xfer/config';
import { databaseConfig } from '@xfer/runtime';

export interface ApiConfig {
  databaseUrl: string;
  /** Postgres connections of each process (DATABASE_POOL_SIZE); undefined: the default. */
  databasePoolSize: number | undefined;
  apiPort: number;
  host: string;
  logLevel: string;
  bodyLimit: string;
  /** Token introspection against an external authorization server (RFC 7662), instead of local tokens. */
  introspection: { url: string; clientId: string; clientSecret: string } | null;
  /** The scope every token must carry; null accepts any. */
  requiredScope: string | null;
  /** Processes serving the API (node's cluster module): 1 by default, up to one per core or more. */
  workers: number;
  /** Tasks this process runs at once (API_TASK_WORKERS, default 4; 0: none). */
  taskWorkers: number;
}

/** Reads and checks the API's settings; a bad one throws ConfigError naming the variable. */
export function apiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const bodyLimit = env.API_BODY_LIMIT || '1mb';
  if (!/^\d+(b|kb|mb)$/i.test(bodyLimit)) throw new ConfigError(`API_BODY_LIMIT='${bodyLimit}' must look like 512kb or 1mb`);
  const requiredScope = env.AUTH_REQUIRED_SCOPE === undefined ? TRANSFER_SCOPE : env.AUTH_REQUIRED_SCOPE.trim() || null;
  if (requiredScope !== null && /\s/.test(requiredScope)) throw new ConfigError('AUTH_REQUIRED_SCOPE must be one scope name, without spaces');
  const workers = env.API_WORKERS || '1';
  if (!/^\d{1,2}$/.test(workers) || Number(workers) < 1 || Number(workers) > 64) throw new ConfigError(`API_WORKERS='${workers}' must be a number of processes from 1 to 64`);
  const taskWorkers = env.API_TASK_WORKERS || '4';
  if (!/^\d{1,2}$/.test(taskWorkers) || Number(taskWorkers) > 64) throw new ConfigError(`API_TASK_WORKERS='${taskWorkers}' must be a number of tasks at once from 0 to 64`);
  return {
    taskWorkers: Number(taskWorkers),
    ...databaseConfig(env),
    ...serviceConfig(env),
    apiPort: portFromEnv('API_PORT', 8080, env),
    workers: Number(workers),
    bodyLimit,
    introspection: introspectionConfig(env),
    requiredScope,
  };
}

function introspectionConfig(env: NodeJS.ProcessEnv): ApiConfig['introspection'] {
  const url = env.AUTH_INTROSPECTION_URL;
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`AUTH_INTROSPECTION_URL='${url}' is not a URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new ConfigError('AUTH_INTROSPECTION_URL must be an http(s) URL');
  const clientId = env.AUTH_INTROSPECTION_CLIENT_ID;
  const clientSecret = env.AUTH_INTROSPECTION_CLIENT_SECRET;
  if (!clientId) throw new ConfigError('AUTH_INTROSPECTION_CLIENT_ID is required with AUTH_INTROSPECTION_URL');
  if (!clientSecret) throw new ConfigError('AUTH_INTROSPECTION_CLIENT_SECRET is required with AUTH_INTROSPECTION_URL');
  return { url, clientId, clientSecret };
}
