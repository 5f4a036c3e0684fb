import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { transfer } from '@globus/sdk';
import { BACKENDS, startApi, type Api } from './harness';

/**
 * What today's hosted SDKs call beyond the twelve operations (issue "Today's clients, unchanged"):
 * the subscription alone, the endpoint manager, the fields today's CLI prints and the hosted names
 * of the concurrency fields. Over HTTP, and through the hosted service's JavaScript SDK.
 */
describe.each(BACKENDS)("today's SDK calls on $name", (backend) => {
  let api: Api;
  let server: Server;
  let alice: string;
  let bob: string;
  let bobId: string;
  let carol: string;
  let host: string;
  beforeEach(async () => {
    api = await startApi(backend);
    alice = (await api.world.user('alice')).token;
    ({ token: bob, id: bobId } = await api.world.user('bob'));
    carol = (await api.world.user('carol')).token;
    await api.world.subscriptionFor('alice');
    host = (await api.as(alice).post('/endpoint', { display_name: 'Host', subscription_id: 'DEFAULT', DATA: [{ hostname: 'h.example.org' }] })).body.id;
    server = api.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    delete process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER;
    await api.close();
  });

  const as = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

  it('sets the subscription alone by the update\'s rules: DEFAULT, null, a stranger refused', async () => {
    const put = (token: string, body: unknown) => api.as(token).put(`/endpoint/${host}/subscription`, body);
    expect((await put(alice, { subscription_id: null })).body).toMatchObject({ DATA_TYPE: 'result', code: 'Updated' });
    expect((await api.as(alice).get(`/endpoint/${host}`)).body).toMatchObject({ subscription_id: null, shareable: false });
    expect((await put(alice, { subscription_id: 'DEFAULT' })).status).toBe(200);
    expect((await api.as(alice).get(`/endpoint/${host}`)).body).toMatchObject({ subscription_id: expect.any(String), shareable: true });
    expect((await put(bob, { subscription_id: null })).status).toBe(403);
    for (const body of [{}, { subscription_id: 5 }, { subscription_id: null, other: 1 }]) expect((await put(alice, body)).status).toBe(400);
  });

  it("lets only the subscription's administrators verify an endpoint; its administrators may clear it; none without a subscription", async () => {
    const verify = (token: string, value: boolean) => api.as(token).put(`/endpoint/${host}/subscription_admin_verified`, { subscription_admin_verified: value });
    const verified = async () => (await api.as(alice).get(`/endpoint/${host}`)).body.subscription_admin_verified;
    expect(await verified()).toBe(false);
    // alice administers the endpoint, not its subscription
    expect((await verify(alice, true)).status).toBe(403);
    await api.world.services.admin.subscriptions.addSubscriptionAdministrator('alice-subscription', 'bob');
    expect((await verify(carol, true)).status).toBe(403);
    expect((await verify(bob, true)).status).toBe(403);
    await api.as(alice).put(`/endpoint/${host}`, { public: true });
    expect((await verify(bob, true)).body).toMatchObject({ code: 'Updated' });
    expect(await verified()).toBe(true);
    expect((await verify(carol, false)).status).toBe(403);
    expect((await verify(alice, false)).status).toBe(200);
    expect(await verified()).toBe(false);
    await verify(bob, true);
    // a change of subscription clears it; without one there is nothing to verify
    await api.as(alice).put(`/endpoint/${host}/subscription`, { subscription_id: null });
    expect(await verified()).toBe(false);
    const none = await verify(bob, true);
    expect(none.status).toBe(400);
    expect(none.body.message).toContain('no subscription');
    expect((await api.as(alice).put(`/endpoint/${host}/subscription_admin_verified`, { subscription_admin_verified: 'yes' })).status).toBe(400);
  });

  it("carries the fields today's CLI prints, and takes the hosted names of the concurrency fields", async () => {
    const document = (await api.as(alice).get(`/endpoint/${host}`)).body;
    expect(document).toMatchObject({ shareable: true, non_functional: false, high_assurance: false, gcs_version: null, gcs_manager_url: null, tlsftp_server: null });
    // the normal preset as the hosted service shows it, under both names of the two ceilings
    expect(document).toMatchObject({ network_use: 'normal', max_concurrency: 4, preferred_concurrency: 2, max_parallelism: 8, preferred_parallelism: 4, min_concurrency: 4, min_parallelism: 8 });
    // what CLI 3.42 sends for `globus endpoint update --network-use custom --max-concurrency 4 --preferred-concurrency 2 --max-parallelism 2 --preferred-parallelism 1`
    const custom = { DATA_TYPE: 'endpoint', network_use: 'custom', max_concurrency: 4, preferred_concurrency: 2, max_parallelism: 2, preferred_parallelism: 1 };
    expect((await api.as(alice).put(`/endpoint/${host}`, custom)).body).toMatchObject({ code: 'Updated' });
    expect((await api.as(alice).get(`/endpoint/${host}`)).body).toMatchObject({ max_concurrency: 4, preferred_concurrency: 2, max_parallelism: 2, preferred_parallelism: 1, min_concurrency: 4, min_parallelism: 2 });
    // ceilings: a preferred value above its maximum is refused, naming it
    const above = await api.as(alice).put(`/endpoint/${host}`, { ...custom, preferred_concurrency: 5 });
    expect(above.body).toMatchObject({ code: 'BadRequest', message: 'Invalid preferred_concurrency: must be at most max_concurrency' });
    // last year's clients send the spec's names: the same numbers
    expect((await api.as(alice).put(`/endpoint/${host}`, { network_use: 'custom', min_concurrency: 6, preferred_concurrency: 3, min_parallelism: 4, preferred_parallelism: 4 })).status).toBe(200);
    expect((await api.as(alice).get(`/endpoint/${host}`)).body).toMatchObject({ max_concurrency: 6, min_concurrency: 6, max_parallelism: 4, min_parallelism: 4 });
    const disagree = await api.as(alice).put(`/endpoint/${host}`, { ...custom, min_concurrency: 2 });
    expect(disagree.status).toBe(400);
    expect(disagree.body.message).toContain('min_concurrency and max_concurrency are one field and disagree');
    // a full document sent back as it came is accepted
    const full = (await api.as(alice).get(`/endpoint/${host}`)).body;
    expect((await api.as(alice).put(`/endpoint/${host}`, full)).status).toBe(200);
    expect((await api.as(alice).post('/endpoint', { display_name: 'Empty' })).status).toBe(201);
    expect((await api.as(alice).get('/endpoint_search?filter_fulltext=empty')).body.DATA[0]).toMatchObject({ non_functional: true });
  });

  it('serves the endpoint manager to monitors, through the SDK, and refuses everyone else', async () => {
    const share = (await api.as(alice).post('/shared_endpoint', { display_name: 'Share', host_endpoint: host, host_path: '/data/' })).body.id;
    await api.as(alice).post(`/endpoint/${share}/access`, { principal_type: 'all_authenticated_users', principal: '', path: '/', permissions: 'r' });
    await api.as(alice).post(`/endpoint/${host}/role`, { principal_type: 'identity', principal: bobId, role: 'activity_monitor' });
    const manager = transfer.endpointManager;
    const monitored = await (await manager.endpoint.getMonitoredEndpoints(as(bob))).json();
    expect(monitored.DATA.map((e: { id: string }) => e.id)).toEqual([host]);
    expect((await (await manager.endpoint.getMonitoredEndpoints(as(carol))).json()).DATA).toEqual([]);
    expect((await (await manager.endpoint.get(host, as(bob))).json()).id).toBe(host);
    expect((await manager.endpoint.get(host, as(carol))).status).toBe(403);
    const hosted = await (await manager.endpoint.getHostedEndpoints(host, as(bob))).json();
    expect(hosted.DATA.map((e: { id: string; host_path: string | null }) => [e.id, e.host_path])).toEqual([[share, '/data/']]);
    const rules = await (await manager.endpoint.getAccessList(share, as(bob))).json();
    expect(rules.DATA.map((r: { principal_type: string }) => r.principal_type)).toContain('all_authenticated_users');
    expect((await manager.endpoint.getAccessList(share, as(carol))).status).toBe(403);
    // the JavaScript SDK's endpoint manager task list calls /task_list: the caller's own tasks (none)
    expect(await (await manager.task.getAll(as(bob))).json()).toMatchObject({ DATA_TYPE: 'task_list', DATA: [], total: 0 });
  });

  it('lets administrators and activity managers manage pause rules, as the operator would; monitors and strangers may not', async () => {
    const rule = { DATA_TYPE: 'pause_rule' as const, endpoint_id: host, message: 'Disk swap', pause_ls: true, pause_mkdir: true, pause_rename: true, pause_task_delete: true, pause_task_transfer_write: true, pause_task_transfer_read: false };
    const pause = transfer.endpointManager.pauseRule;
    const created = await pause.create({ payload: rule, ...as(alice) });
    expect(created.status).toBe(200);
    const made = await created.json();
    expect(made).toMatchObject({ DATA_TYPE: 'pause_rule', endpoint_id: host, message: 'Disk swap', pause_task_transfer_read: false, editable: true, modified_by: 'alice' });
    expect((await (await pause.getAll(as(alice))).json()).DATA.map((r: { id: string }) => r.id)).toEqual([made.id]);
    expect((await (await pause.update(made.id, { payload: { message: 'Disk swap, day two' }, ...as(alice) })).json()).message).toBe('Disk swap, day two');
    // what users see of it
    expect((await api.as(bob).get(`/endpoint/${host}/my_effective_pause_rule_list`)).status).toBe(403);
    await api.as(alice).post(`/endpoint/${host}/role`, { principal_type: 'identity', principal: bobId, role: 'activity_monitor' });
    expect((await pause.create({ payload: rule, ...as(bob) })).status).toBe(403);
    expect((await pause.get(made.id, as(bob))).status).toBe(403);
    expect((await pause.remove(made.id, as(carol))).status).toBe(403);
    expect((await (await pause.getAll(as(carol))).json()).DATA).toEqual([]);
    for (const bad of [{ ...rule, message: undefined }, { ...rule, endpoint_id: undefined }, { ...rule, identity_id: 'nobody' }, { ...rule, start_time: 'soon' }, { ...rule, surprise: true }]) {
      expect((await api.as(alice).post('/endpoint_manager/pause_rule', bad)).status).toBe(400);
    }
    expect((await pause.remove(made.id, as(alice))).status).toBe(200);
    expect((await pause.get(made.id, as(alice))).status).toBe(404);
  });
});
