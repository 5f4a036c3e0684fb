import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Lookups driven by the caller rather than by the endpoint: the role assignments a principal
 * holds, and an owner's endpoints on one host (my_shared_endpoint_list). Frozen once released.
 */
export class HolderIndexes1764028800000 implements MigrationInterface {
  name = 'HolderIndexes1764028800000';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex('role_assignments', new TableIndex({ name: 'IX_role_assignments_principal', columnNames: ['principal_id', 'role', 'endpoint_id'] }));
    await q.createIndex('endpoints', new TableIndex({ name: 'IX_endpoints_owner_host', columnNames: ['owner_id', 'host_endpoint_id'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('endpoints', 'IX_endpoints_owner_host');
    await q.dropIndex('role_assignments', 'IX_role_assignments_principal');
  }
}
