import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Role assignments remember the host of a shared endpoint, so "the shares of this host that I
 * manage" is an index range, however many other endpoints the caller administers. A share's host
 * never changes, so the copy cannot go stale. Frozen once released.
 */
export class RoleHost1764115200000 implements MigrationInterface {
  name = 'RoleHost1764115200000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('role_assignments', new TableColumn({ name: 'host_endpoint_id', type: 'varchar', length: '36', isNullable: true }));
    await q.query(
      'UPDATE role_assignments SET host_endpoint_id = (SELECT e.host_endpoint_id FROM endpoints e WHERE e.id = role_assignments.endpoint_id)',
    );
    await q.createIndex(
      'role_assignments',
      new TableIndex({ name: 'IX_role_assignments_principal_host', columnNames: ['principal_id', 'host_endpoint_id', 'role', 'endpoint_id'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('role_assignments', 'IX_role_assignments_principal_host');
    await q.dropColumn('role_assignments', 'host_endpoint_id');
  }
}
