export { createApp, type ApiOptions, type ApiServices } from './http/app';
export { apiCoreSettings } from './coreSettings';
export { apiConfig, type ApiConfig } from './config';
export { decodeCreateEndpoint, decodeCreateSharedEndpoint } from './http/v010/requests';
export { decodeNewAccessRule } from './http/v010/access';
