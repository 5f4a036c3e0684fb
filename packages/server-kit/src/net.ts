import type { Server as HttpServer } from 'node:http';
import { createServer } from 'node:net';
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

/** Starts `app` on host:port; resolves once it listens, rejects with the listen error (EADDRINUSE, ...). */
export async function listen(app: Express, port: number, host: string): Promise<HttpServer> {
  const server = app.listen(port, host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return server;
}

/** A process entry point: runs `main`; a failure prints its message and exits 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
