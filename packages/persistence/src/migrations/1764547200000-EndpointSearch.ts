import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Full-text search of endpoints by each database's own engine, kept in step with every write by
 * triggers (so in the same transaction): SQLite FTS5 over the searched columns (porter stemming,
 * prefix queries, bm25 with column weights; keyed by the endpoints' rowid, which only VACUUM could
 * change and xfer never runs it), Postgres a weighted tsvector per endpoint with a GIN index.
 * Frozen once released.
 */
const COLUMNS = ['display_name', 'canonical_name', 'description', 'organization', 'department', 'keywords', 'owner_string'];

export class EndpointSearch1764547200000 implements MigrationInterface {
  name = 'EndpointSearch1764547200000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      await q.query(`CREATE TABLE endpoint_search (endpoint_id varchar(36) PRIMARY KEY, document tsvector NOT NULL)`);
      // named outside the IX_ series: an index only Postgres has
      await q.query(`CREATE INDEX endpoint_search_document_gin ON endpoint_search USING GIN (document)`);
      const document = (row: string) =>
        `setweight(to_tsvector('english', coalesce(${row}.display_name, '')), 'A') ||
         setweight(to_tsvector('english', coalesce(${row}.canonical_name, '') || ' ' || coalesce(${row}.keywords, '')), 'B') ||
         setweight(to_tsvector('english', coalesce(${row}.organization, '') || ' ' || coalesce(${row}.department, '') || ' ' || coalesce(${row}.owner_string, '')), 'C') ||
         setweight(to_tsvector('english', coalesce(${row}.description, '')), 'D')`;
      await q.query(`CREATE FUNCTION endpoint_search_sync() RETURNS trigger AS $$
        BEGIN
          IF TG_OP = 'DELETE' THEN
            DELETE FROM endpoint_search WHERE endpoint_id = OLD.id;
            RETURN OLD;
          END IF;
          INSERT INTO endpoint_search (endpoint_id, document) VALUES (NEW.id, ${document('NEW')})
            ON CONFLICT (endpoint_id) DO UPDATE SET document = EXCLUDED.document;
          RETURN NEW;
        END $$ LANGUAGE plpgsql`);
      await q.query(`CREATE TRIGGER endpoint_search_sync AFTER INSERT OR UPDATE OR DELETE ON endpoints FOR EACH ROW EXECUTE FUNCTION endpoint_search_sync()`);
      await q.query(`INSERT INTO endpoint_search (endpoint_id, document) SELECT e.id, ${document('e')} FROM endpoints e`);
      return;
    }
    const list = COLUMNS.join(', ');
    const of = (row: string) => COLUMNS.map((c) => `${row}.${c}`).join(', ');
    await q.query(`CREATE VIRTUAL TABLE endpoint_search USING fts5(${list}, content='endpoints', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2')`);
    await q.query(`CREATE TRIGGER endpoint_search_insert AFTER INSERT ON endpoints BEGIN
      INSERT INTO endpoint_search (rowid, ${list}) VALUES (new.rowid, ${of('new')}); END`);
    await q.query(`CREATE TRIGGER endpoint_search_delete AFTER DELETE ON endpoints BEGIN
      INSERT INTO endpoint_search (endpoint_search, rowid, ${list}) VALUES ('delete', old.rowid, ${of('old')}); END`);
    await q.query(`CREATE TRIGGER endpoint_search_update AFTER UPDATE ON endpoints BEGIN
      INSERT INTO endpoint_search (endpoint_search, rowid, ${list}) VALUES ('delete', old.rowid, ${of('old')});
      INSERT INTO endpoint_search (rowid, ${list}) VALUES (new.rowid, ${of('new')}); END`);
    await q.query(`INSERT INTO endpoint_search (endpoint_search) VALUES ('rebuild')`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      await q.query('DROP TRIGGER endpoint_search_sync ON endpoints');
      await q.query('DROP FUNCTION endpoint_search_sync()');
      await q.query('DROP TABLE endpoint_search');
      return;
    }
    for (const trigger of ['insert', 'delete', 'update']) await q.query(`DROP TRIGGER endpoint_search_${trigger}`);
    await q.query('DROP TABLE endpoint_search');
  }
}
