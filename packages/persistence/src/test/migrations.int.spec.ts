import { randomUUID } from 'node:crypto';
import { Endpoint, newIdentity } from '@xfer/core';
import { openEngine } from '../engine/openEngine';
import { MIGRATIONS } from '../migrations';
import { typeormRepositories } from '../TypeormUnitOfWork';
import { testBackends } from '../testing';

const EXPECTED_INDEXES = [
  'IX_access_tokens_identity', 'IX_access_tokens_client_identity', 'IX_access_tokens_consent_client_identity', 'IX_access_tokens_refresh', 'IX_refresh_tokens_client_identity', 'IX_refresh_tokens_code', 'IX_consents_identity', 'IX_endpoints_host', 'IX_endpoints_owner_host', 'IX_role_assignments_principal', 'IX_role_assignments_principal_host', 'IX_group_members_identity', 'IX_identities_set_id',
  'IX_pause_rules_endpoint', 'IX_access_rules_endpoint', 'IX_access_rules_principal', 'IX_sign_in_failures_key_at', 'IX_sign_in_failures_at', 'IX_sessions_expires', 'IX_authorization_codes_expires', 'IX_access_tokens_expires', 'IX_sessions_identity', 'IX_subscription_members_member', 'IX_subscription_administrators_principal', 'IX_tombstones_canonical_name', 'IX_tasks_owner_time', 'IX_tasks_status', 'IX_tasks_source', 'IX_tasks_destination', 'UQ_tasks_owner_submission', 'UQ_nodes_name_key',
  'UQ_endpoints_canonical_name', 'UQ_endpoints_owner_display_name', 'UQ_groups_name', 'UQ_identities_username', 'UQ_identities_username_lower',
  'UQ_role_assignments', 'UQ_scopes_name', 'UQ_subscriptions_name',
  'IX_endpoints_gcs_endpoint', 'IX_storage_gateways_node', 'IX_user_credentials_node', 'UQ_user_credentials_gateway_identity',
];

describe.each(testBackends())('migrations on $name', (backend) => {
  it('build the same named indexes, record every migration, and undo cleanly', async () => {
    const database = await backend.create();
    const engine = await openEngine(database.url);
    try {
      const indexQuery =
        backend.name === 'sqlite'
          ? "SELECT name FROM sqlite_master WHERE type = 'index' AND (name LIKE 'UQ_%' OR name LIKE 'IX_%')"
          : "SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public' AND (indexname LIKE 'UQ_%' OR indexname LIKE 'IX_%')";
      const indexes = (await engine.dataSource.query(indexQuery)) as { name: string }[];
      expect(indexes.map((i) => i.name).sort()).toEqual([...EXPECTED_INDEXES].sort());
      const applied = (await engine.dataSource.query('SELECT name FROM migrations')) as { name: string }[];
      expect(applied.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
      expect(await engine.dataSource.showMigrations()).toBe(false);
      for (let i = 0; i < MIGRATIONS.length; i++) await engine.dataSource.undoLastMigration();
      expect(await engine.dataSource.showMigrations()).toBe(true);
      await engine.dataSource.runMigrations();
      expect(await engine.dataSource.showMigrations()).toBe(false);
    } finally {
      await engine.close();
      await database.drop();
    }
  });

  it('makes usernames one without regard to case, and names the identities that stand in the way', async () => {
    const database = await backend.create();
    const engine = await openEngine(database.url);
    try {
      for (let i = MIGRATIONS.length - 1; MIGRATIONS[i].name !== 'UsernamesIgnoreCase1765238400000'; i--) await engine.dataSource.undoLastMigration();
      await engine.dataSource.undoLastMigration();
      const repositories = typeormRepositories(engine, engine.dataSource.manager);
      const now = new Date();
      await repositories.identities.add(newIdentity({ id: randomUUID(), username: 'Dana@Example.org', now }));
      await repositories.identities.add(newIdentity({ id: randomUUID(), username: 'dana@example.org', now }));
      await expect(engine.dataSource.runMigrations()).rejects.toThrow(/differ only in case: dana@example.org/);
      await engine.dataSource.query(`DELETE FROM identities WHERE username = ${backend.name === 'sqlite' ? '?' : '$1'}`, ['dana@example.org']);
      await engine.dataSource.runMigrations();
      await expect(repositories.identities.add(newIdentity({ id: randomUUID(), username: 'DANA@example.org', now }))).rejects.toThrow(/already exists/);
    } finally {
      await engine.close();
      await database.drop();
    }
  });

  it('keeps tokens and scopes made before the OAuth server working: old tokens carry the transfer scope', async () => {
    const database = await backend.create();
    const engine = await openEngine(database.url);
    try {
      // back to just before the OAuth server's migration
      for (let i = MIGRATIONS.length - 1; MIGRATIONS[i].name !== 'OAuthServer1764201600000'; i--) await engine.dataSource.undoLastMigration();
      await engine.dataSource.undoLastMigration();
      const p = (i: number) => (backend.name === 'sqlite' ? '?' : `$${i}`);
      await engine.dataSource.query(`INSERT INTO access_tokens (token_hash, identity_id, created_at) VALUES (${p(1)}, ${p(2)}, ${p(3)})`, ['a'.repeat(64), 'i', '2026-01-01T00:00:00.000Z']);
      await engine.dataSource.query(`INSERT INTO scopes (id, name, description, created_at) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)})`, ['s', 'urn:xfer:scope:storage.example.org:data_access', 'd', '2026-01-01T00:00:00.000Z']);
      await engine.dataSource.runMigrations();
      const repositories = typeormRepositories(engine, engine.dataSource.manager);
      expect(await repositories.accessTokens.findByHash('a'.repeat(64))).toMatchObject({
        scopes: ['urn:globus:auth:scope:transfer.api.globus.org:all'],
        resource_server: 'transfer.api.globus.org',
        client_id: null,
      });
      expect(await repositories.scopes.findByName('urn:xfer:scope:storage.example.org:data_access')).toMatchObject({ resource_server: 'storage.example.org', dependent_scope_ids: [] });
    } finally {
      await engine.close();
      await database.drop();
    }
  });

  it('revokes the tokens a client made from a template got as itself, and no other', async () => {
    const database = await backend.create();
    const engine = await openEngine(database.url);
    try {
      for (let i = MIGRATIONS.length - 1; MIGRATIONS[i].name !== 'TemplateClientsActAsPeople1765584000000'; i--) await engine.dataSource.undoLastMigration();
      await engine.dataSource.undoLastMigration();
      const repositories = typeormRepositories(engine, engine.dataSource.manager);
      const now = new Date('2026-11-20T00:00:00Z');
      const client = (id: string, template_id: string | null) => ({ id, display_name: id, branding: { logo_url: null, primary_color: null, background_color: null }, redirect_uris: [], public_client: false, secret_hash: 'h', resource_server: null, template_id, created_at: now });
      const made = randomUUID();
      const robot = randomUUID();
      const person = randomUUID();
      await repositories.clients.add(client(made, '95fdeba8-fac2-42bd-a357-e068d82ff78e'));
      await repositories.clients.add(client(robot, null));
      const token = (hash: string, identity_id: string, client_id: string) => ({ token_hash: hash.repeat(64), identity_id, client_id, created_at: now, expires_at: null, revoked_at: null, scopes: ['urn:globus:auth:scope:transfer.api.globus.org:all'], resource_server: 'transfer.api.globus.org', refresh_token_hash: null, consent_client_id: null });
      await repositories.accessTokens.add(token('a', made, made));
      await repositories.accessTokens.add(token('b', person, made));
      await repositories.accessTokens.add(token('c', robot, robot));
      await engine.dataSource.runMigrations();
      expect((await repositories.accessTokens.findByHash('a'.repeat(64)))?.revoked_at).toEqual(expect.any(Date));
      expect((await repositories.accessTokens.findByHash('b'.repeat(64)))?.revoked_at).toBeNull();
      expect((await repositories.accessTokens.findByHash('c'.repeat(64)))?.revoked_at).toBeNull();
    } finally {
      await engine.close();
      await database.drop();
    }
  });
  it("gives each confidential client made before its own identity, and none to public clients or those made from a template", async () => {
    const database = await backend.create();
    const engine = await openEngine(database.url);
    try {
      for (let i = MIGRATIONS.length - 1; MIGRATIONS[i].name !== 'ClientIdentities1765929600000'; i--) await engine.dataSource.undoLastMigration();
      await engine.dataSource.undoLastMigration();
      const repositories = typeormRepositories(engine, engine.dataSource.manager);
      const now = new Date('2026-11-20T00:00:00Z');
      const client = (id: string, public_client: boolean, template_id: string | null) => ({ id, display_name: `client ${id.slice(0, 4)}`, branding: { logo_url: null, primary_color: null, background_color: null }, redirect_uris: [], public_client, secret_hash: public_client ? null : 'h', resource_server: null, template_id, created_at: now });
      const [robot, app, made, used] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      await repositories.clients.add(client(robot, false, null));
      await repositories.clients.add(client(app, true, null));
      await repositories.clients.add(client(made, false, '95fdeba8-fac2-42bd-a357-e068d82ff78e'));
      await repositories.clients.add(client(used, false, null));
      // one that had used client credentials already keeps the identity it has
      await repositories.identities.add({ ...newIdentity({ id: used, username: `${used}@clients.auth.globus.org`, name: 'kept', now }), identity_type: 'client' });
      await engine.dataSource.runMigrations();
      expect(await repositories.identities.findById(robot)).toMatchObject({ id: robot, username: `${robot}@clients.auth.globus.org`, name: `client ${robot.slice(0, 4)}`, identity_type: 'client', set_id: robot, created_at: now });
      expect(await repositories.identities.findById(app)).toBeNull();
      expect(await repositories.identities.findById(made)).toBeNull();
      expect((await repositories.identities.findById(used))?.name).toBe('kept');
    } finally {
      await engine.close();
      await database.drop();
    }
  });

  it("makes each node a GCS endpoint, each of its bound directories a storage gateway, its endpoints mapped collections and their shares guest collections", async () => {
    const database = await backend.create();
    const engine = await openEngine(database.url);
    try {
      const repositories = typeormRepositories(engine, engine.dataSource.manager);
      const now = new Date('2026-11-20T00:00:00Z');
      const alice = newIdentity({ id: randomUUID(), username: 'alice@example.org', now });
      await repositories.identities.add(alice);
      const node = { id: randomUUID(), name: 'lab', url: 'https://lab.example.org:8443', secretHash: 'a'.repeat(64), createdAt: now, lastContact: null };
      await repositories.nodes.add(node);
      const bound = (name: string, root: string) => {
        const endpoint = Endpoint.create({ personal: true, display_name: name }, { id: randomUUID(), owner: alice, now, subscriptionId: null, setupKey: randomUUID() });
        endpoint.attachStorage({ type: 'node', node: node.id, root }, node.url);
        return endpoint;
      };
      const [one, two, three] = [bound('One', '/srv/lab'), bound('Two', '/srv/lab'), bound('Three', '/srv/other')];
      for (const endpoint of [one, two, three]) await repositories.endpoints.insert(endpoint);
      const share = Endpoint.createShared({ host_endpoint_id: one.id, host_path: '/projects/', display_name: 'Share' }, { id: randomUUID(), owner: alice, now, host: one, callerIsHostAdministrator: true });
      await repositories.endpoints.insert(share);
      for (let i = MIGRATIONS.length - 1; MIGRATIONS[i].name !== 'StorageGateways1766361600000'; i--) await engine.dataSource.undoLastMigration();
      await engine.dataSource.undoLastMigration();
      await engine.dataSource.runMigrations();

      expect((await repositories.endpoints.findById(node.id))?.snapshot).toMatchObject({ kind: 'gcs_endpoint', display_name: 'lab', owner_id: node.id, gcs_manager_url: node.url, public: true });
      expect(await repositories.scopes.findByName(`urn:globus:auth:scope:${node.id}:manage_collections`)).toMatchObject({ resource_server: node.id });
      const gateways = await repositories.storageGateways.listForNode(node.id);
      expect(gateways.map((g) => g.root).sort()).toEqual(['/srv/lab', '/srv/other']);
      const gatewayOf = (root: string) => gateways.find((g) => g.root === root)!.id;
      for (const [endpoint, root] of [[one, '/srv/lab'], [two, '/srv/lab'], [three, '/srv/other']] as const) {
        const migrated = (await repositories.endpoints.findById(endpoint.id))!;
        expect(migrated.collectionType).toBe('mapped');
        expect(migrated.snapshot).toMatchObject({ gcs_endpoint_id: node.id, gcs_manager_url: node.url, storage: { type: 'node', node: node.id, root } });
        expect(migrated.collection).toEqual({ storage_gateway_id: gatewayOf(root), base_path: '/', allow_guest_collections: true, delete_protected: false, user_credential_id: null });
      }
      const guest = (await repositories.endpoints.findById(share.id))!;
      expect(guest.collectionType).toBe('guest');
      expect(guest.snapshot).toMatchObject({ gcs_endpoint_id: node.id, host_endpoint_id: one.id, host_path: '/projects/' });
      expect(guest.collection?.storage_gateway_id).toBe(gatewayOf('/srv/lab'));
    } finally {
      await engine.close();
      await database.drop();
    }
  });
});

describe.each(testBackends())('the search index on $name', (backend) => {
  it('is written again when an endpoint changes its searched text or turns public, not on every update', async () => {
    const database = await backend.create();
    const engine = await openEngine(database.url);
    try {
      const now = new Date('2026-01-01T00:00:00Z');
      const owner = newIdentity({ id: randomUUID(), username: 'alice@example.org', name: 'Alice', email: null, now });
      const endpoint = Endpoint.create({ display_name: 'Ocean storage', personal: false, servers: [{ hostname: 'a.example.org' }] }, { id: randomUUID(), owner, now, subscriptionId: null, setupKey: randomUUID() });
      const repositories = typeormRepositories(engine, engine.dataSource.manager);
      await repositories.endpoints.insert(endpoint);
      // SQLite: FTS5 adds index segments (rows of endpoint_search_data) as it is written;
      // Postgres: each write of the search row makes a new row version (its xmin)
      const written = async () =>
        backend.name === 'sqlite'
          ? ((await engine.dataSource.query('SELECT count(*) AS n FROM endpoint_search_data')) as { n: number }[])[0].n
          : ((await engine.dataSource.query('SELECT xmin::text AS n FROM endpoint_search WHERE endpoint_id = $1', [endpoint.id])) as { n: string }[])[0].n;
      const search = (terms: string[], principalId: string) => repositories.endpoints.search({ terms, visibleTo: { principalIds: [principalId], roles: ['administrator'] }, offset: 0, limit: 10 });
      const afterInsert = await written();
      endpoint.addServer({ hostname: 'b.example.org' });
      endpoint.update({ force_encryption: true });
      await repositories.endpoints.update(endpoint);
      expect(await written()).toBe(afterInsert);
      // someone else finds it once it is public (Postgres keeps the flag in the search row)
      expect(await search(['ocean'], randomUUID())).toEqual([]);
      endpoint.update({ public: true });
      await repositories.endpoints.update(endpoint);
      expect((await search(['ocean'], randomUUID())).map((hit) => hit.endpoint.id)).toEqual([endpoint.id]);
      const beforeText = await written();
      endpoint.update({ description: 'tide gauges' });
      await repositories.endpoints.update(endpoint);
      expect(await written()).not.toBe(beforeText);
      expect((await search(['tide'], owner.id)).map((hit) => hit.endpoint.id)).toEqual([endpoint.id]);
    } finally {
      await engine.close();
      await database.drop();
    }
  });
});
