import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EndpointCriteria } from '@xfer/core';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../dataSource';
import { searchThreadOf } from '../searchThread';
import { seedDatabase } from '../seed';
import { SEARCHED_COLUMNS } from '../searchThread';
import { expandForFts5, fts5Match } from '../searchExpansion';
import { Sql } from '../sql';
import { TypeormUnitOfWork } from '../TypeormUnitOfWork';

/** Security review two, finding 1: what one search costs is bounded, and one caller's costly search never holds up another's. */
describe('search cost on an SQLite file (security review two, finding 1)', () => {
  let directory: string;
  let dataSource: DataSource;
  // the seeded user: it owns a third of the endpoints, the ones that are not public
  let owner: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'xfer-search-cost-'));
    dataSource = await openDatabase(`sqlite:${join(directory, 'xfer.sqlite')}`);
    const { username } = await seedDatabase(dataSource, { endpoints: 3000 });
    [{ id: owner }] = await dataSource.query('SELECT id FROM identities WHERE username = ?', [username]);
  }, 60_000);

  afterAll(async () => {
    await dataSource.destroy();
    rmSync(directory, { recursive: true, force: true });
  });

  const search = (terms: string[], scope: Partial<EndpointCriteria> = {}) =>
    new TypeormUnitOfWork(dataSource).repositories.endpoints.search({ terms, visibleTo: { principalIds: [owner], roles: ['administrator'] }, offset: 0, limit: 1000, ...scope } as EndpointCriteria);

  it("finds in a narrow scope, its endpoints' text matched one by one, what FTS5's MATCH finds", async () => {
    const sql = new Sql(dataSource.manager);
    // terms that stay prefixes (numbers, a letter) and stemmed words, in the owner's scope (narrow: text matched on the thread)
    for (const terms of [['storage', '1', '7'], ['storag', '1', '98'], ['archives', '2'], ['g', '5', 'seeded'], ['8', 'storages', 'imaging'], ['cl', '44']]) {
      const scoped = (await search(terms, { ownedBy: [owner] })).map((hit) => hit.endpoint.id).sort();
      const match = fts5Match(await expandForFts5(sql, terms))!;
      const fts5 = ((await dataSource.query('SELECT e.id FROM endpoint_search s JOIN endpoints e ON e.rowid = s.rowid WHERE endpoint_search MATCH ? AND e.owner_id = ?', [match.query, owner])) as { id: string }[])
        .map((r) => r.id)
        .sort();
      expect({ terms, prefixed: match.prefixed, found: scoped.length > 0, same: scoped }).toEqual({ terms, prefixed: true, found: true, same: fts5 });
    }
  });

  it('answers a search sent while a costly one is under way before that one ends, on the same thread', async () => {
    const thread = searchThreadOf(dataSource)!;
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
});
