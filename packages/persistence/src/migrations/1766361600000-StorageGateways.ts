import { randomUUID } from 'node:crypto';
import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

const POSIX_SETTINGS = JSON.stringify({ allowed_domains: [], users_allow: [], users_deny: [], identity_mappings: [], restrict_paths: null, authentication_timeout_mins: 15840, require_mfa: false, policies: { groups_allow: [], groups_deny: [] } });

/**
 * Data nodes as Globus Connect Server endpoints, whole: storage gateways and user credentials of
 * nodes; an endpoint may be a GCS collection (`gcs_endpoint_id`: its node; `collection`: its GCS
 * settings, JSON). What was there becomes so: every node has its GCS endpoint document and its
 * manage_collections scope; each directory of a node that endpoints are bound to becomes a POSIX
 * storage gateway, each such endpoint a mapped collection of it (its `/` the gateway's root,
 * guest collections allowed, not delete protected: as they behaved), each share of one a guest
 * collection. Frozen once released.
 */
export class StorageGateways1766361600000 implements MigrationInterface {
  name = 'StorageGateways1766361600000';

  async up(q: QueryRunner): Promise<void> {
    const postgres = q.connection.options.type === 'postgres';
    const at = (i: number) => (postgres ? `$${i}` : '?');
    const yes = postgres ? 'true' : '1';
    const no = postgres ? 'false' : '0';
    // plain ALTER TABLE: TypeORM's addColumn rebuilds an SQLite table, which would drop the search index's triggers
    await q.query('ALTER TABLE endpoints ADD COLUMN gcs_endpoint_id varchar(36)');
    await q.query('ALTER TABLE endpoints ADD COLUMN collection text');
    await q.createIndex('endpoints', new TableIndex({ name: 'IX_endpoints_gcs_endpoint', columnNames: ['gcs_endpoint_id', 'created_at', 'id'] }));
    const v = (name: string, length: number, isNullable = false) => ({ name, type: 'varchar', length: String(length), isNullable });
    await q.createTable(new Table({ name: 'storage_gateways', columns: [{ ...v('id', 36), isPrimary: true }, v('node_id', 36), v('display_name', 128), { name: 'root', type: 'text' }, { name: 'settings', type: 'text' }, v('created_at', 32)] }));
    await q.createIndex('storage_gateways', new TableIndex({ name: 'IX_storage_gateways_node', columnNames: ['node_id'] }));
    await q.createTable(new Table({ name: 'user_credentials', columns: [{ ...v('id', 36), isPrimary: true }, v('node_id', 36), v('storage_gateway_id', 36), v('identity_id', 36), v('username', 64), v('display_name', 128, true), { name: 'policies', type: 'text' }, v('created_at', 32)] }));
    await q.createIndex('user_credentials', new TableIndex({ name: 'UQ_user_credentials_gateway_identity', columnNames: ['storage_gateway_id', 'identity_id'], isUnique: true }));
    await q.createIndex('user_credentials', new TableIndex({ name: 'IX_user_credentials_node', columnNames: ['node_id'] }));

    const now = new Date().toISOString();
    const nodes = (await q.query('SELECT id, name, url, created_at FROM nodes')) as { id: string; name: string; url: string; created_at: string }[];
    for (const node of nodes) {
      // nodes registered before they were GCS endpoints
      const self = `${node.id}@clients.auth.globus.org`;
      // each value once per placeholder: SQLite's ? are positional
      await q.query(
        `INSERT INTO endpoints (id, kind, version, created_at, display_name, name, canonical_name, owner_id, owner_string, public, force_encryption, disable_verify, subscription_admin_verified, network_use, gcs_manager_url, servers, next_server_id)
         SELECT ${at(1)}, 'gcs_endpoint', 0, ${at(2)}, ${at(3)}, ${at(4)}, ${at(5)}, ${at(6)}, ${at(7)}, ${yes}, ${no}, ${no}, ${no}, 'normal', ${at(8)}, '[]', 1
         WHERE NOT EXISTS (SELECT 1 FROM endpoints WHERE id = ${at(9)})`,
        [node.id, node.created_at, node.name, node.id, `${node.id}#${node.id}`, node.id, self, node.url, node.id],
      );
      const scope = `urn:globus:auth:scope:${node.id}:manage_collections`;
      await q.query(
        `INSERT INTO scopes (id, name, description, resource_server, dependent_scope_ids, created_at) SELECT ${at(1)}, ${at(2)}, ${at(3)}, ${at(4)}, '[]', ${at(5)} WHERE NOT EXISTS (SELECT 1 FROM scopes WHERE name = ${at(6)})`,
        [randomUUID(), scope, `Manage the storage gateways and collections of data node '${node.name}'`, node.id, now, scope],
      );
    }

    const urls = new Map(nodes.map((node) => [node.id, node.url]));
    const bound = (await q.query(`SELECT id, storage FROM endpoints WHERE storage LIKE '%"node"%' ORDER BY created_at, id`)) as { id: string; storage: string }[];
    const gateways = new Map<string, string>();
    for (const row of bound) {
      const storage = JSON.parse(row.storage) as { type?: string; node?: string; root?: string };
      if (storage.type !== 'node' || typeof storage.node !== 'string' || typeof storage.root !== 'string' || !urls.has(storage.node)) continue;
      const key = `${storage.node} ${storage.root}`;
      let gateway = gateways.get(key);
      if (gateway === undefined) {
        gateway = randomUUID();
        gateways.set(key, gateway);
        await q.query(`INSERT INTO storage_gateways (id, node_id, display_name, root, settings, created_at) VALUES (${at(1)}, ${at(2)}, ${at(3)}, ${at(4)}, ${at(5)}, ${at(6)})`, [gateway, storage.node, `POSIX ${storage.root}`.slice(0, 128), storage.root, POSIX_SETTINGS, now]);
      }
      const mapped = JSON.stringify({ storage_gateway_id: gateway, base_path: '/', allow_guest_collections: true, delete_protected: false, user_credential_id: null });
      const guest = JSON.stringify({ storage_gateway_id: gateway, base_path: '/', allow_guest_collections: false, delete_protected: false, user_credential_id: null });
      await q.query(`UPDATE endpoints SET gcs_endpoint_id = ${at(1)}, gcs_manager_url = ${at(2)}, collection = ${at(3)}, version = version + 1 WHERE id = ${at(4)}`, [storage.node, urls.get(storage.node), mapped, row.id]);
      await q.query(`UPDATE endpoints SET gcs_endpoint_id = ${at(1)}, gcs_manager_url = ${at(2)}, collection = ${at(3)}, version = version + 1 WHERE host_endpoint_id = ${at(4)}`, [storage.node, urls.get(storage.node), guest, row.id]);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('user_credentials');
    await q.dropTable('storage_gateways');
    await q.dropIndex('endpoints', 'IX_endpoints_gcs_endpoint');
    await q.query('ALTER TABLE endpoints DROP COLUMN collection');
    await q.query('ALTER TABLE endpoints DROP COLUMN gcs_endpoint_id');
  }
}
