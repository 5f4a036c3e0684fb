export { createApp, type ApiOptions } from './http/app';
export { buildApiContainer } from './container';
export { apiConfig, type ApiConfig } from './config';
export { decodeCreateEndpoint, decodeCreateSharedEndpoint } from './http/v010/requests';
export { decodeNewAccessRule } from './http/v010/access';
