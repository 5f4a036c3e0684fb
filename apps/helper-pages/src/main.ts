import 'reflect-metadata';
import { openDatabase } from '@xfer/persistence';
import { closeGracefully } from '@xfer/server-kit';
import { helperPagesConfig } from './config';
import { buildHelperPagesContainer } from './container';
import { createApp } from './http/app';

/** `npm run start:auth`: the helper pages alone. */
async function main(): Promise<void> {
  const config = helperPagesConfig();
  const dataSource = await openDatabase(config.databaseUrl);
  const app = createApp(buildHelperPagesContainer(dataSource, config), config);
  const server = app.listen(config.authPort, config.host, () => {
    console.log(`xfer helper pages on http://${config.host}:${config.authPort}/v2/web/identities (database ${config.databaseUrl})`);
  });
  closeGracefully([server], () => dataSource.destroy(), { log: console.log });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
