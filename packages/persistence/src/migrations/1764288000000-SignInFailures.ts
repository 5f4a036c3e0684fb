import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Failed sign-ins, in the database every instance shares, so the sign-in throttle counts the same
 * everywhere and survives a restart. Frozen once released.
 */
export class SignInFailures1764288000000 implements MigrationInterface {
  name = 'SignInFailures1764288000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'sign_in_failures',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'key_hash', type: 'varchar', length: '64', isNullable: false },
          { name: 'at', type: 'varchar', length: '32', isNullable: false },
        ],
      }),
    );
    await q.createIndex('sign_in_failures', new TableIndex({ name: 'IX_sign_in_failures_key_at', columnNames: ['key_hash', 'at'] }));
    await q.createIndex('sign_in_failures', new TableIndex({ name: 'IX_sign_in_failures_at', columnNames: ['at'] }));
    // purges find expired rows by time
    await q.createIndex('sessions', new TableIndex({ name: 'IX_sessions_expires', columnNames: ['expires_at'] }));
    await q.createIndex('authorization_codes', new TableIndex({ name: 'IX_authorization_codes_expires', columnNames: ['expires_at'] }));
    await q.createIndex('access_tokens', new TableIndex({ name: 'IX_access_tokens_expires', columnNames: ['expires_at'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('access_tokens', 'IX_access_tokens_expires');
    await q.dropIndex('authorization_codes', 'IX_authorization_codes_expires');
    await q.dropIndex('sessions', 'IX_sessions_expires');
    await q.dropTable('sign_in_failures');
  }
}
