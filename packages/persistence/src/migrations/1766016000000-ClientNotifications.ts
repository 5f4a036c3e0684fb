import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Postgres: the read cache now remembers clients (every introspection, token and revocation
 * request authenticates one), so a write to `clients` (a new secret, a rename, a removal) notifies
 * the read caches of every instance, as ChangeNotifications made it for the tables it watched.
 * SQLite needs nothing: `data_version` tells. Frozen once released.
 */
export class ClientNotifications1766016000000 implements MigrationInterface {
  name = 'ClientNotifications1766016000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query('CREATE TRIGGER clients_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON clients FOR EACH STATEMENT EXECUTE FUNCTION xfer_notify_change()');
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query('DROP TRIGGER clients_notify_change ON clients');
  }
}
