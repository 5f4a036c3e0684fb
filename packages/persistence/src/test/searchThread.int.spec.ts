import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EndpointCriteria, SearchHit } from '@xfer/core';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../dataSource';
import { quickSearchThreadOf, searchThreadOf } from '../searchThread';
import { seedDatabase } from '../seed';
import { TypeormUnitOfWork } from '../TypeormUnitOfWork';

describe('searches on an SQLite file', () => {
  let directory: string;
  let dataSource: DataSource;
  // the seeded user: it owns a third of the endpoints, the ones that are not public
  let owner: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'xfer-search-thread-'));
    dataSource = await openDatabase(`sqlite:${join(directory, 'xfer.sqlite')}`);
    const { username } = await seedDatabase(dataSource, { endpoints: 3000 });
    [{ id: owner }] = await dataSource.query('SELECT id FROM identities WHERE username = ?', [username]);
  }, 60_000);

  afterAll(async () => {
    await dataSource.destroy();
    rmSync(directory, { recursive: true, force: true });
  });

  const search = (terms: string[]) =>
    new TypeormUnitOfWork(dataSource).repositories.endpoints.search({ terms, visibleTo: { principalIds: [owner], roles: ['administrator'] }, offset: 0, limit: 26 } as EndpointCriteria);

  it('do not hold up a search of few matches started after them', async () => {
    // both threads started first (a thread's start, once per process, is not what this measures)
    await Promise.all([search(['storage', '2047']), search(['storage', '1'])]);
    const finished: string[] = [];
    // "1" begins more words than a term is expanded into: about 1,100 matches, each ranked by its text
    const many = search(['storage', '1']).then((hits) => finished.push(`many: ${hits.length}`));
    // one common word, no prefix: thousands of matches too
    const common = search(['storage']).then((hits) => finished.push(`common: ${hits.length}`));
    // started once those two have left the event loop
    await new Promise((resolve) => setImmediate(resolve));
    const few = search(['storage', '2047']).then((hits) => finished.push(`few: ${hits.length}`));
    await Promise.all([many, common, few]);
    expect(finished[0]).toMatch(/^few: [1-9]$/);
    expect(finished.slice(1).sort()).toEqual(['common: 26', 'many: 26']);
  });

  it('are answered on the main thread once the search threads have stopped', async () => {
    const ranked = (hits: SearchHit[]) => hits.map((hit) => [hit.endpoint.id, hit.rank, hit.assignments.map((a) => a.role)]);
    const cases = [['storage', '1'], ['storage', '2046'], ['storage']];
    const before = await Promise.all(cases.map(search));
    // the threads' pages hold endpoints with the caller's roles, read beside them
    expect(before.map((hits) => hits.some((hit) => hit.assignments.length > 0))).toEqual([true, true, true]);
    await searchThreadOf(dataSource)!.close();
    expect(searchThreadOf(dataSource)).toBeNull();
    for (const [i, terms] of cases.entries()) expect(ranked(await search(terms))).toEqual(ranked(before[i]));
    await quickSearchThreadOf(dataSource)!.close();
    expect(quickSearchThreadOf(dataSource)).toBeNull();
    for (const [i, terms] of cases.entries()) expect(ranked(await search(terms))).toEqual(ranked(before[i]));
  });
});
