import type { Server } from 'node:http';

/**
 * On SIGTERM or SIGINT: stop accepting connections, let requests in flight finish, close idle
 * keep-alive connections, then run `cleanup` (close the database) and exit. Gives up after
 * `timeoutMs`.
 */
export function closeGracefully(servers: Server[], cleanup: () => Promise<void>, options: { timeoutMs?: number; log?: (message: string) => void } = {}): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    options.log?.(`${signal}: finishing requests in flight, then stopping`);
    const force = setTimeout(() => process.exit(1), options.timeoutMs ?? 10_000);
    force.unref();
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeIdleConnections();
          }),
      ),
    );
    await cleanup();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
