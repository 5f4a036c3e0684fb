import { BACKENDS, startApi, type Api } from './harness';

/** The roles API (catalogue features 3), on every database. */
describe.each(BACKENDS)('roles API on $name', (backend) => {
  let api: Api;
  let alice: string;
  let bob: string;
  let bobId: string;
  let managed: string;
  beforeEach(async () => {
    api = await startApi(backend);
    alice = (await api.world.user('alice')).token;
    const b = await api.world.user('bob');
    [bob, bobId] = [b.token, b.id];
    await api.world.subscriptionFor('alice');
    managed = (await api.as(alice).post('/endpoint', { display_name: 'Managed', subscription_id: 'DEFAULT', DATA: [{ hostname: 'h.example.org' }] })).body.id;
  });
  afterEach(() => api.close());

  const grant = (token: string, endpoint: string, role: string, principal: string, principal_type = 'identity') =>
    api.as(token).post(`/endpoint/${endpoint}/role`, { DATA_TYPE: 'role', principal_type, principal, role });

  it("lists the owner's administrator role like any other, to callers holding a role only", async () => {
    const list = await api.as(alice).get(`/endpoint/${managed}/role_list`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ DATA_TYPE: 'role_list', DATA: [{ DATA_TYPE: 'role', id: expect.any(String), principal_type: 'identity', principal: expect.any(String), role: 'administrator' }] });
    expect((await api.as(bob).get(`/endpoint/${managed}/role_list`)).status).toBe(403);
  });

  it('grants a role (201, the role document) that the holder can then read, and the admin CLI lists the same row', async () => {
    const added = await grant(alice, managed, 'activity_monitor', bobId);
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ DATA_TYPE: 'role', id: expect.any(String), principal_type: 'identity', principal: bobId, role: 'activity_monitor' });
    expect((await api.as(bob).get(`/endpoint/${managed}/role/${added.body.id}`)).body).toEqual(added.body);
    expect((await api.as(bob).get(`/endpoint/${managed}/role_list`)).body.DATA).toHaveLength(2);
    expect((await api.world.services.admin.endpoints.listRoles(managed)).map((r) => r.id)).toContain(added.body.id);
    // a monitor is not an administrator
    expect((await grant(bob, managed, 'activity_monitor', bobId)).status).toBe(403);
  });

  it("grants a role and an access rule to a confidential client's identity the moment the client exists, before its first token", async () => {
    const { client } = await api.world.services.admin.clients.addClient({ display_name: 'CI pipeline', public_client: false });
    const added = await grant(alice, managed, 'activity_monitor', client.id);
    expect([added.status, added.body.principal]).toEqual([201, client.id]);
    const share = (await api.as(alice).post('/shared_endpoint', { display_name: 'Artifacts', host_endpoint: managed, host_path: '/artifacts/' })).body.id as string;
    const rule = await api.as(alice).post(`/endpoint/${share}/access`, { DATA_TYPE: 'access', principal_type: 'identity', principal: client.id, path: '/', permissions: 'rw' });
    expect(rule.status).toBe(201);
    // a public client never acts as itself: it has no identity to grant anything to
    const { client: app } = await api.world.services.admin.clients.addClient({ display_name: 'Native app' });
    expect((await grant(alice, managed, 'activity_monitor', app.id)).status).toBe(400);
  });

  it('refuses duplicates (409), unknown principals, unmanaged endpoints, access_manager off shares (400); grants activity_manager', async () => {
    await grant(alice, managed, 'activity_monitor', bobId);
    const twice = await grant(alice, managed, 'activity_monitor', bobId);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('ClientError.Conflict');
    const unmanaged = (await api.as(alice).post('/endpoint', { display_name: 'Plain' })).body.id;
    const refusals: [string, string, string, string, RegExp][] = [
      [managed, 'administrator', '11111111-2222-4333-8444-555555555555', 'identity', /No identity/],
      [managed, 'administrator', bobId, 'group', /No group/],
      [unmanaged, 'activity_monitor', bobId, 'identity', /managed endpoints/],
      [managed, 'access_manager', bobId, 'identity', /only on shared endpoints/],
      [managed, 'owner', bobId, 'identity', /Invalid role/],
    ];
    for (const [endpoint, role, principal, type, message] of refusals) {
      const res = await grant(alice, endpoint, role, principal, type);
      expect({ role, status: res.status }).toEqual({ role, status: 400 });
      expect(res.body.message).toMatch(message);
    }
    expect((await api.as(alice).post(`/endpoint/${managed}/role`, { principal_type: 'identity', principal: bobId, role: 'activity_monitor', extra: 1 })).status).toBe(400);
    const manager = await grant(alice, managed, 'activity_manager', bobId);
    expect([manager.status, manager.body.role]).toEqual([201, 'activity_manager']);
  });

  it('grants access_manager on a share of a managed host, and to a group', async () => {
    const share = (await api.as(alice).post('/shared_endpoint', { display_name: 'Share', host_endpoint: managed, host_path: '/~/data/' })).body.id;
    const groupId = await api.world.services.admin.identities.addGroup('lab');
    const res = await grant(alice, share, 'access_manager', groupId, 'group');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ principal_type: 'group', principal: groupId, role: 'access_manager' });
  });

  it("removes a role (Deleted), never the owner's administrator role, and answers 404 RoleNotFound for unknown or foreign ids", async () => {
    const added = await grant(alice, managed, 'activity_monitor', bobId);
    const owner = (await api.as(alice).get(`/endpoint/${managed}/role_list`)).body.DATA.find((r: { role: string }) => r.role === 'administrator');
    const ownerDelete = await api.as(alice).delete(`/endpoint/${managed}/role/${owner.id}`);
    expect(ownerDelete.status).toBe(400);
    expect((await api.as(bob).delete(`/endpoint/${managed}/role/${added.body.id}`)).status).toBe(403);
    const deleted = await api.as(alice).delete(`/endpoint/${managed}/role/${added.body.id}`);
    expect(deleted.body).toMatchObject({ DATA_TYPE: 'result', code: 'Deleted', message: `Role '${added.body.id}' deleted successfully` });
    const again = await api.as(alice).delete(`/endpoint/${managed}/role/${added.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('RoleNotFound');
    const other = (await api.as(alice).post('/endpoint', { display_name: 'Other', subscription_id: 'DEFAULT' })).body.id;
    expect((await api.as(alice).get(`/endpoint/${other}/role/${owner.id}`)).body.code).toBe('RoleNotFound');
    expect((await api.as(alice).get(`/endpoint/${managed}/role/not-an-id`)).status).toBe(404);
  });
});
