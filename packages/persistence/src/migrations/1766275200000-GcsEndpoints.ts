import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Data nodes are Globus Connect Server endpoints: an endpoint of kind `gcs_endpoint` names its GCS
 * Manager (its node's URL), null for every other kind. Frozen once released.
 */
export class GcsEndpoints1766275200000 implements MigrationInterface {
  name = 'GcsEndpoints1766275200000';

  async up(q: QueryRunner): Promise<void> {
    // plain ALTER TABLE: TypeORM's addColumn rebuilds an SQLite table, which would drop the search index's triggers
    await q.query('ALTER TABLE endpoints ADD COLUMN gcs_manager_url text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE endpoints DROP COLUMN gcs_manager_url');
  }
}
