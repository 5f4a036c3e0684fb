/**
 * The authorization service's settings alone (`@xfer/helper-pages/settings`), for processes that
 * need its core settings without its web app: the CLI's one-shot commands load this, not Express.
 */
export { pagesCoreSettings } from './coreSettings';
export { helperPagesConfig, type HelperPagesConfig } from './config';
