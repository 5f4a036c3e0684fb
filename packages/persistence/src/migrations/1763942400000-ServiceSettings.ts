import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Service-wide settings (maintenance mode), shared by every instance. Frozen once released. */
export class ServiceSettings1763942400000 implements MigrationInterface {
  name = 'ServiceSettings1763942400000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'settings',
        columns: [
          { name: 'key', type: 'varchar', length: '64', isPrimary: true },
          { name: 'value', type: 'text' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('settings');
  }
}
