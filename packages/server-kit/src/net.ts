import type { Server as HttpServer } from 'node:http';
import { createServer } from 'node:net';
import { ConfigError } from '@xfer/config';
import type { Express } from 'express';

/** A loopback port nobody listens on right now (for tests and benchmarks that start servers). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `app` on host:port; resolves once it listens. A port in use, a port that needs
 * privileges or a host that is not this machine's rejects with a ConfigError naming `setting`.
 */
export async function listen(app: Express, port: number, host: string, setting = 'PORT'): Promise<HttpServer> {
  const server = app.listen(port, host);
  try {
    await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  } catch (error) {
    throw listenError(error, port, host, setting);
  }
  return server;
}

function listenError(error: unknown, port: number, host: string, setting: string): Error {
  const code = (error as { code?: string })?.code;
  if (code === 'EADDRINUSE') return new ConfigError(`${setting} ${port} is already in use on ${host}: set ${setting}`);
  if (code === 'EACCES') return new ConfigError(`${setting} ${port} needs privileges this process lacks: set ${setting} to 1024 or above`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new ConfigError(`HOST ${host} is not an address of this machine (${code}): set HOST`);
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * A process entry point: runs `main`. A bad setting prints its message and exits 2; anything else
 * prints "unexpected error" with the message and exits 1.
 */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    console.error(error instanceof ConfigError ? `xfer: ${message}` : `xfer: unexpected error: ${message}`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  });
}
