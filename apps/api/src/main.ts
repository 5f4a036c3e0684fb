import 'reflect-metadata';
import { openDatabase } from '@xfer/persistence';
import { apiConfig } from './config';
import { buildApiContainer } from './container';
import { createApp } from './http/app';

/** `npm run start:api`: the API alone. */
async function main(): Promise<void> {
  const config = apiConfig();
  const dataSource = await openDatabase(config.databaseUrl);
  const app = createApp(buildApiContainer(dataSource), { bodyLimit: config.bodyLimit });
  const server = app.listen(config.apiPort, config.host, () => {
    console.log(`xfer API listening on http://${config.host}:${config.apiPort}/v0.10/ (database ${config.databaseUrl})`);
  });
  const stop = () => server.close(() => void dataSource.destroy().then(() => process.exit(0)));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
