import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoints have storage behind them (files on endpoints): how it is attached, as JSON ({"type":
 * "posix","root":...} or {"type":"memory"}), null when none. Frozen once released.
 */
export class EndpointStorage1765670400000 implements MigrationInterface {
  name = 'EndpointStorage1765670400000';

  async up(q: QueryRunner): Promise<void> {
    // plain ALTER TABLE: TypeORM's addColumn rebuilds an SQLite table, which would drop the search index's triggers
    await q.query('ALTER TABLE endpoints ADD COLUMN storage text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE endpoints DROP COLUMN storage');
  }
}
