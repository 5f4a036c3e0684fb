import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SQLite: an endpoint's search entry and its words are written again only when its searched text
 * changed. Every update of an endpoint sets all its columns, so the triggers (EndpointSearch's and
 * SearchTerms') ran on each: adding a server, pausing, any update deleted and added the FTS5 entry
 * again. Each write adds an FTS5 segment that every search then reads; common words' entries
 * pile up in them, and read in full they made a search's match 5x slower after 8,000 updates at
 * 1,000,000 endpoints. Postgres's trigger is left as it is. Frozen once released.
 */
const COLUMNS = ['display_name', 'canonical_name', 'description', 'organization', 'department', 'keywords', 'owner_string'];

export class SearchOnTextChanges1764892800000 implements MigrationInterface {
  name = 'SearchOnTextChanges1764892800000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') return;
    await this.recreate(q, `WHEN ${COLUMNS.map((c) => `old.${c} IS NOT new.${c}`).join(' OR ')} `);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') return;
    await this.recreate(q, '');
  }

  /** The two update triggers as their migrations made them, with `when` before their bodies. */
  private async recreate(q: QueryRunner, when: string): Promise<void> {
    const list = COLUMNS.join(', ');
    const of = (row: string) => COLUMNS.map((c) => `${row}.${c}`).join(', ');
    await q.query('DROP TRIGGER endpoint_search_update');
    await q.query(`CREATE TRIGGER endpoint_search_update AFTER UPDATE ON endpoints ${when}BEGIN
      INSERT INTO endpoint_search (endpoint_search, rowid, ${list}) VALUES ('delete', old.rowid, ${of('old')});
      INSERT INTO endpoint_search (rowid, ${list}) VALUES (new.rowid, ${of('new')}); END`);
    const text = COLUMNS.map((c) => `coalesce(new.${c}, '')`).join(` || ' ' || `);
    await q.query('DROP TRIGGER endpoint_search_terms_update');
    await q.query(`CREATE TRIGGER endpoint_search_terms_update AFTER UPDATE OF ${list} ON endpoints ${when}BEGIN
      INSERT INTO endpoint_search_scratch (rowid, text) VALUES (1, ${text});
      INSERT OR IGNORE INTO endpoint_search_terms (term) SELECT term FROM endpoint_search_scratch_vocab;
      INSERT INTO endpoint_search_scratch (endpoint_search_scratch) VALUES ('delete-all');
    END`);
  }
}
