import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SQLite: FTS5's explicit merges (searchIndexUpkeep.ts) merge any level of the search index that
 * holds two segments, not four (FTS5's default `usermerge`): after a run of writes, one segment a
 * level is left, not up to three, for every search to read. Stored in the index's own
 * configuration. Postgres's GIN index takes writes straight in (SearchTerms). Frozen once released.
 */
export class SearchIndexMerging1765152000000 implements MigrationInterface {
  name = 'SearchIndexMerging1765152000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') return;
    await q.query(`INSERT INTO endpoint_search (endpoint_search, rank) VALUES ('usermerge', 2)`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') return;
    await q.query(`INSERT INTO endpoint_search (endpoint_search, rank) VALUES ('usermerge', 4)`);
  }
}
