export { createApp, type ApiOptions } from './http/app';
export { buildApiContainer } from './container';
export { apiConfig, ConfigError, portFromEnv, type ApiConfig } from './config';
