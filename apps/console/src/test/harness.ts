import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApiContainer, createApp as createApiApp } from '@xfer/api';
import type { CoreServices, Repositories } from '@xfer/core';
import { buildHelperPagesContainer, createApp as createPagesApp, prepareSigningKeys } from '@xfer/helper-pages';
import { openEngine, TypeormUnitOfWork } from '@xfer/persistence';
import { coreServicesOf } from '@xfer/server-kit';
import { createLogger, freePort } from '@xfer/server-kit';
import express from 'express';
import { createConsoleApp, type ConsoleOptions } from '../http/app';
import { registerConsoleClient } from '../registration';
import type { Engine } from '@xfer/persistence';

export const PASSWORD = 'a long console password';

export interface ConsoleWorld {
  /** The one address of the API, the authorization service and the console (under /console/). */
  url: string;
  services: CoreServices;
  repositories: Repositories;
  /** alice's subscription: endpoints on it may be shared. */
  subscriptionId: string;
  close(): Promise<void>;
}

/**
 * The API, the authorization service and the console on one port over an in-memory database (as in
 * the stand-in), with alice (a subscription member) and bob, both with PASSWORD.
 */
export async function startConsoleWorld(options: Partial<ConsoleOptions> = {}): Promise<ConsoleWorld> {
  const engine: Engine = await openEngine('sqlite::memory:');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const uow = new TypeormUnitOfWork(engine);
  const apiContainer = buildApiContainer(engine, { uow });
  const pagesContainer = buildHelperPagesContainer(engine, { issuer: url, uow });
  await prepareSigningKeys(pagesContainer, { signingKeySecret: 'console tests sign with keys of their own' }, () => undefined);
  const services = coreServicesOf(pagesContainer);
  for (const username of ['alice', 'bob']) {
    await services.admin.identities.addIdentity({ username, name: username === 'alice' ? 'Alice Example' : 'Bob Example', email: `${username}@example.org` });
    await services.admin.identities.setPassword(username, PASSWORD);
  }
  const subscriptionId = await services.admin.subscriptions.addSubscription('Lab subscription', ['alice']);
  const credentials = await registerConsoleClient(services.admin, url);
  const logger = createLogger({ level: 'silent' });
  const api = createApiApp(apiContainer, { logger });
  const pages = createPagesApp(pagesContainer, { issuer: url, logger });
  const consoleApp = createConsoleApp({ apiUrl: url, authUrl: url, publicUrl: url, ...credentials, logger, ...options });
  const app = express();
  app.use((req, res, next) => {
    if (req.path.startsWith('/v0.10/')) return api(req, res, next);
    if (req.path.startsWith('/console')) return consoleApp(req, res, next);
    return pages(req, res, next);
  });
  const server: Server = app.listen(port, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  expect((server.address() as AddressInfo).port).toBe(port);
  return {
    url,
    services,
    repositories: uow.repositories,
    subscriptionId,
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
      await engine.close();
    },
  };
}
