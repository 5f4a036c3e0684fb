import { openEngine } from '../engine/openEngine';
import { PIPELINED_READ_CONNECTIONS } from '../engine/postgres/PipelinedReads';
import type { Sql } from '../engine/Sql';
import { freshPostgresDatabase, testPostgresUrl } from '../testing';
import type { EngineInternals as Engine } from '../engine/Engine';

// the global setup starts a Postgres (the system's or the embedded one) unless XFER_TEST_SKIP names it
const postgresIt = testPostgresUrl() ? it : it.skip;

describe('pipelined reads on Postgres', () => {
  let database: { url: string; drop(): Promise<void> };
  let engine: Engine;
  let sql: Sql;
  const read = (n: number) => sql.rows<{ pid: number; n: number }>('SELECT pg_backend_pid() AS pid, ?::int AS n', [n]);

  beforeEach(async () => {
    if (!testPostgresUrl()) return;
    database = await freshPostgresDatabase(testPostgresUrl()!);
    // a pool larger than the pipelined connections: reads that took the pool would use more backends
    engine = await openEngine(database.url, { poolSize: 6, readCache: false });
    sql = engine.sql(engine.dataSource.manager);
  });

  afterEach(async () => {
    if (!testPostgresUrl()) return;
    await engine.close();
    await database.drop();
  });

  postgresIt('answers many reads at once, each with its own rows, on the pipelined connections only', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, n) => read(n)));
    expect(answers.map((rows) => rows.map((row) => row.n))).toEqual(Array.from({ length: 40 }, (_, n) => [n]));
    expect(new Set(answers.map(([row]) => row.pid)).size).toBe(PIPELINED_READ_CONNECTIONS);
  });

  /** Runs the reads at once; the labels in the order their answers came. */
  const answerOrder = async (reads: Record<string, Promise<unknown>>) => {
    const order: string[] = [];
    await Promise.all(Object.entries(reads).map(([label, answer]) => answer.then(() => order.push(label))));
    return order;
  };

  postgresIt('sends a slow read to the pool: a read written after it on the pipelined connection is answered first', async () => {
    await read(0);
    expect(await answerOrder({ slow: sql.rows('SELECT pg_sleep(1)', [], { slow: true }), quick: read(1) })).toEqual(['quick', 'slow']);
  });

  postgresIt('runs a search of a very short term on the pool, and one of a longer term behind the pipelined reads', async () => {
    const searcher = engine.endpointSearch(engine.dataSource.manager);
    const search = (term: string) => searcher.search({ terms: [term], visibleTo: { principalIds: ['a-caller'], roles: ['administrator'] }, offset: 0, limit: 10 });
    await read(0);
    // the pipelined connection is busy for a second
    expect(await answerOrder({ pipelined: sql.rows('SELECT pg_sleep(1)'), short: search('st'), longer: search('stor') })).toEqual(['short', 'pipelined', 'longer']);
  });

  postgresIt('fails a read that fails, and answers the reads written before and after it', async () => {
    const results = await Promise.allSettled([read(1), sql.rows('SELECT 1 / (? - 2) AS n', [2]), read(3), read(4), read(5)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: '22012' });
    expect(results.flatMap((r) => (r.status === 'fulfilled' ? (r.value as { n: number }[]).map((row) => row.n) : []))).toEqual([1, 3, 4, 5]);
  });

  postgresIt('opens another connection when the database ends one', async () => {
    const before = new Set((await Promise.all(Array.from({ length: 8 }, (_, n) => read(n)))).map(([row]) => row.pid));
    await engine.dataSource.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY($1)', [[...before]]);
    // reads written before the connection's end reaches this process may fail with it; later ones are answered
    let answered: { pid: number; n: number }[] | null = null;
    for (let attempt = 0; attempt < 50 && answered === null; attempt++) {
      answered = await read(7).catch(() => null);
      if (answered === null) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(answered).toEqual([{ pid: expect.any(Number), n: 7 }]);
    expect(before.has(answered![0].pid)).toBe(false);
  });
});
