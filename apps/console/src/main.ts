import 'reflect-metadata';
import { openEngine, persistenceAdapters } from '@xfer/persistence';
import { coreContainer, coreServicesOf } from '@xfer/server-kit';
import { closeGracefully, createLogger, listen, runMain } from '@xfer/server-kit';
import { consoleConfig } from './config';
import { createConsoleApp } from './http/app';
import { registerConsoleClient } from './registration';

/** `npm run start:console`: the web console alone, beside an API and an authorization service on the same database. */
runMain(async () => {
  const config = consoleConfig();
  // the database only to register this console's address and secret; pages go through the API
  const engine = await openEngine(config.databaseUrl, { poolSize: 1, readCache: false, background: false });
  let credentials;
  try {
    credentials = await registerConsoleClient(coreServicesOf(coreContainer(persistenceAdapters(engine))).admin, config.publicUrl, config.clientSecret);
  } finally {
    await engine.close();
  }
  const app = createConsoleApp({ ...config, ...credentials, logger: createLogger({ name: 'xfer-console', level: config.logLevel }) });
  const server = await listen(app, config.consolePort, config.host, 'CONSOLE_PORT');
  console.log(`xfer console on ${config.publicUrl}/console/ (API ${config.apiUrl}, authorization service ${config.authUrl})`);
  closeGracefully([server], async () => undefined, { log: console.log });
});
