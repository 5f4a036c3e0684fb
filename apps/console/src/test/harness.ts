import 'reflect-metadata';
import type { Server } from 'node:http';
import { createApp as createApiApp } from '@xfer/api';
import { CONSOLE_CLIENT, type CoreServices, type Repositories } from '@xfer/core';
import { createApp as createPagesApp, pagesCoreSettings, prepareSigningKeys } from '@xfer/helper-pages';
import { Runtime } from '@xfer/runtime';
import { createLogger, freePort } from '@xfer/server-kit';
import express from 'express';
import supertest from 'supertest';
import { createConsoleApp, type ConsoleOptions } from '../http/app';
import { registerConsoleClient } from '../registration';

export const PASSWORD = 'a long console password';

export interface ConsoleWorld {
  /** The one address of the API, the authorization service and the console (under /console/). */
  url: string;
  services: CoreServices;
  repositories: Repositories;
  /** The storage trees of the process: a test attaches memory storage to an endpoint and fills it. */
  storages: Runtime['storages'];
  /** alice's subscription: endpoints on it may be shared. */
  subscriptionId: string;
  /** Ends every console session, as a stopping process does. */
  endConsoleSessions(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The API, the authorization service and the console on one port over an in-memory database (as in
 * the stand-in), with alice (a subscription member) and bob, both with PASSWORD.
 */
export async function startConsoleWorld(options: Partial<ConsoleOptions> = {}): Promise<ConsoleWorld> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const signingKeySecret = 'console tests sign with keys of their own';
  const runtime = await Runtime.open({ kind: 'server', databaseUrl: 'sqlite::memory:', core: pagesCoreSettings({ issuer: url, signingKeySecret }) });
  const { services } = runtime;
  await prepareSigningKeys(services, { signingKeySecret }, () => undefined);
  for (const username of ['alice', 'bob']) {
    await services.admin.identities.addIdentity({ username, name: username === 'alice' ? 'Alice Example' : 'Bob Example', email: `${username}@example.org` });
    await services.admin.identities.setPassword(username, PASSWORD);
  }
  const subscriptionId = await services.admin.subscriptions.addSubscription('Lab subscription', ['alice']);
  const credentials = await registerConsoleClient(services.admin, url);
  const logger = createLogger({ level: 'silent' });
  const api = createApiApp(runtime.appServices, { logger });
  const pages = createPagesApp(runtime.appServices, { issuer: url, logger });
  const consoleApp = createConsoleApp({ apiUrl: url, authUrl: url, publicUrl: url, ...credentials, logger, ...options });
  const app = express();
  app.use((req, res, next) => {
    if (req.path.startsWith('/v0.10/')) return api(req, res, next);
    if (req.path.startsWith('/console')) return consoleApp(req, res, next);
    return pages(req, res, next);
  });
  const server: Server = app.listen(port, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url,
    services,
    repositories: runtime.uow.repositories,
    storages: runtime.storages,
    subscriptionId,
    endConsoleSessions: () => consoleApp.endSessions(),
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
      await runtime.close();
    },
  };
}

/** A hidden field's value in a page's HTML. */
export const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, '&');

/** Signs in to the console through the authorization service's pages as a browser would (`agent`: a browser of the test's); returns the agent (it keeps the cookies). */
export async function signInOverHttp(world: ConsoleWorld, username: string, agent = supertest.agent(world.url)) {
  const start = await agent.get('/console/login?next=%2Fconsole%2Fsearch%3Fscope%3Dall');
  expect(start.status).toBe(303);
  const authorize = new URL(start.headers.location);
  expect(Object.fromEntries(authorize.searchParams)).toMatchObject({ client_id: CONSOLE_CLIENT.id, response_type: 'code', code_challenge_method: 'S256', redirect_uri: `${world.url}/console/callback` });
  expect(authorize.searchParams.get('scope')).toContain('urn:globus:auth:scope:transfer.api.globus.org:all');
  // follows the authorization service's redirects, as a browser does, until a page or the console's callback
  const follow = async (res: supertest.Response): Promise<supertest.Response> => {
    while ([302, 303].includes(res.status) && !res.headers.location.includes('/console/callback')) res = await agent.get(res.headers.location.replace(world.url, ''));
    return res;
  };
  const loginPage = await follow(await agent.get(`${authorize.pathname}${authorize.search}`));
  const signIn = await agent.post('/v2/web/login').type('form').send({ _csrf: hidden(loginPage.text, '_csrf'), next: hidden(loginPage.text, 'next'), username, password: PASSWORD });
  let answer = await follow(signIn);
  if (answer.status === 200) {
    // the consent screen: allow
    const fields: Record<string, string> = { decision: 'allow' };
    for (const [, name, value] of answer.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[name] = value.replace(/&amp;/g, '&');
    answer = await agent.post('/v2/web/authorize').type('form').send(fields);
  }
  const callback = new URL(answer.headers.location);
  expect(callback.pathname).toBe('/console/callback');
  const landed = await agent.get(`${callback.pathname}${callback.search}`);
  expect(landed.status).toBe(303);
  expect(landed.headers.location).toBe('/console/search?scope=all');
  return { agent, cookies: [...(start.headers['set-cookie'] as unknown as string[]), ...((landed.headers['set-cookie'] as unknown as string[]) ?? [])] };
}
