import 'reflect-metadata';
import { openDatabase } from '@xfer/persistence';
import { closeGracefully, listen, runMain } from '@xfer/server-kit';
import { helperPagesConfig } from './config';
import { buildHelperPagesContainer } from './container';
import { createApp } from './http/app';

/** `npm run start:auth`: the helper pages alone. */
runMain(async () => {
  const config = helperPagesConfig();
  const dataSource = await openDatabase(config.databaseUrl);
  const server = await listen(createApp(buildHelperPagesContainer(dataSource, config), config), config.authPort, config.host);
  console.log(`xfer helper pages on http://${config.host}:${config.authPort}/v2/web/identities (database ${config.databaseUrl})`);
  closeGracefully([server], () => dataSource.destroy(), { log: console.log });
});
