import { Writable } from 'node:stream';
import { Runtime } from '@xfer/runtime';
import { createLogger } from '@xfer/server-kit';
import supertest from 'supertest';
import { createApp } from '../http/app';
import { BACKENDS, startApi, V } from './harness';

/** What an operator relies on: one JSON log line per request, health and readiness. */
describe.each(BACKENDS)('operating the API on $name', (backend) => {
  it('logs one JSON line per request with method, path, status, duration, request id and identity, never the token', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString().trim().split('\n').map((l: string) => JSON.parse(l)));
        done();
      },
    });
    const api = await startApi(backend, { logger: createLogger({ destination: sink }) });
    try {
      const alice = await api.world.user('alice');
      const ok = await api.as(alice.token).post('/endpoint', { display_name: 'Logged' });
      const denied = await api.as('xfer_wrong_token').get('/endpoint/x');
      await new Promise((r) => setImmediate(r));
      const byId = (id: string) => lines.find((l) => l.request_id === id)!;
      expect(byId(ok.body.request_id)).toMatchObject({
        level: 30,
        msg: 'request completed',
        req: { method: 'POST', path: '/v0.10/endpoint' },
        res: { status: 201 },
        identity_id: alice.id,
        duration_ms: expect.any(Number),
      });
      expect(byId(denied.body.request_id)).toMatchObject({ res: { status: 401 }, identity_id: null });
      const text = JSON.stringify(lines);
      expect(text).not.toContain(alice.token);
      expect(text).not.toContain('xfer_wrong_token');
      expect(text).not.toMatch(/authorization/i);
    } finally {
      await api.close();
    }
  });

  it('answers /healthz and /readyz without a token', async () => {
    const api = await startApi(backend);
    try {
      expect((await api.http.get('/healthz')).body).toEqual({ status: 'ok' });
      expect((await api.http.get('/readyz')).body).toEqual({ status: 'ready' });
      expect((await api.http.get(`${V}/endpoint/x`)).status).toBe(401);
    } finally {
      await api.close();
    }
  });

  it('answers 503 ServiceUnavailable with Retry-After in maintenance mode, and recovers within a second of it ending', async () => {
    const api = await startApi(backend);
    try {
      const alice = await api.world.user('alice');
      await api.world.services.admin.maintenance.set(true, { message: 'Storage upgrade', retryAfterSeconds: 120 });
      const res = await api.as(alice.token).get('/endpoint/x');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('120');
      expect(res.body).toMatchObject({ code: 'ServiceUnavailable', message: 'Storage upgrade', request_id: expect.any(String) });
      expect((await api.http.get('/healthz')).status).toBe(200);
      await api.world.services.admin.maintenance.set(false);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await api.as(alice.token).get('/endpoint/x')).status).toBe(404);
    } finally {
      await api.close();
    }
  });

  it('is not ready while migrations are pending', async () => {
    const database = await backend.create();
    const runtime = await Runtime.open({ kind: 'server', databaseUrl: database.url, migrate: false });
    try {
      const app = createApp(runtime.appServices, { logger: createLogger({ level: 'silent' }) });
      const res = await supertest(app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body.reason).toContain('migrations are pending');
    } finally {
      await runtime.close();
      await database.drop();
    }
  });
});
