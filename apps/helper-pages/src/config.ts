import { commonConfig, ConfigError, portFromEnv } from '@xfer/persistence';

export interface HelperPagesConfig {
  databaseUrl: string;
  authPort: number;
  host: string;
  trustProxy: boolean;
  csrfSecret?: string;
}

export function helperPagesConfig(env: NodeJS.ProcessEnv = process.env): HelperPagesConfig {
  const trust = env.TRUST_PROXY ?? '';
  if (!['', '0', '1', 'true', 'false'].includes(trust)) throw new ConfigError(`TRUST_PROXY='${trust}' must be true or false`);
  return {
    ...commonConfig(env),
    authPort: portFromEnv('AUTH_PORT', 8081, env),
    trustProxy: trust === '1' || trust === 'true',
    csrfSecret: env.AUTH_CSRF_SECRET || undefined,
  };
}
