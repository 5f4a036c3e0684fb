import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Endpoint, newIdentity } from '@xfer/core';
import Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { dataSourceOptions, openMemoryEngine, writeMemoryTemplate } from '../engine/openEngine';
import type { MemoryTemplate } from '../engine/sqlite/memoryTemplate';
import type { SqliteEngine } from '../engine/sqlite/SqliteEngine';
import { MIGRATIONS } from '../migrations';
import { TypeormUnitOfWork } from '../TypeormUnitOfWork';

/** The stand-in's in-memory database begun from the build's migrated template. */
describe('the in-memory database of a stand-in', () => {
  let directory: string;
  let template: MemoryTemplate;
  const engines: SqliteEngine[] = [];

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'xfer-template-'));
    template = { file: join(directory, 'memory-template.sqlite'), build: join(directory, '.tsbuildinfo') };
    writeFileSync(template.build, '{}');
    // the build file a while before the template (a build, then the template written after it)
    utimesSync(template.build, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  });
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const open = async (from: MemoryTemplate) => {
    const engine = await openMemoryEngine({ template: from, background: false });
    engines.push(engine);
    return engine;
  };
  const schemaOf = (engine: SqliteEngine) => engine.dataSource.query("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name");
  const migrationsOf = async (engine: SqliteEngine) => ((await engine.dataSource.query('SELECT name FROM migrations ORDER BY id')) as { name: string }[]).map((row) => row.name);
  /** A table the template has and no migration makes: present when the template was used. */
  const markTemplate = () => {
    const db = new Database(template.file);
    db.exec('CREATE TABLE template_marker (x INTEGER)');
    db.close();
  };
  const hasMarker = async (engine: SqliteEngine) => ((await engine.dataSource.query("SELECT name FROM sqlite_master WHERE name = 'template_marker'")) as unknown[]).length === 1;

  it('begins as the template the build wrote: the schema and migrations of a migrated database, and writable', async () => {
    await writeMemoryTemplate(template.file);
    const migrated = await open({ file: join(directory, 'none.sqlite'), build: template.build });
    const copied = await open(template);
    expect(await schemaOf(copied)).toEqual(await schemaOf(migrated));
    expect(await migrationsOf(copied)).toEqual(MIGRATIONS.map((migration) => new migration().name));
    // the search index's triggers work on the copy
    const now = new Date('2026-01-01T00:00:00Z');
    const owner = newIdentity({ id: randomUUID(), username: 'alice@example.org', name: 'Alice', email: null, now });
    const endpoint = Endpoint.create({ display_name: 'Ocean bathymetry', personal: false, servers: [] }, { id: randomUUID(), owner, now, subscriptionId: null, setupKey: randomUUID() });
    await new TypeormUnitOfWork(copied).transaction((repositories) => repositories.endpoints.insert(endpoint));
    expect(await copied.dataSource.query("SELECT rowid FROM endpoint_search WHERE endpoint_search MATCH 'bathymetry'")).toHaveLength(1);
  });

  it('is not used once a build came after it (a migration may have changed): the migrations run', async () => {
    await writeMemoryTemplate(template.file);
    markTemplate();
    expect(await hasMarker(await open(template))).toBe(true);
    utimesSync(template.build, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
    const engine = await open(template);
    expect(await hasMarker(engine)).toBe(false);
    expect(await migrationsOf(engine)).toEqual(MIGRATIONS.map((migration) => new migration().name));
  });

  it('gets the migrations its template lacks', async () => {
    // a template of all but the newest migration
    const older = new DataSource({ ...dataSourceOptions('sqlite::memory:'), migrations: MIGRATIONS.slice(0, -1) });
    await older.initialize();
    await older.runMigrations({ transaction: 'each' });
    writeFileSync(template.file, (older.driver as unknown as { databaseConnection: Database.Database }).databaseConnection.serialize());
    await older.destroy();
    markTemplate();
    const engine = await open(template);
    expect(await hasMarker(engine)).toBe(true);
    expect(await migrationsOf(engine)).toEqual(MIGRATIONS.map((migration) => new migration().name));
  });
});
