import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Data nodes registered on the API (`xfer node add`): a name unique without regard to case, a URL, a secret's hash. Frozen once released. */
export class Nodes1766102400000 implements MigrationInterface {
  name = 'Nodes1766102400000';

  async up(q: QueryRunner): Promise<void> {
    const v = (name: string, length: number, isNullable = false) => ({ name, type: 'varchar', length: String(length), isNullable });
    await q.createTable(
      new Table({
        name: 'nodes',
        columns: [{ ...v('id', 36), isPrimary: true }, v('name', 63), v('name_key', 63), v('url', 512), v('secret_hash', 64), v('created_at', 32), v('last_contact', 32, true)],
      }),
    );
    await q.createIndex('nodes', new TableIndex({ name: 'UQ_nodes_name_key', columnNames: ['name_key'], isUnique: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('nodes');
  }
}
