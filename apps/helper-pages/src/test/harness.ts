import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorld } from '@xfer/core/testing';
import { Runtime } from '@xfer/runtime';
import { testBackends, type TestBackend, type TestDatabase } from '@xfer/persistence/testing';
import { createLogger } from '@xfer/server-kit';
import supertest from 'supertest';
import { pagesCoreSettings } from '../coreSettings';
import { createApp, type HelperPagesOptions } from '../http/app';

export const BACKENDS = testBackends();
export const PASSWORD = 'correct horse battery';

/** The helper pages on a fresh database, with a TestWorld over it to arrange users, clients and consents. */
export async function startPages(
  backend: TestBackend,
  options: HelperPagesOptions = {},
  config: Parameters<typeof pagesCoreSettings>[0] = {},
  /** A database another instance uses too; the caller drops it. */
  shared?: TestDatabase,
) {
  const database = shared ?? (await backend.create());
  const runtime = await Runtime.open({ kind: 'server', databaseUrl: database.url, core: pagesCoreSettings(config) });
  const app = createApp(runtime.appServices, { logger: createLogger({ level: 'silent' }), ...options });
  const world = new TestWorld(runtime.uow);
  const admin = world.services.admin;

  async function userWithPassword(username: string, extra: { name?: string; email?: string; organization?: string } = {}) {
    const identity = await admin.identities.addIdentity({ username, ...extra });
    await admin.identities.setPassword(username, PASSWORD);
    return identity;
  }

  /** A supertest agent (keeps cookies) that has signed in as `username`. */
  async function signedInAgent(username: string) {
    const agent = supertest.agent(app);
    const form = await agent.get('/v2/web/login');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1];
    const res = await agent.post('/v2/web/login').type('form').send({ _csrf: csrf, username, password: PASSWORD, next: '/v2/web/identities' });
    if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
    return agent;
  }

  const close = async () => {
    await runtime.close();
    if (!shared) await database.drop();
  };
  return { app, http: supertest(app), runtime, world, admin, userWithPassword, signedInAgent, close };
}

export type Pages = Awaited<ReturnType<typeof startPages>>;

/** One database two app instances can open: a file for SQLite, a fresh database on Postgres. */
export async function sharedDatabase(backend: TestBackend): Promise<TestDatabase> {
  if (backend.name === 'postgres') return backend.create();
  const dir = mkdtempSync(join(tmpdir(), 'xfer-shared-'));
  return { url: `sqlite:${join(dir, 'xfer.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}
