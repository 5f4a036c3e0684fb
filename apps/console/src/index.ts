export { createConsoleApp, safeConsolePath, CONSOLE_SESSION_COOKIE, type ConsoleOptions } from './http/app';
export { consoleConfig, consoleRedirectUris, type ConsoleConfig } from './config';
export { registerConsoleClient } from './registration';
