import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Access tokens remember the client whose consent they rest on when that is not their own client
 * (dependent tokens), so that rescinding the consent revokes them too (security review two,
 * finding 4); refresh tokens had it already. Indexed with the identity, as the client's column is.
 * Tokens issued before stay as they are: the online ones expire within their lifetime. Frozen once released.
 */
export class DependentTokenConsent1765324800000 implements MigrationInterface {
  name = 'DependentTokenConsent1765324800000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('access_tokens', new TableColumn({ name: 'consent_client_id', type: 'varchar', length: '36', isNullable: true }));
    await q.createIndex('access_tokens', new TableIndex({ name: 'IX_access_tokens_consent_client_identity', columnNames: ['consent_client_id', 'identity_id'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('access_tokens', 'IX_access_tokens_consent_client_identity');
    await q.dropColumn('access_tokens', 'consent_client_id');
  }
}
