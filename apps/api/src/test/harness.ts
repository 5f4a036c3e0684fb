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
