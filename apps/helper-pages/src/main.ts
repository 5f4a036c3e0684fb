import 'reflect-metadata';
import { Runtime } from '@xfer/runtime';
import { runMain } from '@xfer/server-kit';
import { helperPagesConfig } from './config';
import { pagesCoreSettings } from './coreSettings';
import { createApp } from './http/app';
import { startHousekeeping } from './housekeeping';
import { prepareSigningKeys } from './oauth/startup';

/** `npm run start:auth`: the helper pages alone. */
runMain(async () => {
  const config = helperPagesConfig();
  const runtime = await Runtime.start({ kind: 'server', databaseUrl: config.databaseUrl, poolSize: config.databasePoolSize, core: pagesCoreSettings(config) }, async (rt) => {
    await prepareSigningKeys(rt.services, config, console.error);
    await rt.listen(createApp(rt.appServices, config), config.authPort, config.host, 'AUTH_PORT');
    rt.onClose('housekeeping', startHousekeeping(rt.services.housekeeping, { log: console.error }));
  });
  console.log(`xfer helper pages on http://${config.host}:${config.authPort}/v2/web/identities (database ${config.databaseUrl})`);
  runtime.closeOnSignals({ log: console.log });
});
