import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Endpoint, newIdentity } from '@xfer/core';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../dataSource';
import { TypeormUnitOfWork } from '../TypeormUnitOfWork';
import { RESET_WAL_PAGES, walCheckpointsOf } from '../walCheckpoints';

describe('the WAL of an SQLite file', () => {
  let directory: string;
  let file: string;
  let dataSource: DataSource;
  let unitOfWork: TypeormUnitOfWork;
  const now = new Date('2026-01-01T00:00:00Z');
  const owner = newIdentity({ id: randomUUID(), username: 'alice@example.org', name: 'Alice', email: null, now });

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'xfer-wal-'));
    file = join(directory, 'xfer.sqlite');
    dataSource = await openDatabase(`sqlite:${file}`);
    unitOfWork = new TypeormUnitOfWork(dataSource);
  });
  afterEach(async () => {
    await dataSource.destroy();
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
  const autocheckpoint = async () => ((await dataSource.query('PRAGMA wal_autocheckpoint')) as { wal_autocheckpoint: number }[])[0].wal_autocheckpoint;
  /** A PASSIVE checkpoint from the main connection: the WAL's frames, and how many of them are in the database file. */
  const wal = async () => ((await dataSource.query('PRAGMA wal_checkpoint(PASSIVE)')) as { log: number; checkpointed: number }[])[0];

  it('is copied into the database file by a thread of its own, not by the commits of the event loop', async () => {
    expect(await autocheckpoint()).toBe(0);
    // far fewer pages than SQLite's automatic checkpoint waits for (1,000)
    await createOneByOne(5);
    await walCheckpointsOf(dataSource)!.settled();
    const { log, checkpointed } = await wal();
    expect(log).toBeGreaterThan(0);
    expect(checkpointed).toBe(log);
  });

  it('stays bounded under writes that never pause', async () => {
    // 4,000 creates of about 20 pages each, at full speed: eight times RESET_WAL_PAGES, where
    // checkpoints that wait for no writer never catch up and the WAL grows by all of it (330 MB)
    await createOneByOne(4000);
    expect(statSync(`${file}-wal`).size).toBeLessThan(3 * RESET_WAL_PAGES * 4096);
  }, 60_000);

  it('is copied by the main connection again once the thread has stopped', async () => {
    await walCheckpointsOf(dataSource)!.close();
    expect(await autocheckpoint()).toBe(1000);
  });
});
