import { BACKENDS, startApi, type Api } from './harness';

/** Findings of the third security review on the API, each kept fixed on every database. */
describe.each(BACKENDS)('security review three, API, on $name', (backend) => {
  let api: Api;
  let alice: string;
  let bob: string;
  let host: string;
  beforeEach(async () => {
    api = await startApi(backend);
    alice = (await api.world.user('alice')).token;
    bob = (await api.world.user('bob')).token;
    await api.world.subscriptionFor('alice');
    host = (await api.as(alice).post('/endpoint', { display_name: 'Host', subscription_id: 'DEFAULT', DATA: [{ hostname: 'h.example.org' }] })).body.id as string;
  });
  afterEach(() => api.close());

  const rule = (message: string) => ({ DATA_TYPE: 'pause_rule', endpoint_id: host, message });

  it('F4: a pause-rule list names each endpoint once, at most 100 of them, and answers pages of at most 1000 rules', async () => {
    for (const message of ['one', 'two', 'three']) expect((await api.as(alice).post('/endpoint_manager/pause_rule', rule(message))).status).toBe(200);
    // one id 400 times (and in other cases): each rule once
    const repeated = await api.as(alice).get(`/endpoint_manager/pause_rule_list?filter_endpoint=${Array(400).fill(host).join(',')},${host.toUpperCase()}`);
    expect(repeated.status).toBe(200);
    expect(repeated.body).toMatchObject({ DATA_TYPE: 'pause_rule_list', offset: 0, limit: 1000, has_next_page: false });
    expect(repeated.body.DATA.map((r: { message: string }) => r.message).sort()).toEqual(['one', 'three', 'two']);
    // more than 100 distinct endpoints: 400 naming the parameter, before any is read
    const many = Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`).join(',');
    const tooMany = await api.as(alice).get(`/endpoint_manager/pause_rule_list?filter_endpoint=${many}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toBe('Invalid filter_endpoint: at most 100 endpoints, not 101');
    // pages
    const first = await api.as(alice).get(`/endpoint_manager/pause_rule_list?filter_endpoint=${host}&limit=2`);
    expect(first.body).toMatchObject({ offset: 0, limit: 2, has_next_page: true });
    expect(first.body.DATA).toHaveLength(2);
    const second = await api.as(alice).get(`/endpoint_manager/pause_rule_list?limit=2&offset=2`);
    expect(second.body).toMatchObject({ offset: 2, limit: 2, has_next_page: false });
    expect([...first.body.DATA, ...second.body.DATA].map((r: { message: string }) => r.message).sort()).toEqual(['one', 'three', 'two']);
    for (const bad of ['limit=0', 'limit=1001', 'limit=x', 'offset=-1']) {
      const res = await api.as(alice).get(`/endpoint_manager/pause_rule_list?${bad}`);
      expect({ bad, status: res.status, field: res.body.message.split(' ')[1].replace(':', '') }).toEqual({ bad, status: 400, field: bad.split('=')[0] });
    }
  });

  it('F7: a pause rule changed with endpoint_id or message null is a 400 naming the field, never a 500', async () => {
    const made = (await api.as(alice).post('/endpoint_manager/pause_rule', rule('Disk swap'))).body as { id: string };
    for (const field of ['endpoint_id', 'message']) {
      for (const method of ['put', 'post'] as const) {
        const res = method === 'put' ? await api.as(alice).put(`/endpoint_manager/pause_rule/${made.id}`, { [field]: null }) : await api.as(alice).post('/endpoint_manager/pause_rule', { ...rule('x'), [field]: null });
        expect({ method, field, status: res.status, code: res.body.code }).toEqual({ method, field, status: 400, code: 'BadRequest' });
        expect(res.body.message).toContain(field);
      }
    }
    expect((await api.as(alice).get(`/endpoint_manager/pause_rule/${made.id}`)).body.message).toBe('Disk swap');
  });

  it("also seen: access_list tells a stranger nothing of a private endpoint's kind: 403 as for a private share", async () => {
    const share = (await api.as(alice).post('/shared_endpoint', { display_name: 'Private share', host_endpoint: host, host_path: '/data/' })).body.id as string;
    for (const id of [host, share]) {
      const res = await api.as(bob).get(`/endpoint/${id}/access_list`);
      expect(res.status).toBe(403);
      expect(res.body.message).not.toContain('shared endpoint');
      expect((await api.as(bob).get(`/endpoint_manager/endpoint/${id}/access_list`)).status).toBe(403);
    }
    // to those who may see the host, that it has no access rules is no secret
    expect((await api.as(alice).get(`/endpoint/${host}/access_list`)).status).toBe(400);
    await api.as(alice).put(`/endpoint/${host}`, { public: true });
    expect((await api.as(bob).get(`/endpoint/${host}/access_list`)).status).toBe(400);
  });
});
