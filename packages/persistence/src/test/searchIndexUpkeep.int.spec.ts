import { randomUUID } from 'node:crypto';
import { Endpoint, newIdentity } from '@xfer/core';
import { openEngine } from '../engine/openEngine';
import type { SqliteEngine } from '../engine/sqlite/SqliteEngine';
import { TypeormUnitOfWork } from '../TypeormUnitOfWork';
import type { EngineInternals as Engine } from '../engine/Engine';

describe('the SQLite search index after a run of small writes', () => {
  let engine: Engine;
  let unitOfWork: TypeormUnitOfWork;
  const now = new Date('2026-01-01T00:00:00Z');
  const owner = newIdentity({ id: randomUUID(), username: 'alice@example.org', name: 'Alice', email: null, now });

  beforeEach(async () => {
    engine = await openEngine('sqlite::memory:');
    unitOfWork = new TypeormUnitOfWork(engine);
  });
  afterEach(() => engine.close());

  /** FTS5 writes an index segment at every commit that changes it; every search reads each one. */
  const segments = async () => ((await engine.dataSource.query('SELECT count(DISTINCT segid) AS n FROM endpoint_search_idx')) as { n: number }[])[0].n;
  const endpoint = (i: number) => Endpoint.create({ display_name: `Ocean storage ${i}`, public: true, personal: false, servers: [] }, { id: randomUUID(), owner, now, subscriptionId: null, setupKey: randomUUID() });
  /** One commit each, as the API's creates are. */
  const createOneByOne = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const created = endpoint(i);
      await unitOfWork.transaction((repositories) => repositories.endpoints.insert(created));
    }
  };
  const search = (limit: number) => unitOfWork.repositories.endpoints.search({ terms: ['ocean'], visibleTo: { principalIds: [owner.id], roles: ['administrator'] }, offset: 0, limit });

  it('is merged down to a segment or two after the writes, and still finds every endpoint', async () => {
    // FTS5's automerge alone leaves 10 segments after these 100 commits
    await createOneByOne(100);
    await (engine as SqliteEngine).background.upkeep!.settled();
    expect(await segments()).toBeLessThanOrEqual(2);
    expect(await search(100)).toHaveLength(100);
  });

  it('waits for a transaction open on the one connection to end, so that no merge joins it', async () => {
    await createOneByOne(30);
    const inside = await unitOfWork.transaction(async (repositories) => {
      await repositories.endpoints.insert(endpoint(30));
      // past the merge's delay
      await new Promise((resolve) => setTimeout(resolve, 200));
      return segments();
    });
    expect(inside).toBeGreaterThan(2);
    await (engine as SqliteEngine).background.upkeep!.settled();
    expect(await segments()).toBeLessThanOrEqual(2);
    expect(await search(100)).toHaveLength(31);
  });
});
