import type { DataSource } from 'typeorm';

/**
 * SQLite: the statistics ANALYZE gathers, without STAT4's samples. better-sqlite3's SQLite is built
 * with STAT4, and a statement that compares a bound value with an indexed column that has samples
 * is prepared again whenever that value changes, so on every run: at 1,000,000 endpoints after the
 * seed's ANALYZE, an endpoint with the caller's roles by id took 84 us instead of 31, and FTS5's
 * own lookup of a word in each segment was prepared again each time (a word alone 68 us instead of
 * 18, half of it in SQLite's parser). sqlite_stat1's row counts stay, which is what the planner
 * needs for these queries.
 */
export async function analyze(dataSource: DataSource): Promise<void> {
  await dataSource.query('ANALYZE');
  await dropStat4Samples(dataSource);
}

/**
 * Removes STAT4's samples (see analyze) from an SQLite database that has some: one analyzed by an
 * operator or by an earlier seed. The engine does at start.
 */
export async function dropStat4Samples(dataSource: DataSource): Promise<void> {
  const [table] = (await dataSource.query(`SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat4'`)) as unknown[];
  if (!table) return;
  const [{ samples }] = (await dataSource.query('SELECT count(*) AS samples FROM sqlite_stat4')) as { samples: number }[];
  if (samples === 0) return;
  await dataSource.query('DELETE FROM sqlite_stat4');
  // the connection's planner reads the statistics again (others read them when they open)
  await dataSource.query('ANALYZE sqlite_schema');
}
