/** A bad setting: the message names the variable to fix. Entry points exit with 2 on it. */
export class ConfigError extends Error {}
