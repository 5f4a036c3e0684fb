import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { gcs } from '@globus/sdk';
import { manageCollectionsScopeOf, POSIX_CONNECTOR_ID } from '@xfer/core';
import { testBackends } from '@xfer/persistence/testing';
import { startApiAndNodes, type ApiAndNodes } from './apiAndNodes';
import { accountName, addAccount, passable, removeAccounts, type TestAccount } from './localAccounts';

/** A node is a Globus Connect Server endpoint (issue 70): its Manager API on its own port, its Transfer document. */
describe.each(testBackends())('a data node as a GCS endpoint ($name)', (backend) => {
  let world: ApiAndNodes;
  let node: ApiAndNodes['nodes'][number];
  let manager: string;
  beforeEach(async () => {
    world = await startApiAndNodes(backend, {});
    node = world.nodes[0]!;
    manager = `${node.server.url}/api`;
    await world.runtime.services.admin.endpoints.grantRole(node.id, 'administrator', 'alice');
  });
  const accounts: TestAccount[] = [];
  afterEach(async () => {
    await world.close();
    removeAccounts(accounts.splice(0));
  });

  const tokenOf = async (username: string, scope = manageCollectionsScopeOf(node.id)) => (await world.runtime.services.admin.tokens.issueToken(username, null, scope)).token;
  const call = async (path: string, init: { method?: string; token?: string; body?: unknown } = {}) => {
    const answer = await world.fetch(`${manager}${path}`, { method: init.method, token: init.token, ...(init.body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) }) });
    return { status: answer.statusCode, body: (await answer.body.json()) as Record<string, unknown> & { data: Record<string, unknown>[] } };
  };

  it('answers GET /info without a token: the node is the endpoint and its client, on the POSIX connector', async () => {
    const info = await call('/info');
    expect(info).toEqual({
      status: 200,
      body: {
        DATA_TYPE: 'result#1.1.0', code: 'success', detail: 'success', http_response_code: 200, has_next_page: false,
        data: [
          { DATA_TYPE: 'info#1.0.0', api_version: '1.29.0', client_id: node.id, endpoint_id: node.id, domain_name: 'localhost', manager_version: '5.4.10' },
          { DATA_TYPE: 'connector#1.1.0', display_name: 'POSIX', id: POSIX_CONNECTOR_ID, is_baa: false, is_ha: false },
        ],
      },
    });
  });

  it('shows its endpoint to the bearer of its manage_collections scope, and in Transfer as a GCSv5_endpoint owned by itself', async () => {
    const shown = await call('/endpoint', { token: await tokenOf('alice') });
    expect(shown.status).toBe(200);
    expect(shown.body.data[0]).toMatchObject({ DATA_TYPE: 'endpoint#1.2.0', id: node.id, display_name: 'node-one', gcs_manager_url: `https://localhost:${node.port}`, public: true });
    const transfer = (await world.as(world.alice.token).get(`/endpoint/${node.id}`)).body as Record<string, unknown>;
    expect(transfer).toMatchObject({ id: node.id, entity_type: 'GCSv5_endpoint', gcs_manager_url: `https://localhost:${node.port}`, gcs_version: '5.4.10', owner_id: node.id, owner_string: `${node.id}@clients.auth.globus.org`, non_functional: true, canonical_name: `${node.id}#${node.id}`, display_name: 'node-one' });
    // a token of the Transfer API, or none, opens nothing here
    for (const token of [world.alice.token, undefined]) {
      const refused = await call('/endpoint', { token });
      expect([refused.status, refused.body.code, refused.body.http_response_code]).toEqual([401, 'unauthorized', 401]);
    }
  });

  it('lets its administrators change the endpoint (Transfer shows it at once) and refuses anyone else, 403 permission_denied, nothing changed', async () => {
    const changed = await call('/endpoint', { method: 'PATCH', token: await tokenOf('alice'), body: { DATA_TYPE: 'endpoint#1.2.0', display_name: 'Lab DTN', organization: 'Example Lab', keywords: ['lab', 'dtn'] } });
    expect([changed.status, changed.body.data[0]]).toEqual([200, expect.objectContaining({ display_name: 'Lab DTN', organization: 'Example Lab', keywords: ['lab', 'dtn'] })]);
    expect((await world.as(world.alice.token).get(`/endpoint/${node.id}`)).body).toMatchObject({ display_name: 'Lab DTN', organization: 'Example Lab', keywords: 'lab,dtn' });
    const refused = await call('/endpoint', { method: 'PATCH', token: await tokenOf('bob'), body: { display_name: 'Mine now' } });
    expect([refused.status, refused.body.code, refused.body.message]).toEqual([403, 'permission_denied', 'Could not update the endpoint. Insufficient permissions']);
    const unknown = await call('/endpoint', { method: 'PATCH', token: await tokenOf('alice'), body: { DATA_TYPE: 'collection#1.0.0', display_name: 'x' } });
    expect([unknown.status, unknown.body.code, unknown.body.message]).toEqual([422, 'unprocessable_entity', expect.stringContaining('Invalid DATA_TYPE')]);
    expect((await world.as(world.alice.token).get(`/endpoint/${node.id}`)).body.display_name).toBe('Lab DTN');
  });

  it('lists the roles on the endpoint to those who hold one', async () => {
    const roles = await call('/roles', { token: await tokenOf('alice') });
    expect(roles.status).toBe(200);
    expect(roles.body.data).toEqual([{ DATA_TYPE: 'role#1.0.0', id: expect.any(String), role: 'administrator', collection: null, principal: `urn:globus:auth:identity:${world.alice.id}` }]);
    expect((await call('/roles', { token: await tokenOf('bob') })).status).toBe(403);
  });

  /** A directory of node one holding `files`; its path. */
  const directory = (name: string, files: Record<string, string>) => {
    const root = join(node.root, name);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    mkdirSync(root, { recursive: true });
    return root;
  };
  const gcsConfig = () => ({ host: node.server.url, endpoint_id: node.id });
  /** The first element of a GCS answer's data, as @globus/sdk gives the answer. */
  const first = async (answer: Response) => ({ status: answer.status, body: ((await answer.json()) as { data: Record<string, unknown>[] }).data[0]! });
  const transferDoc = async (id: string) => (await world.as(world.alice.token).get(`/endpoint/${id}`)).body as Record<string, unknown>;

  it('lets its administrator make a storage gateway and a mapped collection on it with @globus/sdk; Transfer follows every change', async () => {
    const alice = await tokenOf('alice');
    const { options, sdkOptions } = world.sdk(alice);
    const root = directory('lab-data', { 'results/run-1.csv': 'a,b\n1,2\n' });
    const made = await first(await gcs.storageGateways.create(gcsConfig(), { ...options, payload: { DATA_TYPE: 'storage_gateway#1.0.0', connector_id: POSIX_CONNECTOR_ID, display_name: 'Lab storage', root, policies: { DATA_TYPE: 'posix_storage_policies#1.0.0', groups_allow: [], groups_deny: [] } } as never }, sdkOptions));
    expect(made).toMatchObject({ status: 200, body: { DATA_TYPE: 'storage_gateway#1.1.0', display_name: 'Lab storage', root, connector_id: POSIX_CONNECTOR_ID, high_assurance: false, policies: { DATA_TYPE: 'posix_storage_gateway#1.0.0' } } });
    const gateway = made.body.id as string;
    const listed = (await (await gcs.storageGateways.getAll(gcsConfig(), options, sdkOptions)).json()) as { data: { id: string }[] };
    // node-one's Lab endpoint is a mapped collection of a gateway of its own directory
    expect(listed.data.map((g) => g.id)).toContain(gateway);

    const created = await first(await gcs.collections.create(gcsConfig(), { ...options, payload: { DATA_TYPE: 'collection#1.0.0', collection_type: 'mapped', storage_gateway_id: gateway, collection_base_path: '/', display_name: 'Lab data' } as never }, sdkOptions));
    expect(created).toMatchObject({ status: 200, body: { DATA_TYPE: 'collection#1.8.0', collection_type: 'mapped', display_name: 'Lab data', storage_gateway_id: gateway, collection_base_path: '/', identity_id: world.alice.id, delete_protected: true, allow_guest_collections: false, public: true, high_assurance: false, manager_url: `https://localhost:${node.port}` } });
    const id = created.body.id as string;
    expect(await transferDoc(id)).toMatchObject({ id, entity_type: 'GCSv5_mapped_collection', display_name: 'Lab data', owner_id: node.id, owner_string: `${node.id}@clients.auth.globus.org`, canonical_name: `${node.id}#${id}`, gcs_manager_url: `https://localhost:${node.port}`, https_server: `https://localhost:${node.port}/${id}`, host_endpoint_id: null, high_assurance: false, non_functional: false, gcs_version: '5.4.10' });
    // its creator uses its files through Transfer, as the owner of a node-bound endpoint
    const ls = await world.as(world.alice.token).get(`/operation/endpoint/${id}/ls?path=/results/`);
    expect([ls.status, (ls.body.DATA as { name: string }[]).map((entry) => entry.name)]).toEqual([200, ['run-1.csv']]);
    expect((await world.as(world.bob.token).get(`/operation/endpoint/${id}/ls?path=/`)).status).toBe(403);

    const renamed = await first(await gcs.collections.patch(gcsConfig(), id, { ...options, payload: { DATA_TYPE: 'collection#1.0.0', display_name: 'Lab data (2026)', collection_type: 'mapped', storage_gateway_id: gateway } as never }, sdkOptions));
    expect([renamed.status, renamed.body.display_name]).toEqual([200, 'Lab data (2026)']);
    expect((await transferDoc(id)).display_name).toBe('Lab data (2026)');
    const mine = (await call(`/collections?filter=mapped_collections,created_by_me`, { token: alice })).body.data.map((c) => c.id);
    // node-one's Lab, bound by an operator, is alice's mapped collection too
    expect(mine).toEqual([world.lab.id, id]);

    // a gateway's settings change; its root stays while a collection lies in it
    const mapping = [{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [{ source: '{username}', match: '(.*)@example\\.org', output: '{0}', ignore_case: false, literal: false }] }];
    const restrictions = { DATA_TYPE: 'path_restrictions#1.0.0', read_write: ['/'], read: [], none: ['/private'] };
    const patched = await call(`/storage_gateways/${gateway}`, { method: 'PATCH', token: alice, body: { DATA_TYPE: 'storage_gateway#1.0.0', display_name: 'Lab storage (POSIX)', allowed_domains: ['Example.org'], identity_mappings: mapping, restrict_paths: restrictions } });
    expect([patched.status, patched.body.data[0]]).toEqual([200, expect.objectContaining({ display_name: 'Lab storage (POSIX)', allowed_domains: ['example.org'], root, identity_mappings: mapping, restrict_paths: restrictions })]);
    const moved = await call(`/storage_gateways/${gateway}`, { method: 'PATCH', token: alice, body: { root: '/' } });
    expect([moved.status, moved.body.message]).toEqual([422, expect.stringContaining('root')]);
    expect((await call(`/storage_gateways/${gateway}`, { token: alice })).body.data[0]).toMatchObject({ display_name: 'Lab storage (POSIX)', root });
    // pages of collections, by marker
    const firstPage = await call('/collections?page_size=1', { token: alice });
    expect([firstPage.body.data.length, firstPage.body.has_next_page, typeof firstPage.body.marker]).toEqual([1, true, 'string']);
    const secondPage = await call(`/collections?page_size=1&marker=${firstPage.body.marker as string}`, { token: alice });
    expect(secondPage.body.data[0]!.id).not.toBe(firstPage.body.data[0]!.id);
    expect((await call('/collections?marker=not-a-marker', { token: alice })).body.message).toContain('marker');

    // a bearer without the endpoint's administrator role changes nothing
    const bob = await tokenOf('bob');
    for (const [path, method, body] of [
      ['/collections', 'POST', { DATA_TYPE: 'collection#1.0.0', collection_type: 'mapped', storage_gateway_id: gateway, collection_base_path: '/', display_name: 'Mine' }],
      [`/collections/${id}`, 'PATCH', { display_name: 'Mine' }],
      [`/collections/${id}`, 'DELETE', undefined],
      ['/storage_gateways', 'POST', { display_name: 'Mine', root: '/' }],
      [`/storage_gateways/${gateway}`, 'DELETE', undefined],
    ] as const) {
      const refused = await call(path, { method, token: bob, body });
      expect([path, method, refused.status, refused.body.code]).toEqual([path, method, 403, 'permission_denied']);
    }
    // it is public: bob reads it
    expect((await call(`/collections/${id}`, { token: bob })).body.data[0]).toMatchObject({ id, display_name: 'Lab data (2026)' });

    // delete protected until cleared; then gone from Transfer as any deleted endpoint
    const protectedAnswer = await call(`/collections/${id}`, { method: 'DELETE', token: alice });
    expect([protectedAnswer.status, protectedAnswer.body.code, protectedAnswer.body.message]).toEqual([409, 'conflict', expect.stringContaining('delete protected')]);
    expect((await call(`/storage_gateways/${gateway}`, { method: 'DELETE', token: alice })).status).toBe(409);
    await call(`/collections/${id}`, { method: 'PATCH', token: alice, body: { delete_protected: false } });
    expect((await gcs.collections.remove(gcsConfig(), id, options, sdkOptions)).status).toBe(200);
    const gone = await world.as(world.alice.token).get(`/endpoint/${id}`);
    expect([gone.status, gone.body.code]).toEqual([409, 'EndpointDeleted']);
    expect((await call(`/collections/${id}`, { token: alice })).status).toBe(404);
    expect((await call(`/storage_gateways/${gateway}`, { method: 'DELETE', token: alice })).status).toBe(200);
    expect((await call(`/storage_gateways/${gateway}`, { token: alice })).status).toBe(404);
  });

  it("never serves a directory holding the node's own secret or TLS key, whatever root an administrator gives a gateway", async () => {
    const alice = await tokenOf('alice');
    // the test's nodes keep their secrets and certificates in the folder above their storage
    const above = dirname(node.secretFile);
    for (const root of [above, '/']) {
      const gateway = (await call('/storage_gateways', { method: 'POST', token: alice, body: { display_name: `All of ${root}`, root } })).body.data[0]!.id as string;
      const id = (await call('/collections', { method: 'POST', token: alice, body: { collection_type: 'mapped', storage_gateway_id: gateway, collection_base_path: '/', display_name: `All of ${root}` } })).body.data[0]!.id as string;
      const ls = await world.as(world.alice.token).get(`/operation/endpoint/${id}/ls?path=${encodeURIComponent(above)}`);
      // the node refuses the API: an external error naming why, never the files
      expect([root, ls.status, ls.body.message]).toEqual([root, 409, expect.stringContaining("holds the node's own secret or TLS key")]);
      const secretPath = root === '/' ? node.secretFile : `/${basename(node.secretFile)}`;
      const read = await world.fetch(`https://localhost:${node.port}/${id}${secretPath}`, { token: await world.httpsToken('alice', id) });
      expect([root, read.statusCode, (await read.body.text()).includes(readFileSync(node.secretFile, 'utf8').trim())]).toEqual([root, 403, false]);
    }
    // a directory beside them is served
    expect((await world.as(world.alice.token).get(`/operation/endpoint/${world.lab.id}/ls?path=/`)).status).toBe(200);
  });

  it("refuses an identity its mapping maps to no account, in the hosted words, before the node is reached; a guest collection maps its creator", async () => {
    const alice = await tokenOf('alice');
    // node-one's Lab: a mapped collection on a gateway of its own directory
    const gateway = (await call(`/collections/${world.lab.id}`, { token: alice })).body.data[0]!.storage_gateway_id as string;
    // the account the mapping names, on the node's machine (a node acts as it)
    const labuser = addAccount(accountName('xfl'));
    accounts.push(labuser);
    passable(world.lab.root);
    const mapOnly = (match: string, source = '{username}') => call(`/storage_gateways/${gateway}`, { method: 'PATCH', token: alice, body: { identity_mappings: [{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [{ source, match, output: labuser.name }] }] } });
    expect((await mapOnly('(.*)@example\\.org')).status).toBe(200);
    const ls = await world.as(world.alice.token).get(`/operation/endpoint/${world.lab.id}/ls?path=/`);
    expect([ls.status, ls.body.code]).toEqual([409, 'ExternalError.DirListingFailed.LoginFailed']);
    expect(ls.body.message).toContain('Message: Login Failed');
    expect(ls.body.message).toContain('does not map to a valid username for this connector');
    const mkdir = await world.as(world.alice.token).post(`/operation/endpoint/${world.lab.id}/mkdir`, { DATA_TYPE: 'mkdir', path: '/new/' });
    expect([mkdir.status, mkdir.body.code]).toEqual([409, 'ExternalError.MkdirFailed.LoginFailed']);
    // a mapping that needs what the identity lacks fails, saying so
    await mapOnly('(.*)', '{organization}');
    expect((await world.as(world.alice.token).get(`/operation/endpoint/${world.lab.id}/ls?path=/`)).body.message).toContain('Missing identity property organization');
    // one that maps: the operation goes on
    await mapOnly('alice');
    expect((await world.as(world.alice.token).get(`/operation/endpoint/${world.lab.id}/ls?path=/`)).status).toBe(200);
    // a guest collection acts as its creator's account, whoever reads: bob maps to nothing, yet lists it
    await call(`/collections/${world.lab.id}`, { method: 'PATCH', token: alice, body: { allow_guest_collections: true } });
    await call('/user_credentials', { method: 'POST', token: alice, body: { storage_gateway_id: gateway, username: labuser.name } });
    const guest = (await call('/collections', { method: 'POST', token: alice, body: { collection_type: 'guest', mapped_collection_id: world.lab.id, collection_base_path: '/', display_name: 'Lab, shared' } })).body.data[0]!.id as string;
    await world.as(world.alice.token).post(`/endpoint/${guest}/access`, { DATA_TYPE: 'access', principal_type: 'identity', principal: world.bob.id, path: '/', permissions: 'r' });
    expect((await world.as(world.bob.token).get(`/operation/endpoint/${guest}/ls?path=/`)).status).toBe(200);
    // once its creator no longer maps, nobody reads it
    await mapOnly('nobody');
    expect((await world.as(world.bob.token).get(`/operation/endpoint/${guest}/ls?path=/`)).body.code).toBe('ExternalError.DirListingFailed.LoginFailed');
  });

  it('answers bad documents 422 naming the field, and makes nothing', async () => {
    const alice = await tokenOf('alice');
    const gateway = (await call('/storage_gateways', { method: 'POST', token: alice, body: { DATA_TYPE: 'storage_gateway#1.0.0', display_name: 'Lab', root: directory('lab-422', {}) } })).body.data[0]!.id as string;
    const before = (await call('/collections', { token: alice })).body.data.length;
    const mapped = { DATA_TYPE: 'collection#1.0.0', collection_type: 'mapped', storage_gateway_id: gateway, collection_base_path: '/', display_name: 'X' };
    for (const [body, field] of [
      [{ ...mapped, storage_gateway_id: undefined }, 'storage_gateway_id'],
      [{ ...mapped, storage_gateway_id: '9d6d994a-0000-4000-8000-000000000000' }, 'storage_gateway_id'],
      [{ ...mapped, collection_base_path: '/../etc' }, 'collection_base_path'],
      [{ ...mapped, collection_base_path: 'relative' }, 'collection_base_path'],
      [{ ...mapped, DATA_TYPE: 'endpoint#1.0.0' }, 'DATA_TYPE'],
      [{ ...mapped, collection_type: 'other' }, 'collection_type'],
      [{ ...mapped, public: 'yes' }, 'public'],
      [{ ...mapped, display_name: undefined }, 'display_name'],
    ] as const) {
      const refused = await call('/collections', { method: 'POST', token: alice, body });
      expect([field, refused.status, refused.body.code, refused.body.message]).toEqual([field, 422, 'unprocessable_entity', expect.stringContaining(field)]);
    }
    for (const [body, field] of [
      [{ display_name: 'S3', connector_id: '7643e831-5f6c-4b47-a07f-8ee90f401d23', root: '/' }, 'connector_id'],
      [{ display_name: 'Up', root: '/srv/../etc' }, 'root'],
      [{ display_name: 'HA', high_assurance: true }, 'high_assurance'],
      [{ display_name: 'P', policies: { DATA_TYPE: 'blackpearl_storage_policies#1.0.0' } }, 'policies.DATA_TYPE'],
      [{ root: '/' }, 'display_name'],
      [{ display_name: 'M', identity_mappings: [{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [{ source: '{username}', match: '\\d+', output: '{0}' }] }] }, 'identity_mappings[0].mappings[0].match'],
      [{ display_name: 'M', identity_mappings: [{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [{ source: '{username}', match: '(.*)', output: '{0}', read_only: true }] }] }, 'identity_mappings[0].mappings[0].read_only'],
      [{ display_name: 'R', restrict_paths: { DATA_TYPE: 'path_restrictions#1.0.0', read_only: ['/'] } }, 'restrict_paths.read_only'],
    ] as const) {
      const refused = await call('/storage_gateways', { method: 'POST', token: alice, body });
      expect([field, refused.status, refused.body.message]).toEqual([field, 422, expect.stringContaining(field)]);
    }
    expect((await call('/collections', { token: alice })).body.data.length).toBe(before);
    expect((await call('/storage_gateways', { token: alice })).body.data.map((g) => g.display_name)).not.toContain('S3');
    const notFound = await call('/nothing-here', { token: alice });
    expect([notFound.status, notFound.body.code]).toEqual([404, 'not_found']);
  });

  it('grants endpoint and collection roles, keeps user credentials, and makes guest collections a second user is given access to', async () => {
    const alice = await tokenOf('alice');
    const bob = await tokenOf('bob');
    const root = directory('shared-data', { 'projects/x/notes.txt': 'project x', 'private.txt': 'not shared' });
    const gateway = (await call('/storage_gateways', { method: 'POST', token: alice, body: { display_name: 'Shared', root, allowed_domains: [] } })).body.data[0]!.id as string;
    const mappedOf = async (allow: boolean) => (await call('/collections', { method: 'POST', token: alice, body: { collection_type: 'mapped', storage_gateway_id: gateway, collection_base_path: '/', display_name: `Shared ${allow}`, allow_guest_collections: allow } })).body.data[0]!.id as string;
    const [mapped, closed] = [await mappedOf(true), await mappedOf(false)];

    // endpoint roles: granted by its administrator, refused to others
    const granted = await call('/roles', { method: 'POST', token: alice, body: { DATA_TYPE: 'role#1.0.0', role: 'activity_monitor', principal: `urn:globus:auth:identity:${world.bob.id}` } });
    expect(granted.body.data[0]).toEqual({ DATA_TYPE: 'role#1.0.0', id: expect.any(String), role: 'activity_monitor', collection: null, principal: `urn:globus:auth:identity:${world.bob.id}` });
    const roleId = granted.body.data[0]!.id as string;
    expect((await call(`/roles/${roleId}`, { token: bob })).body.data[0]).toMatchObject({ id: roleId, role: 'activity_monitor' });
    expect((await call('/roles', { token: bob })).body.data.map((r) => r.role).sort()).toEqual(['activity_monitor', 'administrator']);
    expect((await call('/roles', { method: 'POST', token: bob, body: { role: 'administrator', principal: `urn:globus:auth:identity:${world.bob.id}` } })).status).toBe(403);
    for (const [body, field] of [[{ role: 'owner', principal: `urn:globus:auth:identity:${world.bob.id}` }, 'role'], [{ role: 'administrator', principal: 'bob' }, 'principal']] as const) {
      const refused = await call('/roles', { method: 'POST', token: alice, body });
      expect([refused.status, refused.body.message]).toEqual([422, expect.stringContaining(field)]);
    }
    expect((await call(`/roles/${roleId}`, { method: 'DELETE', token: alice })).status).toBe(200);
    expect((await call('/roles', { token: bob })).status).toBe(403);
    // a collection's roles: its creator administers it
    const collectionRoles = await call(`/roles?collection_id=${mapped}`, { token: alice });
    expect(collectionRoles.body.data).toEqual([expect.objectContaining({ role: 'administrator', collection: mapped, principal: `urn:globus:auth:identity:${world.alice.id}` })]);

    // user credentials: one per identity and gateway; one's own, or any to the endpoint's administrators
    const { options, sdkOptions } = world.sdk(alice);
    const credential = await gcs.userCredentials.create(gcsConfig(), { ...options, payload: { DATA_TYPE: 'user_credential#1.0.0', storage_gateway_id: gateway, username: 'lab', identity_id: world.alice.id } as never }, sdkOptions);
    const credentialBody = (await credential.json()) as { http_response_code: number; message: string; data: Record<string, unknown>[] };
    expect([credential.status, credentialBody.http_response_code, credentialBody.data[0]]).toEqual([201, 201, expect.objectContaining({ DATA_TYPE: 'user_credential#1.0.0', identity_id: world.alice.id, username: 'lab', storage_gateway_id: gateway, connector_id: POSIX_CONNECTOR_ID })]);
    expect(credentialBody.message).toBe(`Created User Credential ${credentialBody.data[0]!.id as string}`);
    const again = await call('/user_credentials', { method: 'POST', token: alice, body: { storage_gateway_id: gateway, username: 'lab' } });
    expect([again.status, again.body.code]).toEqual([409, 'conflict']);
    expect((await call('/user_credentials', { method: 'POST', token: bob, body: { storage_gateway_id: gateway, username: 'lab', identity_id: world.alice.id } })).status).toBe(403);
    // no username named: the identity's without its domain, as GCS's default mapping
    const bobs = await call('/user_credentials', { method: 'POST', token: bob, body: { DATA_TYPE: 'user_credential#1.0.0', storage_gateway_id: gateway } });
    expect([bobs.status, bobs.body.data[0]]).toEqual([201, expect.objectContaining({ username: 'bob', identity_id: world.bob.id })]);
    expect((await call(`/user_credentials?storage_gateway=${gateway}`, { token: bob })).body.data.map((c) => c.identity_id)).toEqual([world.bob.id]);
    const credentialId = credentialBody.data[0]!.id as string;
    const renamedCredential = await call(`/user_credentials/${credentialId}`, { method: 'PATCH', token: alice, body: { DATA_TYPE: 'user_credential#1.0.0', display_name: 'Lab account', username: 'lab2' } });
    expect([renamedCredential.status, renamedCredential.body.data[0]]).toEqual([200, expect.objectContaining({ display_name: 'Lab account', username: 'lab2' })]);
    expect((await call(`/user_credentials/${credentialId}`, { method: 'PATCH', token: alice, body: { identity_id: world.bob.id } })).body.message).toContain('identity_id');
    expect((await call(`/user_credentials/${credentialId}`, { token: alice })).body.data[0]).toMatchObject({ id: credentialId, username: 'lab2', identity_id: world.alice.id });
    expect((await call(`/user_credentials/${credentialId}`, { token: bob })).status).toBe(403);
    // the endpoint's administrator sees everyone's
    expect((await call(`/user_credentials?storage_gateway=${gateway}`, { token: alice })).body.data.map((c) => c.identity_id)).toEqual([world.alice.id, world.bob.id]);

    // guest collections: on a mapped collection that allows them, with the creator's credential
    const guestBody = { DATA_TYPE: 'collection#1.0.0', collection_type: 'guest', mapped_collection_id: mapped, collection_base_path: '/projects', display_name: 'Project X', public: true };
    const shut = await call('/collections', { method: 'POST', token: alice, body: { ...guestBody, mapped_collection_id: closed } });
    expect([shut.status, shut.body.message]).toEqual([422, expect.stringContaining('allow_guest_collections')]);
    const guest = (await call('/collections', { method: 'POST', token: alice, body: guestBody })).body.data[0]!;
    expect(guest).toMatchObject({ collection_type: 'guest', mapped_collection_id: mapped, user_credential_id: credentialBody.data[0]!.id, collection_base_path: '/projects', identity_id: world.alice.id, storage_gateway_id: gateway });
    const guestId = guest.id as string;
    expect(await transferDoc(guestId)).toMatchObject({ entity_type: 'GCSv5_guest_collection', host_endpoint_id: mapped, owner_id: node.id, gcs_manager_url: `https://localhost:${node.port}`, https_server: `https://localhost:${node.port}/${guestId}` });
    // endpoint_search finds each by its entity type
    const ofType = async (type: string) => ((await world.as(world.alice.token).get(`/endpoint_search?filter_scope=administered-by-me&filter_entity_type=${type}`)).body.DATA as { id: string }[]).map((e) => e.id);
    expect(await ofType('GCSv5_guest_collection')).toEqual([guestId]);
    const mappedOnes = await ofType('GCSv5_mapped_collection');
    expect(mappedOnes).toEqual(expect.arrayContaining([mapped, closed, world.lab.id, world.archive.id]));
    expect(mappedOnes).not.toContain(guestId);
    expect(await ofType('GCSv5_endpoint')).toEqual([node.id]);
    expect(await ofType('GCP_mapped_collection')).toEqual([]);
    // bob has a credential but no role on the mapped collection: no guest collection of his
    expect((await call('/collections', { method: 'POST', token: bob, body: guestBody })).status).toBe(403);
    // its creator shares it with bob through Transfer; bob lists it, and nothing above its base
    const rule = await world.as(world.alice.token).post(`/endpoint/${guestId}/access`, { DATA_TYPE: 'access', principal_type: 'identity', principal: world.bob.id, path: '/', permissions: 'r' });
    expect(rule.status).toBe(201);
    const listed = await world.as(world.bob.token).get(`/operation/endpoint/${guestId}/ls?path=/`);
    expect([listed.status, (listed.body.DATA as { name: string }[]).map((entry) => entry.name)]).toEqual([200, ['x']]);
    expect((await world.as(world.bob.token).get(`/operation/endpoint/${guestId}/ls?path=/../`)).status).toBe(400);
    const bobsView = (await call(`/collections?filter=guest_collections`, { token: bob })).body.data.map((c) => c.id);
    expect(bobsView).toEqual([guestId]);

    // what guests stand on stays while they do
    expect((await call(`/user_credentials/${credentialBody.data[0]!.id as string}`, { method: 'DELETE', token: alice })).status).toBe(409);
    await call(`/collections/${mapped}`, { method: 'PATCH', token: alice, body: { delete_protected: false } });
    const inUse = await call(`/collections/${mapped}`, { method: 'DELETE', token: alice });
    expect([inUse.status, inUse.body.message]).toEqual([409, expect.stringContaining('guest collections')]);
    await call(`/collections/${guestId}`, { method: 'PATCH', token: alice, body: { delete_protected: false } });
    expect((await call(`/collections/${guestId}`, { method: 'DELETE', token: alice })).status).toBe(200);
    expect((await call(`/collections/${mapped}`, { method: 'DELETE', token: alice })).status).toBe(200);
    expect((await call(`/user_credentials/${credentialBody.data[0]!.id as string}`, { method: 'DELETE', token: alice })).status).toBe(200);
  });

  it('made with its owner, and removed with its documents', async () => {
    const { node: added } = await world.runtime.services.admin.nodes.addNode({ name: 'dtn-two', url: 'https://dtn-two.example.org:8443', owner: 'alice' });
    expect((await world.as(world.alice.token).get(`/endpoint/${added.id}`)).body).toMatchObject({ entity_type: 'GCSv5_endpoint', gcs_manager_url: 'https://dtn-two.example.org:8443' });
    expect((await world.runtime.services.admin.endpoints.listRoles(added.id)).map((role) => [role.role, role.principal])).toEqual([['administrator', 'alice']]);
    // an endpoint bound to one of its directories is its mapped collection, a share of that its guest collection
    const bound = (await world.as(world.alice.token).post('/endpoint', { display_name: 'On dtn-two' })).body.id as string;
    await world.runtime.services.admin.endpoints.setStorage(bound, { type: 'node', node: 'dtn-two', root: '/srv/data' });
    const share = (await world.as(world.alice.token).post('/shared_endpoint', { DATA_TYPE: 'shared_endpoint', host_endpoint: bound, host_path: '/x/', display_name: 'Share on dtn-two' })).body.id as string;
    expect([(await transferDoc(bound)).entity_type, (await transferDoc(share)).entity_type]).toEqual(['GCSv5_mapped_collection', 'GCSv5_guest_collection']);
    await world.runtime.services.admin.nodes.removeNode(added.id);
    for (const id of [added.id, bound, share]) {
      const gone = await world.as(world.alice.token).get(`/endpoint/${id}`);
      expect([gone.status, gone.body.code]).toEqual([409, 'EndpointDeleted']);
    }
    await expect(world.runtime.services.admin.nodes.addNode({ name: 'dtn-three', url: 'https://dtn-three.example.org', owner: 'nobody' })).rejects.toThrow("No identity or group named 'nobody'");
  });
});
