import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Subscriptions have administrators, who verify the subscription's endpoints (the hosted
 * subscription_admin_verified, which endpoints now carry: false until verified, cleared when the
 * subscription changes). Frozen once released.
 */
export class SubscriptionAdministrators1765497600000 implements MigrationInterface {
  name = 'SubscriptionAdministrators1765497600000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'subscription_administrators',
        columns: [
          { name: 'subscription_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'principal_id', type: 'varchar', length: '36', isPrimary: true },
        ],
      }),
    );
    await q.createIndex('subscription_administrators', new TableIndex({ name: 'IX_subscription_administrators_principal', columnNames: ['principal_id'] }));
    // plain ALTER TABLE: TypeORM's addColumn rebuilds an SQLite table, which would drop the search
    // index's triggers on endpoints and renumber the rowids its external content is keyed by
    const no = q.connection.options.type === 'postgres' ? 'false' : '0';
    await q.query(`ALTER TABLE endpoints ADD COLUMN subscription_admin_verified boolean NOT NULL DEFAULT ${no}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE endpoints DROP COLUMN subscription_admin_verified');
    await q.dropTable('subscription_administrators');
  }
}
