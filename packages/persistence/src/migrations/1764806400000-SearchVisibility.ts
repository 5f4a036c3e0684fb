import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Postgres: whether an endpoint is public, beside its search document, so that a search of many
 * matches ranks them and checks what the caller may see without reading each endpoint's row
 * ("storage 54" at 1,000,000 endpoints: 18,198 matches, each joined to its endpoint row, 240 ms
 * to 1.3 s). Every write of an endpoint writes its search row (EndpointSearch's trigger), which
 * now copies the flag from the endpoint row. SQLite reads the endpoint row by its rowid anyway.
 * Frozen once released.
 */
export class SearchVisibility1764806400000 implements MigrationInterface {
  name = 'SearchVisibility1764806400000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query(`ALTER TABLE endpoint_search ADD COLUMN public boolean NOT NULL DEFAULT false`);
    // filled with the GIN index dropped (updating a million rows under it costs far more than
    // building it again) and without the vocabulary's trigger (the documents do not change)
    await q.query(`DROP INDEX endpoint_search_document_gin`);
    await q.query(`ALTER TABLE endpoint_search DISABLE TRIGGER endpoint_search_terms_sync`);
    await q.query(`UPDATE endpoint_search s SET public = true FROM endpoints e WHERE e.id = s.endpoint_id AND e.public`);
    await q.query(`ALTER TABLE endpoint_search ENABLE TRIGGER endpoint_search_terms_sync`);
    await q.query(`CREATE INDEX endpoint_search_document_gin ON endpoint_search USING GIN (document) WITH (fastupdate = off)`);
    await q.query(`CREATE FUNCTION endpoint_search_visibility() RETURNS trigger AS $$
        BEGIN
          NEW.public := coalesce((SELECT e.public FROM endpoints e WHERE e.id = NEW.endpoint_id), false);
          RETURN NEW;
        END $$ LANGUAGE plpgsql`);
    await q.query(`CREATE TRIGGER endpoint_search_visibility BEFORE INSERT OR UPDATE ON endpoint_search FOR EACH ROW EXECUTE FUNCTION endpoint_search_visibility()`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query('DROP TRIGGER endpoint_search_visibility ON endpoint_search');
    await q.query('DROP FUNCTION endpoint_search_visibility()');
    await q.query('ALTER TABLE endpoint_search DROP COLUMN public');
  }
}
