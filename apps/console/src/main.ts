import { Runtime } from '@xfer/runtime';
import { createLogger, runMain } from '@xfer/server-kit';
import { consoleConfig } from './config';
import { createConsoleApp } from './http/app';
import { registerConsoleClient } from './registration';

/** `npm run start:console`: the web console alone, beside an API and an authorization service on the same database. */
runMain(async () => {
  const config = consoleConfig();
  // the database only to register this console's address and secret; pages go through the API
  const runtime = await Runtime.start({ kind: 'console', databaseUrl: config.databaseUrl }, async (rt) => {
    const credentials = await registerConsoleClient(rt.services.admin, config.publicUrl, config.clientSecret);
    const app = createConsoleApp({ ...config, ...credentials, logger: createLogger({ name: 'xfer-console', level: config.logLevel }) });
    // closed in reverse: the server stops taking requests first, then the sessions end (their tokens revoked)
    rt.onClose('console sessions', () => app.endSessions());
    await rt.listen(app, config.consolePort, config.host, 'CONSOLE_PORT');
  });
  console.log(`xfer console on ${config.publicUrl}/console/ (API ${config.apiUrl}, authorization service ${config.authUrl})`);
  runtime.closeOnSignals({ log: console.log });
});
