import 'reflect-metadata';
import cluster from 'node:cluster';
import { openEngine } from '@xfer/persistence';
import { closeGracefully, listen, runMain } from '@xfer/server-kit';
import { apiConfig } from './config';
import { buildApiContainer } from './container';
import { createApp } from './http/app';

/**
 * `npm run start:api`: the API alone. With API_WORKERS=N, a primary process applies the migrations
 * and N workers share the port (node's cluster module); each has its own connection and read cache,
 * which see each other's writes (readCache.ts).
 */
runMain(async () => {
  const config = apiConfig();
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config.workers, config.databaseUrl);
  const engine = await openEngine(config.databaseUrl, { migrate: cluster.isPrimary, poolSize: config.databasePoolSize });
  const server = await listen(createApp(buildApiContainer(engine, config), { bodyLimit: config.bodyLimit }), config.apiPort, config.host, 'API_PORT');
  if (cluster.isPrimary) console.log(`xfer API listening on http://${config.host}:${config.apiPort}/v0.10/ (database ${config.databaseUrl})`);
  closeGracefully([server], () => engine.close(), { log: cluster.isPrimary ? console.log : undefined });
});

async function runPrimary(workers: number, databaseUrl: string): Promise<void> {
  await (await openEngine(databaseUrl, { readCache: false, background: false })).close();
  let stopping = false;
  let stop: (signal: NodeJS.Signals, exitCode?: number) => void = () => undefined;
  const fork = (): unknown => cluster.fork().once('exit', (code, signal) => {
    if (stopping) return;
    // a worker that could not start (exit 2: a setting is wrong) would fail again: stop with it
    if (code === 2) return stop('SIGTERM', 2);
    console.error(`API worker exited (${signal ?? code}): starting another`);
    fork();
  });
  for (let i = 0; i < workers; i++) fork();
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    if (++listening === workers) console.log(`xfer API listening on http://${address.address}:${address.port}/v0.10/ with ${workers} workers (database ${databaseUrl})`);
  });
  stop = (signal, exitCode = 0) => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    cluster.once('exit', function waitForAll() {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
      else cluster.once('exit', waitForAll);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
