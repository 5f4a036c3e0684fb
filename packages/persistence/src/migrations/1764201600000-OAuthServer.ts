import { Table, TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

const TRANSFER_SCOPE = 'urn:globus:auth:scope:transfer.api.globus.org:all';

/** The resource server a scope name implies, as core's resourceServerOf said when this was written. */
function resourceServerOf(name: string): string {
  const urn = /^urn:[^:]+:auth:scope:([^:]+):/.exec(name) ?? /^urn:[^:]+:scope:([^:]+):/.exec(name);
  if (urn) return urn[1];
  const url = /^https:\/\/[^/]+\/scopes\/([^/]+)\//.exec(name);
  return url ? url[1] : 'auth.globus.org';
}

/**
 * The OAuth 2.0 authorization server: authorization codes, refresh tokens, and what each access
 * token was issued for (client, scopes, resource server). Tokens issued before carried every
 * right of the transfer API, so they keep its scope. Frozen once released.
 */
export class OAuthServer1764201600000 implements MigrationInterface {
  name = 'OAuthServer1764201600000';

  async up(q: QueryRunner): Promise<void> {
    const v = (name: string, length: number, isNullable = false) => ({ name, type: 'varchar', length: String(length), isNullable });
    const t = (name: string) => ({ name, type: 'text', isNullable: false });

    await q.addColumns('access_tokens', [
      new TableColumn(v('client_id', 36, true)),
      new TableColumn({ ...t('scopes'), default: "''" }),
      new TableColumn({ ...v('resource_server', 256), default: "''" }),
      new TableColumn(v('refresh_token_hash', 64, true)),
    ]);
    await q.manager.createQueryBuilder().update('access_tokens').set({ scopes: TRANSFER_SCOPE, resource_server: 'transfer.api.globus.org' }).execute();
    await q.createIndex('access_tokens', new TableIndex({ name: 'IX_access_tokens_client_identity', columnNames: ['client_id', 'identity_id'] }));
    await q.createIndex('access_tokens', new TableIndex({ name: 'IX_access_tokens_refresh', columnNames: ['refresh_token_hash'] }));

    await q.addColumn('clients', new TableColumn(v('resource_server', 256, true)));

    await q.addColumns('scopes', [new TableColumn({ ...v('resource_server', 256), default: "''" }), new TableColumn({ ...t('dependent_scope_ids'), default: "'[]'" })]);
    for (const row of (await q.query('SELECT id, name FROM scopes')) as { id: string; name: string }[]) {
      await q.manager.createQueryBuilder().update('scopes').set({ resource_server: resourceServerOf(row.name) }).where('id = :id', { id: row.id }).execute();
    }

    await q.createTable(
      new Table({
        name: 'authorization_codes',
        columns: [
          { ...v('code_hash', 64), isPrimary: true },
          v('client_id', 36),
          v('identity_id', 36),
          v('redirect_uri', 2048),
          t('scopes'),
          v('code_challenge', 128, true),
          v('code_challenge_method', 16, true),
          v('created_at', 32),
          v('expires_at', 32),
          v('used_at', 32, true),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'refresh_tokens',
        columns: [
          { ...v('token_hash', 64), isPrimary: true },
          v('identity_id', 36),
          v('client_id', 36),
          t('scopes'),
          v('resource_server', 256),
          v('authorization_code_hash', 64, true),
          v('created_at', 32),
          v('revoked_at', 32, true),
        ],
      }),
    );
    await q.createIndex('refresh_tokens', new TableIndex({ name: 'IX_refresh_tokens_client_identity', columnNames: ['client_id', 'identity_id'] }));
    await q.createIndex('refresh_tokens', new TableIndex({ name: 'IX_refresh_tokens_code', columnNames: ['authorization_code_hash'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('refresh_tokens');
    await q.dropTable('authorization_codes');
    await q.dropColumn('scopes', 'dependent_scope_ids');
    await q.dropColumn('scopes', 'resource_server');
    await q.dropColumn('clients', 'resource_server');
    await q.dropIndex('access_tokens', 'IX_access_tokens_refresh');
    await q.dropIndex('access_tokens', 'IX_access_tokens_client_identity');
    for (const column of ['refresh_token_hash', 'resource_server', 'scopes', 'client_id']) await q.dropColumn('access_tokens', column);
  }
}
