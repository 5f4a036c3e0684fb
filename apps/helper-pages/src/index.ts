export { createApp, type HelperPagesOptions } from './http/app';
export { buildHelperPagesContainer } from './container';
export { helperPagesConfig, type HelperPagesConfig } from './config';
export { SESSION_COOKIE, safeNext } from './http/pages';
export { startHousekeeping } from './housekeeping';
export { prepareSigningKeys } from './oauth/startup';
export { createViews, VIEWS_STATIC_DIR } from './http/views';
