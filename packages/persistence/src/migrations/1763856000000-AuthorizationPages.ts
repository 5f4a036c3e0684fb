import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Clients, scopes, consents and browser sessions for the helper pages. Frozen once released. */
export class AuthorizationPages1763856000000 implements MigrationInterface {
  name = 'AuthorizationPages1763856000000';

  async up(q: QueryRunner): Promise<void> {
    const v = (name: string, length: number, isNullable = false) => ({ name, type: 'varchar', length: String(length), isNullable });
    const t = (name: string, isNullable = false) => ({ name, type: 'text', isNullable });
    await q.createTable(
      new Table({
        name: 'clients',
        columns: [
          { ...v('id', 36), isPrimary: true },
          v('display_name', 128),
          t('branding'),
          t('redirect_uris'),
          { name: 'public_client', type: 'boolean' },
          v('secret_hash', 64, true),
          v('created_at', 32),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'scopes',
        columns: [{ ...v('id', 36), isPrimary: true }, v('name', 512), v('description', 1024), v('created_at', 32)],
      }),
    );
    await q.createIndex('scopes', new TableIndex({ name: 'UQ_scopes_name', columnNames: ['name'], isUnique: true }));
    await q.createTable(
      new Table({
        name: 'consents',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          v('client_id', 36),
          v('scope_id', 36),
          v('identity_id', 36),
          t('dependency_path'),
          v('created', 32),
          v('updated', 32),
          v('last_used', 32, true),
          v('status', 16),
        ],
      }),
    );
    await q.createIndex('consents', new TableIndex({ name: 'IX_consents_identity', columnNames: ['identity_id'] }));
    await q.createTable(
      new Table({
        name: 'sessions',
        columns: [{ ...v('id_hash', 64), isPrimary: true }, v('identity_id', 36), v('created_at', 32), v('expires_at', 32)],
      }),
    );
    await q.createIndex('sessions', new TableIndex({ name: 'IX_sessions_identity', columnNames: ['identity_id'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const name of ['sessions', 'consents', 'scopes', 'clients']) await q.dropTable(name);
  }
}
