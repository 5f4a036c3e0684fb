import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCoreServices, randomIdGenerator, systemClock } from '@xfer/core';
import { openEngine, TypeormUnitOfWork } from '@xfer/persistence';
import { freePort } from '@xfer/server-kit';
import { BACKENDS } from './harness';

/**
 * The built API (`node apps/api/dist/main.js`, what `npm run start:api` runs) as real processes:
 * killed in the middle of a burst of creates, and two of them on one Postgres database.
 */
const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');

async function startApiProcess(databaseUrl: string): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], { env: { ...process.env, DATABASE_URL: databaseUrl, API_PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = `http://127.0.0.1:${port}/v0.10`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await fetch(`${url}/endpoint/x`);
      return { url, process: child };
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`API process did not start (exit ${child.exitCode})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function withServices<T>(databaseUrl: string, work: (services: ReturnType<typeof createCoreServices>, uow: TypeormUnitOfWork) => Promise<T>): Promise<T> {
  const engine = await openEngine(databaseUrl);
  try {
    const uow = new TypeormUnitOfWork(engine);
    return await work(createCoreServices(uow, systemClock, randomIdGenerator), uow);
  } finally {
    await engine.close();
  }
}

const call = (url: string, token: string, method: string, body?: unknown) =>
  fetch(url, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

describe.each(BACKENDS)('API processes on $name', (backend) => {
  let dir: string;
  let databaseUrl: string;
  let drop: () => Promise<void>;
  let token: string;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-proc-'));
    if (backend.name === 'sqlite') {
      databaseUrl = `sqlite:${join(dir, 'xfer.sqlite')}`;
      drop = async () => undefined;
    } else {
      ({ url: databaseUrl, drop } = await backend.create());
    }
    token = await withServices(databaseUrl, async (s) => {
      await s.admin.identities.addIdentity({ username: 'alice' });
      return (await s.admin.tokens.issueToken('alice')).token;
    });
  });

  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged create when the process is killed in the middle of a burst', async () => {
    const api = await startApiProcess(databaseUrl);
    children.push(api.process);
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await call(`${api.url}/endpoint`, token, 'POST', { display_name: `crash ${w}-${i}`, DATA: [{ hostname: 'a.example.org' }] });
          if (res.status === 201) acknowledged.push(((await res.json()) as { id: string }).id);
        } catch {
          return; // the process is gone
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    while (acknowledged.length < 150) await new Promise((r) => setTimeout(r, 5));
    api.process.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    if (api.process.exitCode === null && api.process.signalCode === null) await once(api.process, 'exit');

    await withServices(databaseUrl, async (_s, uow) => {
      const found = await uow.repositories.endpoints.findByIds(acknowledged);
      expect(found.map((e) => e.id).sort()).toEqual([...acknowledged].sort());
      for (const endpoint of found) expect(endpoint.listServers()).toHaveLength(1);
      for (const id of acknowledged) {
        expect((await uow.repositories.roles.listForEndpoint(id)).map((a) => a.role)).toEqual(['administrator']);
      }
    });
    if (backend.name === 'sqlite') {
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(databaseUrl.slice('sqlite:'.length));
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
    }
  }, 60_000);

  it('finishes requests in flight on SIGTERM and exits 0', async () => {
    const api = await startApiProcess(databaseUrl);
    children.push(api.process);
    const inFlight = Array.from({ length: 20 }, (_, i) => call(`${api.url}/endpoint`, token, 'POST', { display_name: `last ${i}` }));
    await new Promise((r) => setTimeout(r, 5));
    api.process.kill('SIGTERM');
    const settled = await Promise.allSettled(inFlight);
    const [code] = await once(api.process, 'exit');
    expect(code).toBe(0);
    // a request either got its answer or was refused before it started: none was cut off half-done
    const answered = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.status] : []));
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.every((status) => status === 201)).toBe(true);
    const ids = await Promise.all(settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.json() as Promise<{ id: string }>] : [])));
    await withServices(databaseUrl, async (_s, uow) => {
      expect(await uow.repositories.endpoints.findByIds(ids.map((i) => i.id))).toHaveLength(ids.length);
    });
  }, 60_000);

  it('sees a change made by another process on the very next request, in every instance', async () => {
    const [a, b] = [await startApiProcess(databaseUrl), await startApiProcess(databaseUrl)];
    children.push(a.process, b.process);
    const bob = await withServices(databaseUrl, async (s) => {
      await s.admin.identities.addIdentity({ username: 'bob' });
      await s.admin.identities.addIdentity({ username: 'bob-elsewhere' });
      await s.admin.identities.addGroup('readers');
      return (await s.admin.tokens.issueToken('bob')).token;
    });
    const created = (await (await call(`${a.url}/endpoint`, token, 'POST', { display_name: 'Watched' })).json()) as { id: string };
    const statusFor = (who: string) => Promise.all([a, b].map(async (api) => (await call(`${api.url}/endpoint/${created.id}`, who, 'GET')).status));
    // each instance has read (and may remember) what bob's token stands for and what he may see
    expect(await statusFor(bob)).toEqual([403, 403]);
    expect(await statusFor(bob)).toEqual([403, 403]);

    // a role for a group bob joins
    await withServices(databaseUrl, async (s) => {
      await s.admin.endpoints.grantRole(created.id, 'activity_monitor', 'readers');
      await s.admin.identities.addGroupMember('readers', 'bob');
    });
    expect(await statusFor(bob)).toEqual([200, 200]);
    await withServices(databaseUrl, (s) => s.admin.identities.removeGroupMember('readers', 'bob'));
    expect(await statusFor(bob)).toEqual([403, 403]);

    // a role held by an identity linked into bob's set
    const roleId = await withServices(databaseUrl, async (s) => {
      const id = await s.admin.endpoints.grantRole(created.id, 'activity_monitor', 'bob-elsewhere');
      await s.admin.identities.linkIdentities('bob', 'bob-elsewhere');
      return id;
    });
    expect(await statusFor(bob)).toEqual([200, 200]);
    await withServices(databaseUrl, (s) => s.admin.endpoints.revokeRole(roleId));
    expect(await statusFor(bob)).toEqual([403, 403]);

    // a revoked token
    expect(await statusFor(token)).toEqual([200, 200]);
    await withServices(databaseUrl, (s) => s.admin.tokens.revokeToken(token));
    expect(await statusFor(token)).toEqual([401, 401]);
  }, 60_000);

  it('security review two, finding 3: two processes writing one database at once answer no 5xx and keep every acknowledged write', async () => {
    const [a, b] = [await startApiProcess(databaseUrl), await startApiProcess(databaseUrl)];
    children.push(a.process, b.process);
    const ids = await Promise.all(
      [a, b].map(async (api, n) => ((await (await call(`${api.url}/endpoint`, token, 'POST', { display_name: `Busy ${n}` })).json()) as { id: string }).id),
    );
    // 300 requests at once, half on each process: updates that read then write, and creates
    const requests = Array.from({ length: 300 }, (_, i) => {
      const api = i % 2 === 0 ? a : b;
      return i % 3 === 0
        ? call(`${api.url}/endpoint`, token, 'POST', { display_name: `Made ${i}` }).then(async (res) => ({ i, status: res.status, body: (await res.json()) as { id?: string } }))
        : call(`${api.url}/endpoint/${ids[i % 2]}`, token, 'PUT', { description: `update ${i}` }).then(async (res) => ({ i, status: res.status, body: (await res.json()) as { id?: string } }));
    });
    const answers = await Promise.all(requests);
    expect(answers.filter((x) => x.status >= 500).map((x) => `${x.i}: ${x.status} ${JSON.stringify(x.body)}`)).toEqual([]);
    expect(new Set(answers.map((x) => x.status))).toEqual(new Set([200, 201]));
    const created = answers.flatMap((x) => (x.status === 201 ? [x.body.id!] : []));
    expect(created).toHaveLength(100);
    await withServices(databaseUrl, async (_s, uow) => {
      expect(await uow.repositories.endpoints.findByIds(created)).toHaveLength(100);
    });
  }, 90_000);

  if (backend.name === 'postgres') {
    it('serves as one service from two processes on one database', async () => {
      const [a, b] = [await startApiProcess(databaseUrl), await startApiProcess(databaseUrl)];
      children.push(a.process, b.process);
      const created = (await (await call(`${a.url}/endpoint`, token, 'POST', { display_name: 'Shared state' })).json()) as { id: string };
      const readByB = await call(`${b.url}/endpoint/${created.id}`, token, 'GET');
      expect(readByB.status).toBe(200);
      expect(((await readByB.json()) as { display_name: string }).display_name).toBe('Shared state');
      expect((await call(`${b.url}/endpoint/${created.id}`, token, 'PUT', { description: 'written by B' })).status).toBe(200);
      expect(((await (await call(`${a.url}/endpoint/${created.id}`, token, 'GET')).json()) as { description: string }).description).toBe('written by B');
      expect((await call(`${a.url}/endpoint/${created.id}`, token, 'DELETE')).status).toBe(200);
      expect((await call(`${b.url}/endpoint/${created.id}`, token, 'GET')).status).toBe(409);
    }, 60_000);
  }
});
