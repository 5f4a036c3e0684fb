import 'reflect-metadata';
import { openDatabase } from '@xfer/persistence';
import { closeGracefully, listen, runMain } from '@xfer/server-kit';
import { apiConfig } from './config';
import { buildApiContainer } from './container';
import { createApp } from './http/app';

/** `npm run start:api`: the API alone. */
runMain(async () => {
  const config = apiConfig();
  const dataSource = await openDatabase(config.databaseUrl);
  const server = await listen(createApp(buildApiContainer(dataSource, config), { bodyLimit: config.bodyLimit }), config.apiPort, config.host, 'API_PORT');
  console.log(`xfer API listening on http://${config.host}:${config.apiPort}/v0.10/ (database ${config.databaseUrl})`);
  closeGracefully([server], () => dataSource.destroy(), { log: console.log });
});
