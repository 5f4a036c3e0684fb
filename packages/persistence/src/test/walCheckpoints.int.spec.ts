import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Endpoint, newIdentity } from '@xfer/core';
import Database from 'better-sqlite3';
import { openEngine } from '../engine/openEngine';
import { TypeormUnitOfWork } from '../TypeormUnitOfWork';
import { RESET_WAL_PAGES } from '../engine/sqlite/WalCheckpoints';
import type { SqliteEngine } from '../engine/sqlite/SqliteEngine';
import type { EngineInternals as Engine } from '../engine/Engine';

describe('the WAL of an SQLite file', () => {
  let directory: string;
  let file: string;
  let engine: Engine;
  let unitOfWork: TypeormUnitOfWork;
  const now = new Date('2026-01-01T00:00:00Z');
  const owner = newIdentity({ id: randomUUID(), username: 'alice@example.org', name: 'Alice', email: null, now });

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'xfer-wal-'));
    file = join(directory, 'xfer.sqlite');
    engine = await openEngine(`sqlite:${file}`);
    unitOfWork = new TypeormUnitOfWork(engine);
  });
  afterEach(async () => {
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /** One commit each, as the API's creates are, with a turn of the event loop between them as a server has between requests. */
  const createOneByOne = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const endpoint = Endpoint.create({ display_name: `Ocean storage ${i}`, personal: false, servers: [] }, { id: randomUUID(), owner, now, subscriptionId: null, setupKey: randomUUID() });
      await unitOfWork.transaction((repositories) => repositories.endpoints.insert(endpoint));
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const autocheckpoint = async () => ((await engine.dataSource.query('PRAGMA wal_autocheckpoint')) as { wal_autocheckpoint: number }[])[0].wal_autocheckpoint;
  /**
   * The rows of a table in the database file alone, as the checkpoints left it (a copy of it,
   * without the WAL); 0 if the table is not in it yet, null if the copy caught a checkpoint
   * half-way (its pages from before and after: SQLite calls it malformed), so take another.
   */
  const countInDatabaseFile = (table: string): number | null => {
    const copy = join(directory, 'copy.sqlite');
    copyFileSync(file, copy);
    const db = new Database(copy, { readonly: true });
    try {
      const exists = db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(table);
      return exists ? (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n : 0;
    } catch (error) {
      if (['SQLITE_CORRUPT', 'SQLITE_NOTADB'].includes((error as { code?: string }).code ?? '')) return null;
      throw error;
    } finally {
      db.close();
      rmSync(copy);
    }
  };

  it('is copied into the database file by a thread of its own, not by the commits of the event loop', async () => {
    expect(await autocheckpoint()).toBe(0);
    // far fewer pages than SQLite's automatic checkpoint waits for (1,000)
    await createOneByOne(5);
    await (engine as SqliteEngine).background.checkpoints!.settled();
    expect(countInDatabaseFile('endpoints')).toBe(5);
  });

  it('stays bounded under writes that never pause', async () => {
    // 4,000 creates of about 20 pages each, at full speed: eight times RESET_WAL_PAGES, where
    // the thread alone never reaches the end of the WAL, which then grows by all of it (370 MB)
    await createOneByOne(4000);
    expect(statSync(`${file}-wal`).size).toBeLessThan(3 * RESET_WAL_PAGES * 4096);
  }, 60_000);

  it('is copied by the thread also after writes that no transaction of the unit of work made', async () => {
    // as the seed and the migrations write: straight to the connection, so afterWrite never hears of them
    await engine.dataSource.query("CREATE TABLE bulk (text TEXT)");
    await engine.dataSource.query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO bulk SELECT printf('%.1000c', 'x') FROM n");
    const deadline = Date.now() + 10_000;
    let rows = countInDatabaseFile('bulk');
    while (rows !== 2000 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rows = countInDatabaseFile('bulk');
    }
    expect(rows).toBe(2000);
  });

  it('is copied by the main connection again once the thread has stopped', async () => {
    await (engine as SqliteEngine).background.checkpoints!.close();
    expect(await autocheckpoint()).toBe(1000);
  });
});
