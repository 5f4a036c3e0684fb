import type { MigrationInterface, QueryRunner } from 'typeorm';

const COLUMNS = ['display_name', 'canonical_name', 'description', 'organization', 'department', 'keywords', 'owner_string'];

/**
 * The search index's vocabulary, one row per indexed word (its stem), kept by triggers in the same
 * transaction as the index. A search turns each of its prefixes into the exact words that begin
 * with it: both engines merge a prefix's whole posting list, but seek in an exact word's. Words are
 * only added (one left behind by a deleted endpoint finds nothing). Frozen once released.
 */
export class SearchTerms1764720000000 implements MigrationInterface {
  name = 'SearchTerms1764720000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      // "C": byte order, so a prefix is a range of the primary key
      await q.query(`CREATE TABLE endpoint_search_terms (term text COLLATE "C" PRIMARY KEY)`);
      await q.query(`CREATE FUNCTION endpoint_search_terms_sync() RETURNS trigger AS $$
        BEGIN
          INSERT INTO endpoint_search_terms (term) SELECT lexeme FROM unnest(NEW.document) ON CONFLICT DO NOTHING;
          RETURN NULL;
        END $$ LANGUAGE plpgsql`);
      await q.query(`CREATE TRIGGER endpoint_search_terms_sync AFTER INSERT OR UPDATE ON endpoint_search FOR EACH ROW EXECUTE FUNCTION endpoint_search_terms_sync()`);
      await q.query(`INSERT INTO endpoint_search_terms (term) SELECT DISTINCT lexeme FROM endpoint_search, unnest(document) ON CONFLICT DO NOTHING`);
      // GIN's pending list (fastupdate) is read in full by every search until a vacuum merges it:
      // at 100,000 endpoints a two-word search took 1.5 ms with it, 0.06 ms without. Writes to a
      // catalogue are rare; they go straight into the index.
      await q.query(`ALTER INDEX endpoint_search_document_gin SET (fastupdate = off)`);
      await q.query(`SELECT gin_clean_pending_list('endpoint_search_document_gin')`);
      return;
    }
    // SQLite has no tokenizer function: a written endpoint's text passes through an empty
    // contentless FTS5 table with the index's tokenizer, whose own vocabulary is then its words.
    await q.query(`CREATE TABLE endpoint_search_terms (term TEXT PRIMARY KEY) WITHOUT ROWID`);
    await q.query(`CREATE VIRTUAL TABLE endpoint_search_scratch USING fts5(text, content='', tokenize='porter unicode61 remove_diacritics 2')`);
    await q.query(`CREATE VIRTUAL TABLE endpoint_search_scratch_vocab USING fts5vocab(endpoint_search_scratch, row)`);
    const text = COLUMNS.map((c) => `coalesce(new.${c}, '')`).join(` || ' ' || `);
    const body = `BEGIN
      INSERT INTO endpoint_search_scratch (rowid, text) VALUES (1, ${text});
      INSERT OR IGNORE INTO endpoint_search_terms (term) SELECT term FROM endpoint_search_scratch_vocab;
      INSERT INTO endpoint_search_scratch (endpoint_search_scratch) VALUES ('delete-all');
    END`;
    await q.query(`CREATE TRIGGER endpoint_search_terms_insert AFTER INSERT ON endpoints ${body}`);
    await q.query(`CREATE TRIGGER endpoint_search_terms_update AFTER UPDATE OF ${COLUMNS.join(', ')} ON endpoints ${body}`);
    await q.query(`CREATE VIRTUAL TABLE temp.endpoint_search_vocab USING fts5vocab(main, endpoint_search, row)`);
    await q.query(`INSERT INTO endpoint_search_terms (term) SELECT term FROM temp.endpoint_search_vocab`);
    await q.query(`DROP TABLE temp.endpoint_search_vocab`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      await q.query(`ALTER INDEX endpoint_search_document_gin RESET (fastupdate)`);
      await q.query('DROP TRIGGER endpoint_search_terms_sync ON endpoint_search');
      await q.query('DROP FUNCTION endpoint_search_terms_sync()');
      await q.query('DROP TABLE endpoint_search_terms');
      return;
    }
    for (const trigger of ['insert', 'update']) await q.query(`DROP TRIGGER endpoint_search_terms_${trigger}`);
    await q.query('DROP TABLE endpoint_search_scratch_vocab');
    await q.query('DROP TABLE endpoint_search_scratch');
    await q.query('DROP TABLE endpoint_search_terms');
  }
}
