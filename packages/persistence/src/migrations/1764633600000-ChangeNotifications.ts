import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables the read cache serves from (frozen once released: a later cached read adds its own). */
const WATCHED = ['access_tokens', 'identities', 'group_members', 'endpoints', 'role_assignments', 'access_rules'];

/**
 * Postgres: every write to a watched table notifies the read caches of every instance, at commit
 * (a statement trigger, so a bulk write notifies once). SQLite needs nothing: `data_version` tells.
 */
export class ChangeNotifications1764633600000 implements MigrationInterface {
  name = 'ChangeNotifications1764633600000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query(`CREATE FUNCTION xfer_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('xfer_changes', TG_TABLE_NAME); RETURN NULL; END $$`);
    for (const table of WATCHED) {
      await q.query(`CREATE TRIGGER ${table}_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION xfer_notify_change()`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    for (const table of WATCHED) await q.query(`DROP TRIGGER ${table}_notify_change ON ${table}`);
    await q.query('DROP FUNCTION xfer_notify_change()');
  }
}
