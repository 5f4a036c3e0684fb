import { defaultPoolSize } from '../engine/postgres/postgresOptions';
import { openEngine } from '../engine/openEngine';
import { freshPostgresDatabase, testPostgresUrl } from '../testing';

describe('Postgres connections', () => {
  it('defaults to twice the cores, from 4 to 10', () => {
    expect([1, 2, 3, 5, 64].map((cores) => defaultPoolSize(cores))).toEqual([4, 4, 6, 10, 10]);
  });

  // the global setup starts a Postgres (the system's or the embedded one) unless XFER_TEST_SKIP names it
  (testPostgresUrl() ? it : it.skip)('keeps at most the pool size open, however many reads wait', async () => {
    const database = await freshPostgresDatabase(testPostgresUrl()!);
    const engine = await openEngine(database.url, { poolSize: 2 });
    try {
      const reads = Array.from({ length: 6 }, () => engine.dataSource.query('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)') as Promise<{ pid: number }[]>);
      const pids = new Set((await Promise.all(reads)).map(([row]) => row.pid));
      expect(pids.size).toBe(2);
    } finally {
      await engine.close();
      await database.drop();
    }
  });
});
