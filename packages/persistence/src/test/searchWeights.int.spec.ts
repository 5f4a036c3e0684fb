import { SEARCHED_FIELDS } from '@xfer/core';
import { openEngine } from '../engine/openEngine';
import { tsRankWeights, tsvectorLabel } from '../engine/postgres/searchIndex';
import { bm25Rank, FTS5_COLUMNS } from '../engine/sqlite/searchIndex';
import { testBackends } from '../testing';

/** The engines' index weights, derived from core's SEARCHED_FIELDS, against what the (frozen) migrations built. */
describe.each(testBackends())('the search index weights on $name', (backend) => {
  it('are the shared field weights, field by field, as the index was built', async () => {
    const database = await backend.create();
    const engine = await openEngine(database.url, { readCache: false });
    try {
      if (engine.name === 'sqlite') {
        const columns = ((await engine.dataSource.query('PRAGMA table_info(endpoint_search)')) as { name: string }[]).map((c) => c.name);
        expect(columns).toEqual(FTS5_COLUMNS);
        expect(bm25Rank()).toBe('-bm25(endpoint_search, 10, 4, 1, 2, 2, 4, 2)');
      } else {
        const [{ definition }] = (await engine.dataSource.query("SELECT pg_get_functiondef('endpoint_search_sync'::regproc) AS definition")) as { definition: string }[];
        // each setweight(...) of the trigger: the fields it covers and its label
        const built = new Map<string, string>();
        for (const [, body, label] of definition.matchAll(/setweight\(to_tsvector\('english'(?:::regconfig)?, (.*?)\), '([A-D])'/g)) {
          for (const [, field] of body.matchAll(/NEW\.(\w+)/g)) built.set(field, label);
        }
        expect(Object.fromEntries(built)).toEqual(Object.fromEntries(SEARCHED_FIELDS.map(([field]) => [field, tsvectorLabel(field)])));
        // Postgres's own defaults for D, C, B, A: what the search ranked with before the weights were derived
        expect(tsRankWeights()).toBe("'{0.1,0.2,0.4,1}'");
      }
    } finally {
      await engine.close();
      await database.drop();
    }
  });
});
