import { BACKENDS, startApi, type Api } from './harness';

/** Access rules of shares (catalogue features 4), on every database. */
describe.each(BACKENDS)('access rules on $name', (backend) => {
  let api: Api;
  let alice: string;
  let aliceId: string;
  let bob: string;
  let bobId: string;
  let host: string;
  let share: string;
  beforeEach(async () => {
    api = await startApi(backend);
    ({ token: alice, id: aliceId } = await api.world.user('alice'));
    ({ token: bob, id: bobId } = await api.world.user('bob'));
    await api.world.subscriptionFor('alice');
    host = (await api.as(alice).post('/endpoint', { display_name: 'Host', subscription_id: 'DEFAULT', DATA: [{ hostname: 'h.example.org' }] })).body.id;
    share = (await api.as(alice).post('/shared_endpoint', { display_name: 'Project', host_endpoint: host, host_path: '/~/project/' })).body.id;
  });
  afterEach(() => api.close());

  const rule = (overrides: Record<string, unknown> = {}) => ({ DATA_TYPE: 'access', principal_type: 'identity', principal: bobId, path: '/results', permissions: 'r', ...overrides });
  const add = (token: string, body: unknown, endpoint = share) => api.as(token).post(`/endpoint/${endpoint}/access`, body);

  it('adds a rule (201 access_create_result), shows it with the implicit rules, and stores the path with a trailing /', async () => {
    const created = await add(alice, rule({ notify_email: 'bob@example.org', expiration_date: '2099-01-31' }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ DATA_TYPE: 'access_create_result', code: 'Created', message: 'Access rule created successfully.', access_id: expect.any(String), resource: `/endpoint/${share}/access` });
    const list = await api.as(alice).get(`/endpoint/${share}/access_list`);
    expect(list.body).toMatchObject({ DATA_TYPE: 'access_list', endpoint: share, length: 2 });
    expect(list.body.DATA[0]).toMatchObject({ id: null, role_id: null, principal_type: 'identity', principal: aliceId, path: '/', permissions: 'rw' });
    expect(list.body.DATA[1]).toEqual({
      DATA_TYPE: 'access', id: created.body.access_id, role_id: null, role_type: null, principal_type: 'identity', principal: bobId, path: '/results/', permissions: 'r',
      notify_email: 'bob@example.org', notify_message: null, create_time: expect.stringMatching(/\+00:00$/), expiration_date: '2099-01-31T00:00:00+00:00',
    });
    expect((await api.as(alice).get(`/endpoint/${share}/access/${created.body.access_id}`)).body).toEqual(list.body.DATA[1]);
  });

  it('lists an access manager role as an implicit rule, and lets that manager manage rules', async () => {
    const groupId = await api.world.services.admin.identities.addGroup('lab');
    await api.world.services.admin.identities.addGroupMember('lab', 'bob');
    const role = await api.as(alice).post(`/endpoint/${share}/role`, { principal_type: 'group', principal: groupId, role: 'access_manager' });
    const list = (await api.as(bob).get(`/endpoint/${share}/access_list`)).body.DATA;
    expect(list).toContainEqual(expect.objectContaining({ id: null, role_id: role.body.id, role_type: 'access_manager', principal_type: 'group', principal: groupId, path: '/', permissions: 'rw' }));
    expect((await add(bob, rule({ principal_type: 'all_authenticated_users', principal: '' }))).status).toBe(201);
  });

  it('changes permissions and expiry only, and deletes', async () => {
    const id = (await add(alice, rule())).body.access_id;
    const updated = await api.as(alice).put(`/endpoint/${share}/access/${id}`, { DATA_TYPE: 'access', id, permissions: 'rw', expiration_date: '2099-06-01T12:00:00Z' });
    expect(updated.body).toMatchObject({ code: 'Updated', message: `Access rule '${id}' updated successfully` });
    expect((await api.as(alice).get(`/endpoint/${share}/access/${id}`)).body).toMatchObject({ permissions: 'rw', expiration_date: '2099-06-01T12:00:00+00:00' });
    for (const body of [{ path: '/other/' }, { id: '11111111-2222-4333-8444-555555555555', permissions: 'r' }, { permissions: 'w' }, { expiration_date: '2001-01-01' }]) {
      expect((await api.as(alice).put(`/endpoint/${share}/access/${id}`, body)).status).toBe(400);
    }
    expect((await api.as(alice).delete(`/endpoint/${share}/access/${id}`)).body).toMatchObject({ code: 'Deleted', message: `Access rule '${id}' deleted successfully` });
    const gone = await api.as(alice).get(`/endpoint/${share}/access/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('AccessRuleNotFound');
  });

  it('refuses bad paths (InvalidPath), bad principals, duplicates (409 Exists), non-shares, and callers without the roles', async () => {
    for (const path of ['relative/', '/a/../b/', '/./', `/${'x'.repeat(2000)}`]) {
      const res = await add(alice, rule({ path }));
      expect({ path: path.slice(0, 20), status: res.status, code: res.body.code }).toEqual({ path: path.slice(0, 20), status: 400, code: 'InvalidPath' });
    }
    expect((await add(alice, rule({ path: '/~/home/' }))).status).toBe(201);
    for (const body of [rule({ principal: '11111111-2222-4333-8444-555555555555' }), rule({ principal_type: 'anonymous', principal: bobId }), rule({ principal_type: 'nobody' }), rule({ permissions: 'x' }), rule({ expiration_date: 'soon' }), rule({ id: 'x' })]) {
      expect((await add(alice, body)).status).toBe(400);
    }
    const twice = await add(alice, rule({ path: '/~/home' }));
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('Exists');
    expect((await add(alice, rule(), host)).status).toBe(400);
    expect((await add(bob, rule())).status).toBe(403);
    expect((await api.as(bob).get(`/endpoint/${share}/access_list`)).status).toBe(403);
  });

  it('goes with its share: a deleted share has no rules left', async () => {
    const id = (await add(alice, rule())).body.access_id;
    await api.as(alice).delete(`/endpoint/${share}`);
    expect(await api.world.uow.repositories.accessRules.findById(id)).toBeNull();
  });
});
