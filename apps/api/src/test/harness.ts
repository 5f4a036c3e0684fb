import 'reflect-metadata';
import { TestWorld } from '@xfer/core/testing';
import { Runtime } from '@xfer/runtime';
import { testBackends, type TestBackend } from '@xfer/persistence/testing';
import { createLogger } from '@xfer/server-kit';
import express from 'express';
import supertest from 'supertest';
import { responseRecorder } from './openapiValidator';
import { createApp, type ApiOptions } from '../http/app';

export const V = '/v0.10';

/** SQLite always, Postgres when the test cluster is up: each end-to-end suite runs on all of them. */
export const BACKENDS = testBackends();

/**
 * The real API app on a fresh in-memory SQLite database (migrations applied), plus a TestWorld over
 * the same database for arranging users, subscriptions and roles.
 */
export async function startApi(backend: TestBackend, options: ApiOptions = {}) {
  const database = await backend.create();
  const runtime = await Runtime.open({ kind: 'server', databaseUrl: database.url });
  // every JSON response of the suite is checked against the OpenAPI document
  const violations: string[] = [];
  const app = express().use(responseRecorder(violations)).use(createApp(runtime.appServices, { logger: createLogger({ level: 'silent' }), ...options }));
  const world = new TestWorld(runtime.uow);
  const http = supertest(app);
  const as = (token: string) => ({
    get: (path: string) => http.get(`${V}${path}`).set('Authorization', `Bearer ${token}`),
    post: (path: string, body?: unknown) => http.post(`${V}${path}`).set('Authorization', `Bearer ${token}`).send(body as object),
    put: (path: string, body?: unknown) => http.put(`${V}${path}`).set('Authorization', `Bearer ${token}`).send(body as object),
    delete: (path: string) => http.delete(`${V}${path}`).set('Authorization', `Bearer ${token}`),
  });
  const close = async () => {
    await runtime.close();
    await database.drop();
    if (violations.length > 0) throw new Error(`responses that do not match openapi.json:\n${violations.slice(0, 10).join('\n')}`);
  };
  return { app, http, world, as, runtime, close };
}

export type Api = Awaited<ReturnType<typeof startApi>>;

/** How a task suite's endpoints keep their files. */
export type StorageKind = 'memory' | 'posix';

/** Every database with both storages: what a suite of tasks runs on. */
export const TASK_CASES = BACKENDS.flatMap((backend) => (['memory', 'posix'] as const).map((storage) => ({ backend, storage, name: `${backend.name}, ${storage} storage` })));

/**
 * The API with its task workers, listening on loopback (for @globus/sdk, through
 * GLOBUS_SDK_SERVICE_URL_TRANSFER), and two of alice's endpoints, Lab and Archive, each holding
 * `tree` (paths to content, null for a directory) in `storage`.
 */
export async function startTaskApi(backend: TestBackend, storage: StorageKind, tree: Record<string, string | null>) {
  const { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const api = await startApi(backend);
  const alice = (await api.world.user('alice')).token;
  const bob = (await api.world.user('bob')).token;
  const endpoint = async (name: string) => (await api.as(alice).post('/endpoint', { display_name: name, DATA: [{ hostname: `${name.toLowerCase()}.example.org` }] })).body.id as string;
  const [lab, archive] = [await endpoint('Lab'), await endpoint('Archive')];
  const base = storage === 'posix' ? mkdtempSync(`${tmpdir()}/xfer-tasks-`) : null;
  for (const id of [lab, archive]) {
    if (base === null) {
      await api.world.services.admin.endpoints.setStorage(id, { type: 'memory' });
      api.runtime.storages.treeOf(id).replace(tree);
      continue;
    }
    const root = `${base}/${id}`;
    mkdirSync(root);
    for (const [path, content] of Object.entries(tree)) {
      mkdirSync(`${root}${content === null ? path : path.slice(0, path.lastIndexOf('/'))}`, { recursive: true });
      if (content !== null) writeFileSync(`${root}${path}`, content);
    }
    await api.world.services.admin.endpoints.setStorage(id, { type: 'posix', root });
  }
  const workers = await api.runtime.startTaskWorkers({ concurrency: 2, pollMs: 20, retryMs: 100, sweepMs: 50 });
  const server = api.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}/`;

  /** A task once `done` says so (polled as the SDK's task_wait does), within 30 s (a loaded machine running the whole suite takes its time). */
  const until = async (token: string, taskId: string, done: (task: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      const task = (await api.as(token).get(`/task/${taskId}`)).body as Record<string, unknown>;
      if (done(task)) return task;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`task ${taskId} did not get there`);
  };
  return {
    api,
    /** The task workers (2 at once, polling every 20 ms, a waiting task tried again after 0.1 s). */
    workers,
    alice,
    bob,
    lab,
    archive,
    /** Where a posix endpoint's root is (null on memory). */
    rootOf: (endpointId: string) => (base === null ? null : `${base}/${endpointId}`),
    /** An endpoint's file as its storage holds it (null: none). */
    content(endpointId: string, path: string): string | null {
      if (base === null) return api.runtime.storages.treeOf(endpointId).files()[path] ?? null;
      try {
        return readFileSync(`${base}/${endpointId}${path}`, 'utf8');
      } catch {
        return null;
      }
    },
    submissionId: async (token: string) => (await api.as(token).get('/submission_id')).body.value as string,
    until,
    /** The task once it is no longer ACTIVE. */
    finished: (token: string, taskId: string) => until(token, taskId, (task) => task.status !== 'ACTIVE'),
    /** Bearer options for @globus/sdk. */
    sdk: (token: string) => ({ headers: { Authorization: `Bearer ${token}` } }),
    async close() {
      await new Promise((resolve) => server.close(resolve));
      delete process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER;
      await api.close();
      if (base) rmSync(base, { recursive: true, force: true });
    },
  };
}

export type TaskApi = Awaited<ReturnType<typeof startTaskApi>>;
