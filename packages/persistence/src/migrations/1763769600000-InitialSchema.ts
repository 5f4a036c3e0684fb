import { Table, TableIndex, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';

/** Frozen once released: later changes are new migrations. Dialect-neutral through TypeORM's Table API. */
type Column = [name: string, type: 'varchar' | 'text' | 'boolean' | 'integer', length?: number, nullable?: boolean];

function table(name: string, primary: string[], columns: Column[]): Table {
  return new Table({
    name,
    columns: columns.map(
      ([column, type, length, nullable]): TableColumnOptions => ({
        name: column,
        type,
        length: type === 'varchar' ? String(length) : undefined,
        isNullable: nullable ?? false,
        isPrimary: primary.includes(column),
      }),
    ),
  });
}

const TIME: [type: 'varchar', length: number] = ['varchar', 32];

export class InitialSchema1763769600000 implements MigrationInterface {
  name = 'InitialSchema1763769600000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      table('identities', ['id'], [
        ['id', 'varchar', 36],
        ['username', 'varchar', 255],
        ['name', 'varchar', 256, true],
        ['email', 'varchar', 254, true],
        ['organization', 'varchar', 1024, true],
        ['identity_provider', 'varchar', 36],
        ['identity_type', 'varchar', 32],
        ['status', 'varchar', 16],
        ['set_id', 'varchar', 36],
        ['linked_at', ...TIME, true],
        ['created_at', ...TIME],
        ['password_hash', 'varchar', 255, true],
      ]),
    );
    await q.createIndex('identities', new TableIndex({ name: 'UQ_identities_username', columnNames: ['username'], isUnique: true }));
    await q.createIndex('identities', new TableIndex({ name: 'IX_identities_set_id', columnNames: ['set_id'] }));

    await q.createTable(table('groups', ['id'], [['id', 'varchar', 36], ['name', 'varchar', 128], ['created_at', ...TIME]]));
    await q.createIndex('groups', new TableIndex({ name: 'UQ_groups_name', columnNames: ['name'], isUnique: true }));
    await q.createTable(table('group_members', ['group_id', 'identity_id'], [['group_id', 'varchar', 36], ['identity_id', 'varchar', 36]]));
    await q.createIndex('group_members', new TableIndex({ name: 'IX_group_members_identity', columnNames: ['identity_id'] }));

    await q.createTable(
      table('access_tokens', ['token_hash'], [
        ['token_hash', 'varchar', 64],
        ['identity_id', 'varchar', 36],
        ['created_at', ...TIME],
        ['expires_at', ...TIME, true],
        ['revoked_at', ...TIME, true],
      ]),
    );
    await q.createIndex('access_tokens', new TableIndex({ name: 'IX_access_tokens_identity', columnNames: ['identity_id'] }));

    await q.createTable(table('subscriptions', ['id'], [['id', 'varchar', 36], ['name', 'varchar', 256], ['created_at', ...TIME]]));
    await q.createIndex('subscriptions', new TableIndex({ name: 'UQ_subscriptions_name', columnNames: ['name'], isUnique: true }));
    await q.createTable(
      table('subscription_members', ['subscription_id', 'member_id'], [['subscription_id', 'varchar', 36], ['member_id', 'varchar', 36]]),
    );
    await q.createIndex('subscription_members', new TableIndex({ name: 'IX_subscription_members_member', columnNames: ['member_id'] }));

    await q.createTable(
      table('endpoints', ['id'], [
        ['id', 'varchar', 36],
        ['kind', 'varchar', 16],
        ['version', 'integer'],
        ['created_at', ...TIME],
        ['display_name', 'varchar', 128, true],
        ['organization', 'varchar', 1024, true],
        ['department', 'varchar', 1024, true],
        ['keywords', 'varchar', 1024, true],
        ['name', 'varchar', 128],
        ['canonical_name', 'varchar', 400],
        ['owner_id', 'varchar', 36],
        ['owner_string', 'varchar', 255],
        ['description', 'text', undefined, true],
        ['contact_email', 'varchar', 254, true],
        ['contact_info', 'text', undefined, true],
        ['info_link', 'text', undefined, true],
        ['public', 'boolean'],
        ['subscription_id', 'varchar', 36, true],
        ['default_directory', 'text', undefined, true],
        ['force_encryption', 'boolean'],
        ['disable_verify', 'boolean'],
        ['myproxy_server', 'varchar', 255, true],
        ['myproxy_dn', 'varchar', 1024, true],
        ['oauth_server', 'varchar', 255, true],
        ['vendor_connect_setup_key', 'varchar', 36, true],
        ['vcp_connected', 'boolean', undefined, true],
        ['vcp_paused', 'boolean', undefined, true],
        ['host_endpoint_id', 'varchar', 36, true],
        ['host_path', 'text', undefined, true],
        ['s3_url', 'text', undefined, true],
        ['network_use', 'varchar', 16, true],
        ['custom_network', 'text', undefined, true],
        ['location', 'varchar', 64, true],
        ['local_user_info_available', 'boolean', undefined, true],
        ['https_server', 'text', undefined, true],
        ['servers', 'text'],
        ['next_server_id', 'integer'],
      ]),
    );
    // Uniqueness lives in the database so that concurrent creates cannot both win.
    await q.createIndex('endpoints', new TableIndex({ name: 'UQ_endpoints_canonical_name', columnNames: ['canonical_name'], isUnique: true }));
    await q.createIndex(
      'endpoints',
      new TableIndex({ name: 'UQ_endpoints_owner_display_name', columnNames: ['owner_id', 'display_name'], isUnique: true }),
    );
    await q.createIndex('endpoints', new TableIndex({ name: 'IX_endpoints_host', columnNames: ['host_endpoint_id'] }));

    await q.createTable(
      table('endpoint_tombstones', ['id'], [
        ['id', 'varchar', 36],
        ['canonical_name', 'varchar', 400],
        ['owner_id', 'varchar', 36],
        ['deleted_at', ...TIME],
      ]),
    );
    await q.createIndex('endpoint_tombstones', new TableIndex({ name: 'IX_tombstones_canonical_name', columnNames: ['canonical_name'] }));

    await q.createTable(
      table('role_assignments', ['id'], [
        ['id', 'varchar', 36],
        ['endpoint_id', 'varchar', 36],
        ['role', 'varchar', 32],
        ['principal_type', 'varchar', 16],
        ['principal_id', 'varchar', 36],
        ['created_at', ...TIME],
      ]),
    );
    await q.createIndex(
      'role_assignments',
      new TableIndex({ name: 'UQ_role_assignments', columnNames: ['endpoint_id', 'principal_id', 'role'], isUnique: true }),
    );

    await q.createTable(
      table('pause_rules', ['id'], [
        ['id', 'varchar', 36],
        ['endpoint_id', 'varchar', 36],
        ['message', 'text'],
        ['start_time', ...TIME, true],
        ['identity_id', 'varchar', 36, true],
        ['pause_ls', 'boolean'],
        ['pause_mkdir', 'boolean'],
        ['pause_rename', 'boolean'],
        ['pause_task_delete', 'boolean'],
        ['pause_task_transfer_write', 'boolean'],
        ['pause_task_transfer_read', 'boolean'],
        ['modified_by', 'varchar', 255],
        ['modified_by_id', 'varchar', 36],
        ['created_by_host_manager', 'boolean'],
      ]),
    );
    await q.createIndex('pause_rules', new TableIndex({ name: 'IX_pause_rules_endpoint', columnNames: ['endpoint_id'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const name of [
      'pause_rules',
      'role_assignments',
      'endpoint_tombstones',
      'endpoints',
      'subscription_members',
      'subscriptions',
      'access_tokens',
      'group_members',
      'groups',
      'identities',
    ]) {
      await q.dropTable(name);
    }
  }
}
