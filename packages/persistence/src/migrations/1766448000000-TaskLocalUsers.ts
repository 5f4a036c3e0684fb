import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A task names the local accounts its owner's identity mapped to on mapped collections (`source_local_user`, `destination_local_user`). Frozen once released. */
export class TaskLocalUsers1766448000000 implements MigrationInterface {
  name = 'TaskLocalUsers1766448000000';

  async up(q: QueryRunner): Promise<void> {
    // plain ALTER TABLE: TypeORM's addColumn rebuilds an SQLite table
    await q.query('ALTER TABLE tasks ADD COLUMN source_local_user varchar(64)');
    await q.query('ALTER TABLE tasks ADD COLUMN destination_local_user varchar(64)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE tasks DROP COLUMN destination_local_user');
    await q.query('ALTER TABLE tasks DROP COLUMN source_local_user');
  }
}
