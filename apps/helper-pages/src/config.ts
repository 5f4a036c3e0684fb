import { booleanFromEnv, ConfigError, portFromEnv, secondsFromEnv, serviceConfig } from '@xfer/config';
import { databaseConfig } from '@xfer/runtime';

export interface HelperPagesConfig {
  databaseUrl: string;
  /** Postgres connections of each process (DATABASE_POOL_SIZE); undefined: the default. */
  databasePoolSize: number | undefined;
  authPort: number;
  host: string;
  logLevel: string;
  trustProxy: boolean;
  csrfSecret?: string;
  /** This service's public address: `iss` in introspection answers. */
  issuer: string;
  accessTokenLifetimeSeconds: number;
  codeLifetimeSeconds: number;
  /** Encrypts the id_token signing keys at rest; unset: they are stored plainly (a warning at start). */
  signingKeySecret?: string;
}


function signingKeySecret(env: NodeJS.ProcessEnv): string | undefined {
  const secret = env.AUTH_SIGNING_KEY_SECRET || undefined;
  if (secret !== undefined && secret.length < 32) throw new ConfigError('AUTH_SIGNING_KEY_SECRET must be at least 32 characters');
  return secret;
}

export function helperPagesConfig(env: NodeJS.ProcessEnv = process.env): HelperPagesConfig {
  const csrfSecret = env.AUTH_CSRF_SECRET || undefined;
  if (csrfSecret !== undefined && csrfSecret.length < 32) throw new ConfigError('AUTH_CSRF_SECRET must be at least 32 characters');
  const common = { ...databaseConfig(env), ...serviceConfig(env) };
  const authPort = portFromEnv('AUTH_PORT', 8081, env);
  const issuer = (env.AUTH_PUBLIC_URL || `http://${common.host}:${authPort}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(issuer)) throw new ConfigError(`AUTH_PUBLIC_URL='${issuer}' must be an http(s) URL`);
  return {
    ...common,
    authPort,
    trustProxy: booleanFromEnv('TRUST_PROXY', env),
    csrfSecret,
    issuer,
    accessTokenLifetimeSeconds: secondsFromEnv('AUTH_ACCESS_TOKEN_LIFETIME', 48 * 60 * 60, env, { max: 365 * 24 * 60 * 60 }),
    // RFC 6749 4.1.2: a code lives at most 10 minutes
    codeLifetimeSeconds: secondsFromEnv('AUTH_CODE_LIFETIME', 600, env, { max: 600 }),
    signingKeySecret: signingKeySecret(env),
  };
}
