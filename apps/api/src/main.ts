import 'reflect-metadata';
import { openDatabase } from '@xfer/persistence';
import { closeGracefully } from '@xfer/server-kit';
import { apiConfig } from './config';
import { buildApiContainer } from './container';
import { createApp } from './http/app';

/** `npm run start:api`: the API alone. */
async function main(): Promise<void> {
  const config = apiConfig();
  const dataSource = await openDatabase(config.databaseUrl);
  const app = createApp(buildApiContainer(dataSource, config), { bodyLimit: config.bodyLimit });
  const server = app.listen(config.apiPort, config.host, () => {
    console.log(`xfer API listening on http://${config.host}:${config.apiPort}/v0.10/ (database ${config.databaseUrl})`);
  });
  closeGracefully([server], () => dataSource.destroy(), { log: console.log });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
