import { BACKENDS, startApi, type Api } from './harness';

/** Findings of the second security review (issue "Security review, round two"), each kept fixed on every database. */
describe.each(BACKENDS)('security review two, API, on $name', (backend) => {
  let api: Api;
  let alice: string;
  let bob: string;
  beforeEach(async () => {
    api = await startApi(backend);
    alice = (await api.world.user('alice')).token;
    bob = (await api.world.user('bob')).token;
  });
  afterEach(() => api.close());

  it('finding 7: filter_entity_type names of Object machinery are a 400 naming the field and the allowed values, in every scope', async () => {
    await api.as(alice).post('/endpoint', { display_name: 'Laptop', is_globus_connect: true });
    const scopes = ['filter_fulltext=lap', 'filter_scope=my-endpoints', 'filter_scope=my-gcp-endpoints', 'filter_scope=shared-by-me', 'filter_scope=shared-with-me', 'filter_scope=administered-by-me', 'filter_scope=hide-no-permissions', 'filter_scope=recently-used'];
    for (const scope of scopes) {
      for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
        const res = await api.as(alice).get(`/endpoint_search?${scope}&filter_entity_type=${name}`);
        expect({ scope, name, status: res.status, code: res.body.code }).toEqual({ scope, name, status: 400, code: 'BadRequest' });
        expect(res.body.message).toContain('filter_entity_type');
        expect(res.body.message).toContain('GCP_mapped_collection');
      }
    }
    const fine = await api.as(alice).get('/endpoint_search?filter_scope=my-endpoints&filter_entity_type=GCP_mapped_collection');
    expect(fine.status).toBe(200);
    expect(fine.body.DATA).toHaveLength(1);
    expect((await api.as(bob).get('/endpoint_search?filter_scope=my-endpoints&filter_entity_type=GCP_mapped_collection')).body.DATA).toEqual([]);
  });

  /** A public managed host of alice's, and a share of it with alice as owner. */
  async function hostAndShare() {
    await api.world.subscriptionFor('alice');
    const host = (await api.as(alice).post('/endpoint', { display_name: 'Public host', public: true, subscription_id: 'DEFAULT', DATA: [{ hostname: 'h.example.org' }] })).body.id as string;
    const share = (await api.as(alice).post('/shared_endpoint', { display_name: 'Alice share', host_endpoint: host, host_path: '/~/data/' })).body.id as string;
    return { host, share };
  }

  it("finding 5: sharing a public managed host needs the administrator role on it; the host's administrators oversee every share of it", async () => {
    const { host } = await hostAndShare();
    const stranger = await api.as(bob).post('/shared_endpoint', { display_name: 'Bob share', host_endpoint: host, host_path: '/' });
    expect(stranger.status).toBe(403);
    expect(stranger.body.code).toBe('PermissionDenied');
    expect((await api.as(bob).get('/endpoint_search?filter_scope=shared-by-me')).body.DATA).toEqual([]);
    // bob, made an administrator of the host, may share it; alice, the host's owner, oversees bob's share
    const bobId = (await api.world.principal('bob')).primary.id;
    expect((await api.as(alice).post(`/endpoint/${host}/role`, { principal_type: 'identity', principal: bobId, role: 'administrator' })).status).toBe(201);
    const bobShare = (await api.as(bob).post('/shared_endpoint', { display_name: 'Bob share', host_endpoint: host, host_path: '/~/bob/' })).body.id as string;
    expect((await api.as(bob).post(`/endpoint/${bobShare}/access`, { principal_type: 'all_authenticated_users', principal: '', path: '/', permissions: 'rw' })).status).toBe(201);
    expect((await api.as(alice).get(`/endpoint/${bobShare}`)).body.host_path).toBe('/~/bob/');
    const rules = await api.as(alice).get(`/endpoint/${bobShare}/access_list`);
    expect(rules.status).toBe(200);
    expect(rules.body.DATA.map((r: { principal_type: string }) => r.principal_type)).toContain('all_authenticated_users');
    // overseeing is reading and deleting, not managing the share's rules
    expect((await api.as(alice).post(`/endpoint/${bobShare}/access`, { principal_type: 'anonymous', principal: '', path: '/', permissions: 'r' })).status).toBe(403);
    expect((await api.as(alice).delete(`/endpoint/${bobShare}`)).status).toBe(200);
    expect((await api.as(bob).get(`/endpoint/${bobShare}`)).status).toBe(409);
  });

  it('finding 9: access-rule expiration dates no calendar has, or past year 9999 after the offset, are a 400 on create and on update', async () => {
    const { share } = await hostAndShare();
    const rule = (path: string, expiration_date: string) => api.as(alice).post(`/endpoint/${share}/access`, { principal_type: 'all_authenticated_users', principal: '', path, permissions: 'r', expiration_date });
    for (const [n, date] of ['2031-02-30', '2031-02-29', '2031-04-31', '2031-02-30T10:00:00Z', '9999-12-31T23:59:59-14:00'].entries()) {
      const res = await rule(`/bad${n}/`, date);
      expect({ date, status: res.status, code: res.body.code }).toEqual({ date, status: 400, code: 'BadRequest' });
      expect(res.body.message).toContain('expiration_date');
    }
    const made = await rule('/good/', '2032-02-29');
    expect(made.status).toBe(201);
    const update = await api.as(alice).put(`/endpoint/${share}/access/${made.body.access_id}`, { expiration_date: '2033-02-29' });
    expect(update.status).toBe(400);
    expect((await api.as(alice).get(`/endpoint/${share}/access/${made.body.access_id}`)).body.expiration_date).toBe('2032-02-29T00:00:00+00:00');
  });

  it('finding 10: one path has one spelling (repeated slashes, NFC), anonymous rules only read, and acl_editable is true for those who manage the rules', async () => {
    const { host, share } = await hostAndShare();
    const bobId = (await api.world.principal('bob')).primary.id;
    const add = (path: string, permissions = 'r', principal_type = 'identity', principal = bobId) => api.as(alice).post(`/endpoint/${share}/access`, { principal_type, principal, path, permissions });
    expect((await add('/a/b/')).status).toBe(201);
    for (const same of ['/a//b/', '//a/b/', '/a/b//', '/a/b']) {
      const res = await add(same);
      expect({ same, status: res.status, code: res.body.code }).toEqual({ same, status: 409, code: 'Exists' });
    }
    const nfc = '/caf\u00e9/';
    const nfd = '/cafe\u0301/';
    const made = await add(nfd);
    expect(made.status).toBe(201);
    expect((await api.as(alice).get(`/endpoint/${share}/access/${made.body.access_id}`)).body.path).toBe(nfc);
    expect((await add(nfc)).body.code).toBe('Exists');
    const anonymous = await add('/pub/', 'rw', 'anonymous', '');
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.message).toContain('anonymous');
    const reader = await add('/pub/', 'r', 'anonymous', '');
    expect(reader.status).toBe(201);
    const widened = await api.as(alice).put(`/endpoint/${share}/access/${reader.body.access_id}`, { permissions: 'rw' });
    expect(widened.status).toBe(400);
    // acl_editable: the share's owner yes, a stranger no, an access manager yes; never on a host
    expect((await api.as(alice).get(`/endpoint/${share}`)).body.acl_editable).toBe(true);
    expect((await api.as(bob).get(`/endpoint/${share}`)).body.acl_editable).toBe(false);
    expect((await api.as(alice).get(`/endpoint/${host}`)).body.acl_editable).toBe(false);
    await api.as(alice).post(`/endpoint/${share}/role`, { principal_type: 'identity', principal: bobId, role: 'access_manager' });
    expect((await api.as(bob).get(`/endpoint/${share}`)).body.acl_editable).toBe(true);
  });

  it('finding 8: an over-long location or proxy hostname is a 400 JSON document naming the field on create and update, on every database', async () => {
    const location = `1.${'0'.repeat(40)},2.${'0'.repeat(40)}`;
    const hostname = `${'h'.repeat(63)}.${'i'.repeat(63)}.${'j'.repeat(63)}.${'k'.repeat(61)}:2811`;
    for (const [field, value] of [['location', location], ['myproxy_server', hostname], ['oauth_server', hostname]]) {
      const created = await api.as(alice).post('/endpoint', { display_name: `Long ${field}`, [field]: value });
      expect({ field, status: created.status, type: created.type }).toEqual({ field, status: 400, type: 'application/json' });
      expect(created.body.message).toContain(field);
    }
    const id = (await api.as(alice).post('/endpoint', { display_name: 'Short' })).body.id as string;
    const updated = await api.as(alice).put(`/endpoint/${id}`, { location });
    expect(updated.status).toBe(400);
    expect(updated.body.message).toContain('location');
    expect((await api.as(alice).put(`/endpoint/${id}`, { location: '45.5,-73.5' })).status).toBe(200);
  });

  it('finding 1: a search past the bounds of its cost (too many terms, too many short ones) is a 400 naming filter_fulltext, in every scope', async () => {
    await api.as(alice).post('/endpoint', { display_name: 'A b c storage', public: true });
    const twenty = 'a b c d e f g h i j k l m n o p q r s t';
    const eleven = 'one two three four five six seven eight nine ten eleven';
    for (const scope of ['all', 'my-endpoints', 'administered-by-me', 'hide-no-permissions', 'shared-with-me']) {
      for (const text of [twenty, eleven, 'a b 1 storage', 'x'.repeat(65), 'word '.repeat(201)]) {
        const res = await api.as(alice).get(`/endpoint_search?filter_scope=${scope}&filter_fulltext=${encodeURIComponent(text)}`);
        expect({ scope, text: text.slice(0, 20), status: res.status, code: res.body.code }).toEqual({ scope, text: text.slice(0, 20), status: 400, code: 'BadRequest' });
        expect(res.body.message).toContain('filter_fulltext');
      }
    }
    const bounded = await api.as(alice).get(`/endpoint_search?filter_scope=my-endpoints&filter_fulltext=${encodeURIComponent('a b storage')}`);
    expect(bounded.status).toBe(200);
    expect(bounded.body.DATA.map((e: { display_name: string }) => e.display_name)).toEqual(['A b c storage']);
  });
});
