import { startApi, type Api } from './harness';

describe('smoke', () => {
  let api: Api;
  beforeEach(async () => (api = await startApi()));
  afterEach(() => api.close());
  it('creates and gets', async () => {
    const alice = await api.world.user('alice');
    const created = await api.as(alice.token).post('/endpoint', { display_name: 'x', DATA: [{ hostname: 'a.example.org' }] });
    console.log(created.status, created.body);
    const got = await api.as(alice.token).get(`/endpoint/${created.body.id}`);
    console.log(got.status, JSON.stringify(got.body));
    const bad = await api.as(alice.token).put(`/endpoint/${created.body.id}`, { display_name: 5, foo: 1, DATA: [{ port: 'x' }] });
    console.log(bad.status, bad.body);
    const put = await api.as(alice.token).put(`/endpoint/${created.body.id}`, got.body);
    console.log(put.status, put.body);
  });
});
