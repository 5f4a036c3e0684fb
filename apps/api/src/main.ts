import cluster from 'node:cluster';
import { Runtime } from '@xfer/runtime';
import { runMain } from '@xfer/server-kit';
import { apiConfig } from './config';
import { apiCoreSettings } from './coreSettings';
import { createApp } from './http/app';

/**
 * `npm run start:api`: the API alone. With API_WORKERS=N, a primary process applies the migrations
 * and N workers share the port (node's cluster module); each has its own runtime (connection and
 * read cache), and they see each other's writes (readCache.ts).
 */
runMain(async () => {
  const config = apiConfig();
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config.workers, config.databaseUrl);
  const runtime = await Runtime.start(
    { kind: 'server', databaseUrl: config.databaseUrl, poolSize: config.databasePoolSize, migrate: cluster.isPrimary, core: apiCoreSettings(config) },
    async (rt) => {
      // on Postgres every process shares the tasks (a pg-boss queue); on SQLite one process runs them.
      // The workers before the port: once it answers, a signal finds its handler in place.
      if (cluster.isPrimary || cluster.worker?.id === 1 || rt.databaseName === 'postgres') await rt.startTaskWorkers({ concurrency: config.taskWorkers, log: console.error });
      await rt.listen(createApp(rt.appServices, { bodyLimit: config.bodyLimit }), config.apiPort, config.host, 'API_PORT');
    },
  );
  runtime.closeOnSignals({ log: cluster.isPrimary ? console.log : undefined });
  if (cluster.isPrimary) console.log(`xfer API listening on http://${config.host}:${config.apiPort}/v0.10/ (database ${config.databaseUrl})`);
});

async function runPrimary(workers: number, databaseUrl: string): Promise<void> {
  // the migrations, once, before the workers open the database
  await Runtime.run({ databaseUrl }, async () => undefined);
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
