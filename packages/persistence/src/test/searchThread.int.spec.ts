import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EndpointCriteria, SearchHit } from '@xfer/core';
import { openEngine } from '../engine/openEngine';
import { Fts5Terms, fts5Match } from '../engine/sqlite/fts5';
import { SEARCHED_COLUMNS } from '../engine/sqlite/SearchThread';
import type { SqliteEngine } from '../engine/sqlite/SqliteEngine';
import { seedDatabase } from '../seed';
import { TypeormUnitOfWork } from '../TypeormUnitOfWork';
import type { EngineInternals as Engine } from '../engine/Engine';

describe('searches on an SQLite file', () => {
  let directory: string;
  let engine: Engine;
  // the seeded user: it owns a third of the endpoints, the ones that are not public
  let owner: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'xfer-search-thread-'));
    engine = await openEngine(`sqlite:${join(directory, 'xfer.sqlite')}`);
    const { username } = await seedDatabase(engine, { endpoints: 3000 });
    [{ id: owner }] = await engine.dataSource.query('SELECT id FROM identities WHERE username = ?', [username]);
  }, 60_000);

  afterAll(async () => {
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const search = (terms: string[]) =>
    new TypeormUnitOfWork(engine).repositories.endpoints.search({ terms, visibleTo: { principalIds: [owner], roles: ['administrator'] }, offset: 0, limit: 26 } as EndpointCriteria);

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

  /** Every match (up to 1,000), in the criteria's scope. */
  const searchAll = (terms: string[], scope: Partial<EndpointCriteria> = {}) =>
    new TypeormUnitOfWork(engine).repositories.endpoints.search({ terms, visibleTo: { principalIds: [owner], roles: ['administrator'] }, offset: 0, limit: 1000, ...scope } as EndpointCriteria);

  // security review two, finding 1: what one search costs is bounded, and one caller's costly search never holds up another's
  it("finds in a narrow scope, its endpoints' text matched one by one, what FTS5's MATCH finds", async () => {
    const sql = engine.sql(engine.dataSource.manager);
    // terms that stay prefixes (numbers, a letter) and stemmed words, in the owner's scope (narrow: text matched on the thread)
    for (const terms of [['storage', '1', '7'], ['storag', '1', '98'], ['archives', '2'], ['g', '5', 'seeded'], ['8', 'storages', 'imaging'], ['cl', '44']]) {
      const scoped = (await searchAll(terms, { ownedBy: [owner] })).map((hit) => hit.endpoint.id).sort();
      const match = fts5Match(await new Fts5Terms().expand(sql, terms))!;
      const fts5 = ((await engine.dataSource.query('SELECT e.id FROM endpoint_search s JOIN endpoints e ON e.rowid = s.rowid WHERE endpoint_search MATCH ? AND e.owner_id = ?', [match.query, owner])) as { id: string }[])
        .map((r) => r.id)
        .sort();
      expect({ terms, prefixed: match.prefixed, found: scoped.length > 0, same: scoped }).toEqual({ terms, prefixed: true, found: true, same: fts5 });
    }
  });

  it('answers a search sent while a costly one is under way before that one ends, on the same thread', async () => {
    const thread = (engine as SqliteEngine).background.searchThread!;
    const rows = { rows: 'SELECT e.id AS id FROM endpoints e WHERE e.id IN (SELECT value FROM json_each(?))', rowsParams: [] };
    const ranked = { page: 'SELECT e.id AS id, 0 AS rank FROM endpoints e LIMIT 0', pageParams: [], terms: ['storage'], offset: 0, limit: 25, ...rows };
    await thread.rank({ ...ranked, matches: `SELECT e.id AS id, ${SEARCHED_COLUMNS} FROM endpoints e LIMIT ?`, matchParams: [] });
    const finished: string[] = [];
    // every endpoint's text matched on the thread: many slices of its time
    const costly = thread
      .rank({ ...ranked, matches: `SELECT e.id AS id, ${SEARCHED_COLUMNS} FROM endpoints e LIMIT ?`, matchParams: [], textMatch: [{ term: 'storage', words: ['storag'] }] })
      .then(({ page }) => finished.push(`costly: ${page.length}`));
    const cheap = thread
      .rank({ ...ranked, matches: `SELECT e.id AS id, ${SEARCHED_COLUMNS} FROM endpoints e WHERE e.owner_id = ? LIMIT ?`, matchParams: [owner] })
      .then(({ page }) => finished.push(`cheap: ${page.length}`));
    await Promise.all([costly, cheap]);
    expect(finished).toEqual(['cheap: 25', 'costly: 25']);
  });

  it('are answered on the main thread once the search threads have stopped', async () => {
    const ranked = (hits: SearchHit[]) => hits.map((hit) => [hit.endpoint.id, hit.rank, hit.assignments.map((a) => a.role)]);
    const cases = [['storage', '1'], ['storage', '2046'], ['storage']];
    const before = await Promise.all(cases.map(search));
    // the threads' pages hold endpoints with the caller's roles, read beside them
    expect(before.map((hits) => hits.some((hit) => hit.assignments.length > 0))).toEqual([true, true, true]);
    const { searchThread, quickSearchThread } = (engine as SqliteEngine).background;
    await searchThread!.close();
    expect(searchThread!.running).toBe(false);
    for (const [i, terms] of cases.entries()) expect(ranked(await search(terms))).toEqual(ranked(before[i]));
    await quickSearchThread!.close();
    expect(quickSearchThread!.running).toBe(false);
    for (const [i, terms] of cases.entries()) expect(ranked(await search(terms))).toEqual(ranked(before[i]));
  });
});
