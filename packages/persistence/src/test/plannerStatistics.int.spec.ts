import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../dataSource';
import { seedDatabase } from '../seed';

describe("SQLite's planner statistics", () => {
  let directory: string;
  let url: string;
  const open: DataSource[] = [];
  const openHere = async () => {
    const dataSource = await openDatabase(url);
    open.push(dataSource);
    return dataSource;
  };
  /** Rows of sqlite_stat1 (the planner's row counts) and sqlite_stat4 (its samples). */
  const statistics = async (dataSource: DataSource) => {
    const [{ stat1, stat4 }] = (await dataSource.query(
      `SELECT (SELECT count(*) FROM sqlite_stat1) AS stat1, (SELECT count(*) FROM sqlite_stat4) AS stat4`,
    )) as { stat1: number; stat4: number }[];
    return { stat1, stat4 };
  };

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'xfer-statistics-'));
    url = `sqlite:${join(directory, 'xfer.sqlite')}`;
  });
  afterEach(async () => {
    for (const dataSource of open.splice(0)) if (dataSource.isInitialized) await dataSource.destroy();
    rmSync(directory, { recursive: true, force: true });
  });

  it('keep no STAT4 samples after the seed analyzed the catalogue, only row counts', async () => {
    const dataSource = await openHere();
    await seedDatabase(dataSource, { endpoints: 300 });
    const { stat1, stat4 } = await statistics(dataSource);
    expect(stat1).toBeGreaterThan(10);
    expect(stat4).toBe(0);
  }, 60_000);

  it('lose the STAT4 samples of an ANALYZE run by hand when the database is next opened', async () => {
    const first = await openHere();
    await seedDatabase(first, { endpoints: 300 });
    // as an operator might, or `PRAGMA optimize`
    await first.query('ANALYZE');
    expect((await statistics(first)).stat4).toBeGreaterThan(0);
    await first.destroy();
    const { stat1, stat4 } = await statistics(await openHere());
    expect(stat1).toBeGreaterThan(10);
    expect(stat4).toBe(0);
  }, 60_000);
});
