import { ConfigError, portFromEnv, serviceConfig } from '@xfer/config';
import type { NodeServeOptions } from './NodeServer';

/** What `xfer node serve` is given on its command line; each also from the environment. */
export interface NodeServeArguments {
  api?: string;
  auth?: string;
  id?: string;
  secretFile?: string;
  port?: string;
  tlsCert?: string;
  tlsKey?: string;
}

/** Each setting: its option, and the variable that gives it otherwise. */
const SETTINGS = {
  api: ['--api', 'XFER_NODE_API'],
  auth: ['--auth', 'XFER_NODE_AUTH'],
  id: ['--id', 'XFER_NODE_ID'],
  secretFile: ['--secret-file', 'XFER_NODE_SECRET_FILE'],
  port: ['--port', 'XFER_NODE_PORT'],
  tlsCert: ['--tls-cert', 'XFER_NODE_TLS_CERT'],
  tlsKey: ['--tls-key', 'XFER_NODE_TLS_KEY'],
} as const;

function httpUrl(value: string, option: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${option} '${value}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${option} '${value}' must be an http:// or https:// URL`);
  return value.replace(/\/+$/, '');
}

/** The node's settings from its arguments and the environment; a ConfigError names what is missing or wrong. */
export function nodeServeSettings(args: NodeServeArguments, env: NodeJS.ProcessEnv): Omit<NodeServeOptions, 'logger'> {
  const value = (name: keyof typeof SETTINGS): string | undefined => args[name] ?? (env[SETTINGS[name][1]] || undefined);
  const required = (name: keyof typeof SETTINGS): string => {
    const given = value(name);
    if (given === undefined) throw new ConfigError(`${SETTINGS[name][0]} is required (or ${SETTINGS[name][1]})`);
    return given;
  };
  const port = value('port');
  return {
    apiUrl: httpUrl(required('api'), SETTINGS.api[0]),
    authUrl: httpUrl(required('auth'), SETTINGS.auth[0]),
    nodeId: required('id'),
    secretFile: required('secretFile'),
    port: port === undefined ? undefined : portFromEnv('--port', 0, { '--port': port }),
    host: serviceConfig(env).host,
    tlsCert: required('tlsCert'),
    tlsKey: required('tlsKey'),
  };
}
