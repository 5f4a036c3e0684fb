import { BACKENDS, startApi, type Api } from './harness';

/** GET /endpoint/<id>/shared_endpoint_list (catalogue features 2), on every database. */
describe.each(BACKENDS)('shares of a host on $name', (backend) => {
  let api: Api;
  let alice: string;
  let bob: string;
  let host: string;
  let shares: { id: string }[];
  beforeEach(async () => {
    api = await startApi(backend);
    alice = (await api.world.user('alice')).token;
    ({ token: bob } = await api.world.user('bob'));
    await api.world.subscriptionFor('alice');
    host = (await api.as(alice).post('/endpoint', { display_name: 'Host', subscription_id: 'DEFAULT', DATA: [{ hostname: 'h.example.org' }] })).body.id;
    shares = [];
    for (let n = 0; n < 7; n++) {
      shares.push({ id: (await api.as(alice).post('/shared_endpoint', { display_name: `Share ${n}`, host_endpoint: host, host_path: `/~/s${n}/` })).body.id });
    }
  });
  afterEach(() => api.close());

  async function collect(token: string, maxResults: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const query: string = next ? `max_results=${maxResults}&next_token=${encodeURIComponent(next)}` : `max_results=${maxResults}`;
      const res = await api.as(token).get(`/endpoint/${host}/shared_endpoint_list?${query}`);
      expect(res.status).toBe(200);
      expect(res.body.DATA_TYPE).toBe('shared_endpoint_list');
      if (res.body.next_token !== null) expect(res.body.shared_endpoints.length).toBeGreaterThan(0);
      ids.push(...res.body.shared_endpoints.map((e: { id: string }) => e.id));
      next = res.body.next_token;
      pages++;
    } while (next !== null && pages < 50);
    return { ids, pages };
  }

  it('pages through every share the administrator can GET exactly once, whatever the page size', async () => {
    for (const size of [1, 2, 3, 1000]) {
      const { ids, pages } = await collect(alice, size);
      expect(ids).toEqual(shares.map((s) => s.id));
      expect(pages).toBe(size >= 7 ? 1 : Math.ceil(7 / size) + (7 % size === 0 ? 1 : 0));
    }
  });

  it("lists for a host's activity monitor too (shares are public, so it could GET each), with their host paths, which host monitors may see", async () => {
    await api.world.services.admin.endpoints.grantRole(host, 'activity_monitor', 'bob');
    const { ids } = await collect(bob, 2);
    expect(ids).toEqual(shares.map((s) => s.id));
    const page = (await api.as(bob).get(`/endpoint/${host}/shared_endpoint_list`)).body.shared_endpoints;
    expect(page.every((e: { host_path: string | null }) => e.host_path !== null)).toBe(true);
    expect(page.every((e: { my_effective_roles: string[] }) => !e.my_effective_roles.includes('administrator'))).toBe(true);
  });

  it('refuses callers without administrator or activity_monitor on the host (403), a share as host (400), and bad paging (400)', async () => {
    expect((await api.as(bob).get(`/endpoint/${host}/shared_endpoint_list`)).status).toBe(403);
    expect((await api.as(alice).get(`/endpoint/${shares[0].id}/shared_endpoint_list`)).status).toBe(400);
    for (const query of ['max_results=0', 'max_results=1001', 'max_results=x', 'next_token=nonsense', `next_token=${Buffer.from('["2026-01-01T00:00:00Z","x"]').toString('base64url')}`]) {
      const res = await api.as(alice).get(`/endpoint/${host}/shared_endpoint_list?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
    }
  });
});
