import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Postgres: an endpoint's search row (and its words) is written again only when its searched text
 * or its public flag changed, as SearchOnTextChanges made it on SQLite. Every update of an endpoint
 * sets all its columns, so adding a server or pausing rewrote the search row: a new row version
 * with a GIN entry for each of its words (the index takes writes straight in), and the dead version's
 * entries, read by searches until a vacuum. SQLite is left as it is. Frozen once released.
 */
const COLUMNS = ['display_name', 'canonical_name', 'description', 'organization', 'department', 'keywords', 'owner_string', 'public'];

export class PostgresSearchOnTextChanges1764979200000 implements MigrationInterface {
  name = 'PostgresSearchOnTextChanges1764979200000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    const changed = COLUMNS.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(' OR ');
    await q.query('DROP TRIGGER endpoint_search_sync ON endpoints');
    await q.query('CREATE TRIGGER endpoint_search_sync AFTER INSERT OR DELETE ON endpoints FOR EACH ROW EXECUTE FUNCTION endpoint_search_sync()');
    await q.query(`CREATE TRIGGER endpoint_search_sync_update AFTER UPDATE ON endpoints FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION endpoint_search_sync()`);
    // the vocabulary: a search row updated for its public flag alone keeps its words
    await q.query('DROP TRIGGER endpoint_search_terms_sync ON endpoint_search');
    await q.query('CREATE TRIGGER endpoint_search_terms_sync AFTER INSERT ON endpoint_search FOR EACH ROW EXECUTE FUNCTION endpoint_search_terms_sync()');
    await q.query('CREATE TRIGGER endpoint_search_terms_sync_update AFTER UPDATE ON endpoint_search FOR EACH ROW WHEN (OLD.document IS DISTINCT FROM NEW.document) EXECUTE FUNCTION endpoint_search_terms_sync()');
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query('DROP TRIGGER endpoint_search_terms_sync_update ON endpoint_search');
    await q.query('DROP TRIGGER endpoint_search_terms_sync ON endpoint_search');
    await q.query('CREATE TRIGGER endpoint_search_terms_sync AFTER INSERT OR UPDATE ON endpoint_search FOR EACH ROW EXECUTE FUNCTION endpoint_search_terms_sync()');
    await q.query('DROP TRIGGER endpoint_search_sync_update ON endpoints');
    await q.query('DROP TRIGGER endpoint_search_sync ON endpoints');
    await q.query('CREATE TRIGGER endpoint_search_sync AFTER INSERT OR UPDATE OR DELETE ON endpoints FOR EACH ROW EXECUTE FUNCTION endpoint_search_sync()');
  }
}
