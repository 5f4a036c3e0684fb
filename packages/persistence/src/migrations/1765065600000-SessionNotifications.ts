import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Postgres: the read cache now remembers sessions (a signed-in page's session, identity and set),
 * so a write to `sessions` (a sign-out, a password change, the purge of expired ones) notifies the
 * read caches of every instance, as ChangeNotifications made it for the tables it watched. SQLite
 * needs nothing: `data_version` tells. Frozen once released.
 */
export class SessionNotifications1765065600000 implements MigrationInterface {
  name = 'SessionNotifications1765065600000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query('CREATE TRIGGER sessions_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sessions FOR EACH STATEMENT EXECUTE FUNCTION xfer_notify_change()');
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query('DROP TRIGGER sessions_notify_change ON sessions');
  }
}
