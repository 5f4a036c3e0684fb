import { Table, TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * OpenID Connect: the keys that sign id_tokens (shared by every instance), and what an id_token
 * needs from its grant (the authorize request's nonce, when the user signed in, and for a
 * dependent token the client whose consents it rests on). Frozen once released.
 */
export class OpenIdConnect1764374400000 implements MigrationInterface {
  name = 'OpenIdConnect1764374400000';

  async up(q: QueryRunner): Promise<void> {
    const v = (name: string, length: number, isNullable = false) => ({ name, type: 'varchar', length: String(length), isNullable });
    await q.createTable(
      new Table({
        name: 'signing_keys',
        columns: [
          { ...v('kid', 64), isPrimary: true },
          v('algorithm', 16),
          { name: 'public_jwk', type: 'text', isNullable: false },
          { name: 'private_key', type: 'text', isNullable: false },
          v('created_at', 32),
          v('retired_at', 32, true),
        ],
      }),
    );
    await q.addColumns('authorization_codes', [new TableColumn(v('nonce', 512, true)), new TableColumn(v('auth_time', 32, true))]);
    await q.addColumns('refresh_tokens', [new TableColumn(v('auth_time', 32, true)), new TableColumn(v('consent_client_id', 36, true))]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('refresh_tokens', 'consent_client_id');
    await q.dropColumn('refresh_tokens', 'auth_time');
    await q.dropColumn('authorization_codes', 'auth_time');
    await q.dropColumn('authorization_codes', 'nonce');
    await q.dropTable('signing_keys');
  }
}
