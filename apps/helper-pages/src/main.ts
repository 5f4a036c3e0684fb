import 'reflect-metadata';
import { openEngine } from '@xfer/persistence';
import { closeGracefully, listen, runMain } from '@xfer/server-kit';
import { helperPagesConfig } from './config';
import { buildHelperPagesContainer } from './container';
import { createApp } from './http/app';
import { startHousekeeping } from './housekeeping';
import { prepareSigningKeys } from './oauth/startup';

/** `npm run start:auth`: the helper pages alone. */
runMain(async () => {
  const config = helperPagesConfig();
  const engine = await openEngine(config.databaseUrl, { poolSize: config.databasePoolSize });
  const container = buildHelperPagesContainer(engine, config);
  await prepareSigningKeys(container, config, console.error);
  const server = await listen(createApp(container, config), config.authPort, config.host, 'AUTH_PORT');
  const stopHousekeeping = startHousekeeping(container, { log: console.error });
  console.log(`xfer helper pages on http://${config.host}:${config.authPort}/v2/web/identities (database ${config.databaseUrl})`);
  closeGracefully(
    [server],
    () => {
      stopHousekeeping();
      return engine.close();
    },
    { log: console.log },
  );
});
