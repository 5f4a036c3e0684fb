import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Access rules of shares; found per share, and per principal for the shared-with-me scope. Frozen once released. */
export class AccessRules1764460800000 implements MigrationInterface {
  name = 'AccessRules1764460800000';

  async up(q: QueryRunner): Promise<void> {
    const v = (name: string, length: number, isNullable = false) => ({ name, type: 'varchar', length: String(length), isNullable });
    await q.createTable(
      new Table({
        name: 'access_rules',
        columns: [
          { ...v('id', 36), isPrimary: true },
          v('endpoint_id', 36),
          v('principal_type', 32),
          v('principal', 36),
          { name: 'path', type: 'text', isNullable: false },
          v('permissions', 2),
          v('notify_email', 254, true),
          { name: 'notify_message', type: 'text', isNullable: true },
          v('create_time', 32),
          v('expiration_date', 32, true),
        ],
      }),
    );
    await q.createIndex('access_rules', new TableIndex({ name: 'IX_access_rules_endpoint', columnNames: ['endpoint_id', 'create_time'] }));
    await q.createIndex('access_rules', new TableIndex({ name: 'IX_access_rules_principal', columnNames: ['principal', 'principal_type'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('access_rules');
  }
}
