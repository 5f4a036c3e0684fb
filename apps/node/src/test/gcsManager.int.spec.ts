import { manageCollectionsScopeOf, POSIX_CONNECTOR_ID } from '@xfer/core';
import { testBackends } from '@xfer/persistence/testing';
import { startApiAndNodes, type ApiAndNodes } from './apiAndNodes';

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
  afterEach(() => world.close());

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

  it('made with its owner, and removed with its documents', async () => {
    const { node: added } = await world.runtime.services.admin.nodes.addNode({ name: 'dtn-two', url: 'https://dtn-two.example.org:8443', owner: 'alice' });
    expect((await world.as(world.alice.token).get(`/endpoint/${added.id}`)).body).toMatchObject({ entity_type: 'GCSv5_endpoint', gcs_manager_url: 'https://dtn-two.example.org:8443' });
    expect((await world.runtime.services.admin.endpoints.listRoles(added.id)).map((role) => [role.role, role.principal])).toEqual([['administrator', 'alice']]);
    await world.runtime.services.admin.nodes.removeNode(added.id);
    const gone = await world.as(world.alice.token).get(`/endpoint/${added.id}`);
    expect([gone.status, gone.body.code]).toEqual([409, 'EndpointDeleted']);
    await expect(world.runtime.services.admin.nodes.addNode({ name: 'dtn-three', url: 'https://dtn-three.example.org', owner: 'nobody' })).rejects.toThrow("No identity or group named 'nobody'");
  });
});
