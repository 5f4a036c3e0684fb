import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The public keys the API's processes sign their calls to data nodes with (each process's key pair
 * lives in its memory; only the public half is kept here, for nodes to verify with), and when each
 * was last renewed. Frozen once released.
 */
export class NodeCallKeys1766188800000 implements MigrationInterface {
  name = 'NodeCallKeys1766188800000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'node_call_keys',
        columns: [
          { name: 'kid', type: 'varchar', length: '64', isPrimary: true },
          { name: 'public_jwk', type: 'varchar', length: '1024' },
          { name: 'renewed_at', type: 'varchar', length: '32' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('node_call_keys');
  }
}
