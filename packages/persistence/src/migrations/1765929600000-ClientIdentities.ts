import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A confidential client's own identity (`<client id>@clients.auth.globus.org`) now exists from the
 * client's creation, so that it can be granted roles before its first token: the clients made
 * before without one get it here (the local identity provider's, of type client, created when the
 * client was). Frozen once released.
 */
export class ClientIdentities1765929600000 implements MigrationInterface {
  name = 'ClientIdentities1765929600000';

  async up(q: QueryRunner): Promise<void> {
    const confidential = q.connection.options.type === 'postgres' ? 'c.public_client = false' : 'c.public_client = 0';
    await q.query(`INSERT INTO identities (id, username, name, email, organization, identity_provider, identity_type, status, set_id, linked_at, created_at, password_hash)
      SELECT c.id, c.id || '@clients.auth.globus.org', c.display_name, NULL, NULL, '41143743-f3c8-4d60-bbdb-eeecaba85bd9', 'client', 'used', c.id, NULL, c.created_at, NULL
      FROM clients c WHERE ${confidential} AND c.template_id IS NULL AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.id = c.id)`);
  }

  async down(): Promise<void> {
    // the identities stay: they may hold roles and access rules by now
  }
}
