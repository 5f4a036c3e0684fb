import { booleanFromEnv, commonConfig, ConfigError, portFromEnv } from '@xfer/persistence';

export interface HelperPagesConfig {
  databaseUrl: string;
  authPort: number;
  host: string;
  logLevel: string;
  trustProxy: boolean;
  csrfSecret?: string;
}

export function helperPagesConfig(env: NodeJS.ProcessEnv = process.env): HelperPagesConfig {
  const csrfSecret = env.AUTH_CSRF_SECRET || undefined;
  if (csrfSecret !== undefined && csrfSecret.length < 32) throw new ConfigError('AUTH_CSRF_SECRET must be at least 32 characters');
  return {
    ...commonConfig(env),
    authPort: portFromEnv('AUTH_PORT', 8081, env),
    trustProxy: booleanFromEnv('TRUST_PROXY', env),
    csrfSecret,
  };
}
