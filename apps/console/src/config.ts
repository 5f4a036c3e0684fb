import { booleanFromEnv, ConfigError, portFromEnv, serviceConfig } from '@xfer/config';
import { databaseConfig } from '@xfer/runtime';

export interface ConsoleConfig {
  databaseUrl: string;
  databasePoolSize: number | undefined;
  host: string;
  logLevel: string;
  consolePort: number;
  /** Where browsers reach the console (CONSOLE_PUBLIC_URL); its pages live under /console/. */
  publicUrl: string;
  /** Where the console calls the API (CONSOLE_API_URL), without /v0.10. */
  apiUrl: string;
  /** Where browsers and the console reach the authorization service (AUTH_PUBLIC_URL). */
  authUrl: string;
  /** The console client's secret (CONSOLE_CLIENT_SECRET); unset: a new one each start (one console only). */
  clientSecret: string | undefined;
  trustProxy: boolean;
}

function httpUrl(name: string, value: string): string {
  const url = value.replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(url)) throw new ConfigError(`${name}='${value}' must be an http(s) URL`);
  return url;
}

/** Reads and checks the console's settings; a bad one throws ConfigError naming the variable. */
export function consoleConfig(env: NodeJS.ProcessEnv = process.env): ConsoleConfig {
  const common = { ...databaseConfig(env), ...serviceConfig(env) };
  const consolePort = portFromEnv('CONSOLE_PORT', 8082, env);
  const apiPort = portFromEnv('API_PORT', 8080, env);
  const authPort = portFromEnv('AUTH_PORT', 8081, env);
  const clientSecret = env.CONSOLE_CLIENT_SECRET || undefined;
  if (clientSecret !== undefined && !/^[\x21-\x7e]{32,512}$/.test(clientSecret)) {
    throw new ConfigError('CONSOLE_CLIENT_SECRET must be 32 to 512 printable characters without spaces');
  }
  return {
    ...common,
    consolePort,
    publicUrl: httpUrl('CONSOLE_PUBLIC_URL', env.CONSOLE_PUBLIC_URL || `http://${common.host}:${consolePort}`),
    apiUrl: httpUrl('CONSOLE_API_URL', env.CONSOLE_API_URL || `http://${common.host}:${apiPort}`),
    authUrl: httpUrl('AUTH_PUBLIC_URL', env.AUTH_PUBLIC_URL || `http://${common.host}:${authPort}`),
    clientSecret,
    trustProxy: booleanFromEnv('TRUST_PROXY', env),
  };
}

/** The redirect URIs the console registers: its callback, and its home (the sign-out page's way back). */
export function consoleRedirectUris(publicUrl: string): string[] {
  return [`${publicUrl}/console/callback`, `${publicUrl}/console/`];
}
