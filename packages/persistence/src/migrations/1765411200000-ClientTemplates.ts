import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Clients made from a template client (the hosted CLI's POST /v2/api/clients): each remembers the
 * template, which may revoke its tokens (the CLI's logout does). Frozen once released.
 */
export class ClientTemplates1765411200000 implements MigrationInterface {
  name = 'ClientTemplates1765411200000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('clients', new TableColumn({ name: 'template_id', type: 'varchar', length: '36', isNullable: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('clients', 'template_id');
  }
}
