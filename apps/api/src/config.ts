import { commonConfig, portFromEnv } from '@xfer/persistence';

export interface ApiConfig {
  databaseUrl: string;
  apiPort: number;
  host: string;
  bodyLimit: string;
}

export function apiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  return { ...commonConfig(env), apiPort: portFromEnv('API_PORT', 8080, env), bodyLimit: env.API_BODY_LIMIT || '1mb' };
}
