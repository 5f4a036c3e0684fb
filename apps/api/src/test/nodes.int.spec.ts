import { BACKENDS, startApi, type Api } from './harness';

describe.each(BACKENDS)('what a data node asks the API about itself ($name)', (backend) => {
  let api: Api;
  beforeEach(async () => {
    api = await startApi(backend);
  });
  afterEach(() => api.close());

  it('answers a node that presents its id and its current secret, and records its contact; refuses anything else alike', async () => {
    const { node, secret } = await api.world.services.admin.nodes.addNode({ name: 'lab-node', url: 'https://lab-node.example.org:8443' });
    const self = await api.http.get('/_xfer/node').auth(node.id, secret);
    // no endpoint is bound to it yet, and no process of the API has signed a call yet
    expect([self.status, self.body]).toEqual([200, { DATA_TYPE: 'node', id: node.id, name: 'lab-node', url: 'https://lab-node.example.org:8443', roots: [], call_keys: [] }]);
    expect(self.headers['cache-control']).toBe('no-store');
    expect((await api.world.services.admin.nodes.listNodes())[0]?.lastContact).toBeInstanceOf(Date);
    const alice = (await api.world.user('alice')).token;
    for (const refused of [
      api.http.get('/_xfer/node'),
      api.http.get('/_xfer/node').auth(node.id, `${secret}x`),
      api.http.get('/_xfer/node').auth('lab-node', secret),
      api.http.get('/_xfer/node').set('Authorization', `Bearer ${alice}`),
    ]) {
      const answer = await refused;
      expect([answer.status, answer.body.code]).toEqual([401, 'ClientError.AuthenticationFailed.DataNode']);
    }
    const { secret: renewed } = await api.world.services.admin.nodes.newSecret(node.id);
    expect((await api.http.get('/_xfer/node').auth(node.id, secret)).status).toBe(401);
    expect((await api.http.get('/_xfer/node').auth(node.id, renewed)).status).toBe(200);
  });

  it("tells a node the directories its endpoints are bound to and the public keys of the API's calls, never anything that signs", async () => {
    const { node, secret } = await api.world.services.admin.nodes.addNode({ name: 'lab-node', url: 'https://lab-node.example.org:8443' });
    const alice = (await api.world.user('alice')).token;
    const endpoint = (await api.as(alice).post('/endpoint', { display_name: 'On the node', DATA: [{ hostname: 'x.example.org' }] })).body.id as string;
    await api.world.services.admin.endpoints.setStorage(endpoint, { type: 'node', node: node.id, root: '/srv/lab' });
    await api.runtime.services.admin.nodes.publishCallKey({ kid: 'k1', publicJwk: JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'abc', kid: 'k1', alg: 'EdDSA', use: 'sig' }) });
    const self = (await api.http.get('/_xfer/node').auth(node.id, secret)).body;
    expect(self).toMatchObject({ roots: [{ endpoint, root: '/srv/lab' }], call_keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'abc', kid: 'k1', alg: 'EdDSA', use: 'sig' }] });
    expect(JSON.stringify(self)).not.toMatch(/"d"|secret/);
  });
});

describe.each(BACKENDS)('the data nodes an endpoint administrator sees ($name)', (backend) => {
  let api: Api;
  beforeEach(async () => {
    api = await startApi(backend);
  });
  afterEach(() => api.close());

  it('lists the nodes serving endpoints the caller administers, with their last contact; nothing of anyone else', async () => {
    const alice = (await api.world.user('alice')).token;
    const bob = await api.world.user('bob');
    const nodes = api.world.services.admin.nodes;
    const { node: lab, secret } = await nodes.addNode({ name: 'lab-node', url: 'https://lab-node.example.org:8443' });
    await nodes.addNode({ name: 'idle-node', url: 'https://idle.example.org' });
    await api.world.subscriptionFor('alice');
    // managed (roles are granted only there)
    const endpoint = async (name: string) => (await api.as(alice).post('/endpoint', { display_name: name, subscription_id: 'DEFAULT', DATA: [{ hostname: `${name.toLowerCase()}.example.org` }] })).body.id as string;
    const [raw, cooked, local] = [await endpoint('Raw'), await endpoint('Cooked'), await endpoint('Local')];
    for (const id of [raw, cooked]) await api.world.services.admin.endpoints.setStorage(id, { type: 'node', node: 'lab-node', root: '/srv/data' });
    await api.world.services.admin.endpoints.setStorage(local, { type: 'memory' });

    const listed = await api.as(alice).get('/data_node_list');
    expect(listed.status).toBe(200);
    // alice does not administer the node's GCS endpoint: none of its gateways or collections
    expect(listed.body.DATA).toEqual([{ DATA_TYPE: 'data_node', id: lab.id, name: 'lab-node', url: 'https://lab-node.example.org:8443', last_contact: null, endpoints: expect.arrayContaining([{ id: raw, display_name: 'Raw' }, { id: cooked, display_name: 'Cooked' }]), gcs_administrator: false, storage_gateways: [], collections: [] }]);
    expect(listed.body.DATA[0].endpoints).toHaveLength(2);
    // the node's contact shows once it has asked the API about itself
    await api.http.get('/_xfer/node').auth(lab.id, secret);
    expect((await api.as(alice).get('/data_node_list')).body.DATA[0].last_contact).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+00:00$/);
    // an activity monitor is no administrator; a stranger sees nothing
    expect((await api.as(alice).post(`/endpoint/${raw}/role`, { DATA_TYPE: 'role', principal_type: 'identity', principal: bob.id, role: 'activity_monitor' })).status).toBe(201);
    expect((await api.as(bob.token).get('/data_node_list')).body).toEqual({ DATA_TYPE: 'data_node_list', DATA: [] });
    expect((await api.as(alice).post(`/endpoint/${raw}/role`, { DATA_TYPE: 'role', principal_type: 'identity', principal: bob.id, role: 'administrator' })).status).toBe(201);
    expect((await api.as(bob.token).get('/data_node_list')).body.DATA).toEqual([expect.objectContaining({ name: 'lab-node', endpoints: [{ id: raw, display_name: 'Raw' }] })]);
    expect((await api.http.get('/v0.10/data_node_list')).status).toBe(401);
    // made an administrator of its GCS endpoint, bob sees its gateway (both endpoints share one directory) and its collections
    await api.world.services.admin.endpoints.grantRole(lab.id, 'administrator', 'bob');
    const administered = (await api.as(bob.token).get('/data_node_list')).body.DATA[0];
    expect(administered).toMatchObject({ gcs_administrator: true, storage_gateways: [{ id: expect.any(String), display_name: 'POSIX /srv/data', root: '/srv/data' }] });
    expect(administered.collections.map((c: { id: string; collection_type: string }) => [c.id, c.collection_type]).sort()).toEqual([[raw, 'mapped'], [cooked, 'mapped']].sort());
  });
});
