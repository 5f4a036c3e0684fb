export { createApp, type HelperPagesOptions, type PagesServices } from './http/app';
export { pagesCoreSettings } from './coreSettings';
export { helperPagesConfig, type HelperPagesConfig } from './config';
export { SESSION_COOKIE, safeNext } from './http/pages';
export { startHousekeeping } from './housekeeping';
export { prepareSigningKeys } from './oauth/startup';
