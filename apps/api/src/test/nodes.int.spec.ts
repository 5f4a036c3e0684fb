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
    expect([self.status, self.body]).toEqual([200, { DATA_TYPE: 'node', id: node.id, name: 'lab-node', url: 'https://lab-node.example.org:8443' }]);
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
});
