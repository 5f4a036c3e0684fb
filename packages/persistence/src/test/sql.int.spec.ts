import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashSessionSecret, hashToken, newIdentity, newTask } from '@xfer/core';
import { transferRequest } from '@xfer/core/testing';
import { openEngine } from '../engine/openEngine';
import { testBackends } from '../testing';
import { typeormRepositories } from '../TypeormUnitOfWork';

describe.each(testBackends())('Sql reads on $name', (backend) => {
  it('keep answering when a table gains a column after its reads were prepared (a migration by a newer instance)', async () => {
    const database = await backend.create();
    const engine = await openEngine(database.url, { readCache: false });
    try {
      const sql = engine.sql(engine.dataSource.manager);
      await engine.dataSource.query("INSERT INTO settings (key, value) VALUES ('probe', 'one')");
      const read = () => sql.rows<Record<string, unknown>>('SELECT * FROM settings WHERE key = ?', ['probe']);
      // several at once, so that several pooled connections prepare the read
      for (const rows of await Promise.all([read(), read(), read(), read()])) expect(rows).toEqual([expect.objectContaining({ key: 'probe', value: 'one' })]);
      await engine.dataSource.query('ALTER TABLE settings ADD COLUMN note varchar(20)');
      for (const rows of await Promise.all([read(), read(), read(), read()])) expect(rows).toEqual([{ key: 'probe', value: 'one', note: null }]);
    } finally {
      await engine.close();
      await database.drop();
    }
  });
});

describe.each(testBackends())("a task's stored counters on $name", (backend) => {
  it('keep the names rows were first written with, whatever core calls them, both ways', async () => {
    const database = await backend.create();
    const engine = await openEngine(database.url, { readCache: false });
    try {
      const tasks = typeormRepositories(engine, engine.dataSource.manager).tasks;
      const now = new Date('2026-03-04T05:06:07Z');
      const task = newTask('00000000-0000-4000-8000-000000000001', 'owner', transferRequest({ submission_id: '00000000-0000-4000-8000-000000000002', source_endpoint: 'e1', destination_endpoint: 'e2', items: [{ source_path: '/a', destination_path: '/b' }] }), now);
      await tasks.add({ ...task, counters: { ...task.counters, filesTransferred: 7, bytesTransferred: 70, subtasksSkippedErrors: 1 } });
      const [row] = (await engine.dataSource.query('SELECT counters FROM tasks')) as { counters: string }[];
      expect(JSON.parse(row!.counters)).toMatchObject({ files_transferred: 7, bytes_transferred: 70, subtasks_skipped_errors: 1, subtasks_total: 1 });
      // a row as an earlier version wrote it reads as core's counters
      await engine.dataSource.query(`UPDATE tasks SET counters = '${JSON.stringify({ ...JSON.parse(row!.counters), files_transferred: 9 })}'`);
      expect((await tasks.findById(task.id))?.counters).toMatchObject({ filesTransferred: 9, bytesTransferred: 70, subtasksTotal: 1 });
    } finally {
      await engine.close();
      await database.drop();
    }
  });
});

describe.each(testBackends())('the read cache on $name', (backend) => {
  it('forgets a signed-in session that another instance ended', async () => {
    // two instances on one database: SQLite needs a file for that
    const dir = backend.name === 'sqlite' ? mkdtempSync(join(tmpdir(), 'xfer-cache-')) : null;
    const database = dir ? { url: `sqlite:${join(dir, 'xfer.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) } : await backend.create();
    const [one, other] = [await openEngine(database.url), await openEngine(database.url)];
    try {
      const now = new Date();
      const alice = newIdentity({ id: 'a1', username: 'alice', name: 'Alice', email: null, now });
      await typeormRepositories(one, one.dataSource.manager).identities.add(alice);
      const hash = hashSessionSecret('cookie');
      await typeormRepositories(one, one.dataSource.manager).sessions.add({ id_hash: hash, identity_id: alice.id, created_at: now, expires_at: new Date(now.getTime() + 60_000) });
      const read = () => typeormRepositories(one, one.dataSource.manager).sessions.findHolder(hash);
      expect((await read())?.identity.username).toBe('alice');
      expect((await read())?.identity.username).toBe('alice');
      await typeormRepositories(other, other.dataSource.manager).sessions.delete(hash);
      // the next request after a commit elsewhere comes in a later turn of the event loop
      await new Promise((resolve) => setImmediate(resolve));
      expect(await read()).toBeNull();
    } finally {
      await one.close();
      await other.close();
      await database.drop();
    }
  });

  it("forgets a client whose secret another instance changed or that it removed (every introspection authenticates one)", async () => {
    const dir = backend.name === 'sqlite' ? mkdtempSync(join(tmpdir(), 'xfer-cache-')) : null;
    const database = dir ? { url: `sqlite:${join(dir, 'xfer.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) } : await backend.create();
    const [one, other] = [await openEngine(database.url), await openEngine(database.url)];
    try {
      const client = { id: 'c4e1d3a2-5b6c-4d7e-8f90-a1b2c3d4e5f6', display_name: 'Resource server', branding: { logo_url: null, primary_color: null, background_color: null }, redirect_uris: [], public_client: false, secret_hash: hashToken('first'), resource_server: 'transfer.api.globus.org', template_id: null, created_at: new Date() };
      await typeormRepositories(other, other.dataSource.manager).clients.add(client);
      const read = () => typeormRepositories(one, one.dataSource.manager).clients.findById(client.id);
      const laterTurn = () => new Promise((resolve) => setImmediate(resolve));
      expect((await read())?.secret_hash).toBe(hashToken('first'));
      expect((await read())?.secret_hash).toBe(hashToken('first'));
      await typeormRepositories(other, other.dataSource.manager).clients.update({ ...client, secret_hash: hashToken('second') });
      await laterTurn();
      expect((await read())?.secret_hash).toBe(hashToken('second'));
      await typeormRepositories(other, other.dataSource.manager).clients.delete(client.id);
      await laterTurn();
      expect(await read()).toBeNull();
    } finally {
      await one.close();
      await other.close();
      await database.drop();
    }
  });

  it("forgets which endpoints a caller's tasks use when another instance adds a task or ends one (`in_use`)", async () => {
    const dir = backend.name === 'sqlite' ? mkdtempSync(join(tmpdir(), 'xfer-cache-')) : null;
    const database = dir ? { url: `sqlite:${join(dir, 'xfer.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) } : await backend.create();
    const [one, other] = [await openEngine(database.url), await openEngine(database.url)];
    try {
      const owner = 'b5d0c7a4-3f8e-4f4b-9a51-1f9b8c6d2e10';
      const [source, destination] = ['0b7e6c1e-2a44-4b7e-8f0e-5d3c2b1a0f01', '0b7e6c1e-2a44-4b7e-8f0e-5d3c2b1a0f02'];
      const inUse = async () => (await typeormRepositories(one, one.dataSource.manager).tasks.activeEndpointIds([owner])).sort();
      const laterTurn = () => new Promise((resolve) => setImmediate(resolve));
      expect(await inUse()).toEqual([]);
      expect(await inUse()).toEqual([]);
      const task = newTask('7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f', owner, transferRequest({ submission_id: 's1', source_endpoint: source, destination_endpoint: destination, items: [{ source_path: '/a', destination_path: '/b' }] }), new Date());
      await typeormRepositories(other, other.dataSource.manager).tasks.add(task);
      await laterTurn();
      expect(await inUse()).toEqual([source, destination]);
      expect(await inUse()).toEqual([source, destination]);
      await typeormRepositories(other, other.dataSource.manager).tasks.saveProgress({ ...task, status: 'SUCCEEDED', niceStatus: null, completionTime: new Date() });
      await laterTurn();
      expect(await inUse()).toEqual([]);
    } finally {
      await one.close();
      await other.close();
      await database.drop();
    }
  });
});
