import type { Principal } from '../auth/Principal';
import { BadRequestError, ConcurrentModificationError, EndpointNotFoundError, PermissionDeniedError } from '../shared/errors';
import { TestWorld } from '../testing/TestWorld';
import { Endpoint } from './Endpoint';
import { viewOf } from './EndpointService';
import { MAX_SEARCH_WINDOW } from './EndpointSearch';

/** Rules of the endpoint use cases that mutation testing showed no unit test held. */
describe('EndpointService: rules of every operation', () => {
  let world: TestWorld;
  let alice: Principal;
  let bob: Principal;
  let host: string;
  const endpoints = () => world.services.endpoints;

  beforeEach(async () => {
    world = new TestWorld();
    [alice, bob] = await world.principals('alice', 'bob');
    await world.subscriptionFor('alice');
    host = (await endpoints().createEndpoint(alice, { display_name: 'Host', subscription_id: 'DEFAULT', servers: [{ hostname: 'gridftp.example.org' }] })).id;
  });

  it('finds an endpoint by its canonical name on get and delete only', async () => {
    const name = (await endpoints().getEndpoint(alice, host)).endpoint.canonicalName;
    expect((await endpoints().getEndpoint(alice, name)).endpoint.id).toBe(host);
    const byName: [string, () => Promise<unknown>][] = [
      ['update', () => endpoints().updateEndpoint(alice, name, { description: 'x' })],
      ['pause rules', () => endpoints().myEffectivePauseRules(alice, name)],
      ['server list', () => endpoints().listServers(alice, name)],
      ['server', () => endpoints().getServer(alice, name, 1)],
      ['add server', () => endpoints().addServer(alice, name, { hostname: 'b.example.org' })],
      ['update server', () => endpoints().updateServer(alice, name, 1, { port: 2812 })],
      ['delete server', () => endpoints().deleteServer(alice, name, 1)],
      ['my shares', () => endpoints().mySharedEndpoints(alice, name)],
      ['shares of host', () => endpoints().sharesOfHost(alice, name, { after: null, limit: 10 })],
      ['roles', () => endpoints().listRoles(alice, name)],
      ['role', () => endpoints().getRole(alice, name, '00000000-0000-4000-8000-0000000000ff')],
      ['add role', () => endpoints().addRole(alice, name, { role: 'activity_monitor', principal_type: 'identity', principal: bob.primary.id })],
      ['delete role', () => endpoints().deleteRole(alice, name, '00000000-0000-4000-8000-0000000000ff')],
      ['share', () => endpoints().createSharedEndpoint(alice, { display_name: 'S', host_endpoint_id: name, host_path: '/s/' })],
    ];
    for (const [operation, call] of byName) {
      await expect(call().then(() => `${operation} accepted`)).rejects.toThrow(EndpointNotFoundError);
    }
    await endpoints().deleteEndpoint(alice, name);
    await expect(endpoints().getEndpoint(alice, host)).rejects.toThrow(/has been deleted/);
  });

  it('locks the endpoint a write changes, and never one it only reads', async () => {
    const lockedBy = (call: () => Promise<unknown>) => world.endpointLocks(call);
    const share = (await endpoints().createSharedEndpoint(alice, { display_name: 'S', host_endpoint_id: host, host_path: '/s/' })).id;
    const { id: role } = await endpoints().addRole(alice, host, { role: 'activity_monitor', principal_type: 'identity', principal: bob.primary.id });
    for (const write of [
      () => endpoints().updateEndpoint(alice, host, { description: 'x' }),
      () => endpoints().addServer(alice, host, { hostname: 'b.example.org' }),
      () => endpoints().updateServer(alice, host, 1, { port: 2812 }),
      () => endpoints().deleteServer(alice, host, 2),
      () => endpoints().addRole(alice, host, { role: 'administrator', principal_type: 'identity', principal: bob.primary.id }),
      () => endpoints().deleteRole(alice, host, role),
      () => endpoints().deleteEndpoint(alice, share),
    ]) {
      expect(await lockedBy(write)).toEqual([{ forUpdate: true }]);
    }
    for (const reading of [
      () => endpoints().getEndpoint(alice, host),
      () => endpoints().listServers(alice, host),
      () => endpoints().getServer(alice, host, 1),
      () => endpoints().myEffectivePauseRules(alice, host),
      () => endpoints().listRoles(alice, host),
      () => endpoints().mySharedEndpoints(alice, host),
      () => endpoints().sharesOfHost(alice, host, { after: null, limit: 10 }),
    ]) {
      expect((await lockedBy(reading))[0]).toEqual({ forUpdate: false });
    }
  });

  it('retries a write that lost a race, five times at most, and nothing else', async () => {
    const repository = world.uow.repositories.endpoints;
    const real = repository.update.bind(repository);
    const failFirst = (n: number, error: Error) => {
      let calls = 0;
      jest.spyOn(repository, 'update').mockImplementation(async (endpoint) => {
        calls++;
        if (calls <= n) throw error;
        return real(endpoint);
      });
      return () => calls;
    };
    let calls = failFirst(4, new ConcurrentModificationError('lost'));
    await expect(endpoints().updateEndpoint(alice, host, { description: 'x' })).resolves.toBeUndefined();
    expect(calls()).toBe(5);
    calls = failFirst(5, new ConcurrentModificationError('lost'));
    await expect(endpoints().updateEndpoint(alice, host, { description: 'x' })).rejects.toThrow(ConcurrentModificationError);
    expect(calls()).toBe(5);
    calls = failFirst(1, new BadRequestError('no'));
    await expect(endpoints().updateEndpoint(alice, host, { description: 'x' })).rejects.toThrow(BadRequestError);
    expect(calls()).toBe(1);
  });

  it('lets the edge refuse an update after seeing the endpoint as the caller may', async () => {
    const seen: string[] = [];
    await expect(
      endpoints().updateEndpoint(alice, host, { description: 'x' }, (current) => {
        seen.push(current.endpoint.id, ...current.roles);
        throw new BadRequestError('read-only key changed');
      }),
    ).rejects.toThrow('read-only key changed');
    expect(seen).toEqual([host, 'administrator']);
    expect((await endpoints().getEndpoint(alice, host)).endpoint.snapshot.description).toBeNull();
  });

  it('resolves subscription_id DEFAULT on update too', async () => {
    const plain = (await endpoints().createEndpoint(alice, { display_name: 'Plain' })).id;
    await endpoints().updateEndpoint(alice, plain, { subscription_id: 'DEFAULT' });
    const subscription = (await world.uow.repositories.subscriptions.listForMembers([alice.primary.id]))[0];
    expect((await endpoints().getEndpoint(alice, plain)).endpoint.subscriptionId).toBe(subscription.id);
  });

  it('takes owner_string sent back unchanged from any administrator, and refuses null', async () => {
    await endpoints().addRole(alice, host, { role: 'administrator', principal_type: 'identity', principal: bob.primary.id });
    await expect(endpoints().updateEndpoint(bob, host, { owner_string: 'alice', description: 'by bob' })).resolves.toBeUndefined();
    await expect(endpoints().updateEndpoint(alice, host, { owner_string: null as unknown as string })).rejects.toThrow('Invalid owner_string: must be a username');
    await expect(endpoints().updateEndpoint(alice, host, { owner_string: 'carol' })).rejects.toThrow("Invalid owner_string: 'carol' must be one of your own identities");
  });

  it('changes and removes servers', async () => {
    await endpoints().updateServer(alice, host, 1, { hostname: 'new.example.org' });
    expect(await endpoints().getServer(alice, host, 1)).toMatchObject({ hostname: 'new.example.org' });
    await endpoints().addServer(alice, host, { hostname: 'b.example.org' });
    await endpoints().deleteServer(alice, host, 1);
    expect((await endpoints().listServers(alice, host)).map((s) => s.id)).toEqual([2]);
  });

  it("never lists in my_shared_endpoint_list a share the caller does not manage, whatever the repository returns", async () => {
    const share = (await endpoints().createSharedEndpoint(alice, { display_name: 'S', host_endpoint_id: host, host_path: '/s/' })).id;
    const both = (await endpoints().createSharedEndpoint(alice, { display_name: 'Both', host_endpoint_id: host, host_path: '/b/' })).id;
    await endpoints().addRole(alice, share, { role: 'access_manager', principal_type: 'identity', principal: bob.primary.id });
    await endpoints().addRole(alice, both, { role: 'access_manager', principal_type: 'identity', principal: bob.primary.id });
    const monitored = (await endpoints().createSharedEndpoint(alice, { display_name: 'Monitored', host_endpoint_id: host, host_path: '/m/' })).id;
    await world.uow.repositories.roles.add({ id: world.ids.uuid(), endpoint_id: monitored, role: 'activity_monitor', principal_type: 'identity', principal_id: bob.primary.id, created_at: world.clock.now() });
    await world.uow.repositories.roles.add({ id: world.ids.uuid(), endpoint_id: both, role: 'activity_monitor', principal_type: 'identity', principal_id: bob.primary.id, created_at: world.clock.now() });
    const repository = world.uow.repositories.endpoints;
    const everyShare = async () => (await repository.listSharesOfHost(host, bob.principalIds, { after: null, limit: 100 }));
    jest.spyOn(repository, 'listSharesHeldBy').mockImplementation(everyShare);
    expect((await endpoints().mySharedEndpoints(bob, host)).map((v) => v.endpoint.displayName)).toEqual(['S', 'Both']);
  });

  it('names the role a refusal is about', async () => {
    await expect(endpoints().sharesOfHost(bob, host, { after: null, limit: 1 })).rejects.toThrow(`You need the 'administrator' or 'activity_monitor' role on endpoint '${host}' to list its shares`);
    await expect(endpoints().listRoles(bob, host)).rejects.toThrow(`You hold no role on endpoint '${host}'`);
    await expect(endpoints().getEndpoint(bob, host)).rejects.toThrow(`You do not have permission to view endpoint '${host}'`);
    await endpoints().updateEndpoint(alice, host, { public: true });
    await expect(endpoints().updateEndpoint(bob, host, { description: 'x' })).rejects.toThrow(`You need the 'administrator' role on endpoint '${host}' to modify or delete it`);
    await expect(endpoints().deleteEndpoint(bob, host)).rejects.toThrow(PermissionDeniedError);
  });

  it('shows the setup key to administrators only, and no host roles beside an endpoint without a host', async () => {
    const laptop = (await endpoints().createEndpoint(alice, { display_name: 'Laptop', personal: true, public: true })).id;
    expect(await endpoints().getEndpoint(alice, laptop)).toMatchObject({ setupKeyVisible: true, hostRoles: [], host: null, hostVisible: false });
    expect(await endpoints().getEndpoint(bob, laptop)).toMatchObject({ setupKeyVisible: false, hostRoles: [] });
  });

  it('shows a share whose host is gone without the host or roles on it', async () => {
    const share = (await endpoints().createSharedEndpoint(alice, { display_name: 'S', host_endpoint_id: host, host_path: '/s/' })).id;
    const stored = (await world.uow.repositories.endpoints.findById(host))!;
    await world.uow.repositories.endpoints.delete(stored, stored.tombstone(world.clock.now()));
    expect(await endpoints().getEndpoint(alice, share)).toMatchObject({ host: null, hostRoles: [], hostVisible: false, hostPathVisible: false });
  });

  describe('search', () => {
    it('answers a page of at most limit results, shares with their host as the caller may see it', async () => {
      for (let i = 0; i < 3; i++) await endpoints().createEndpoint(alice, { display_name: `Ocean ${i}`, public: true });
      const share = (await endpoints().createSharedEndpoint(alice, { display_name: 'Ocean share', host_endpoint_id: host, host_path: '/ocean/' })).id;
      expect((await endpoints().search(alice, { fulltext: 'ocean', limit: 2 })).results).toHaveLength(2);
      const found = await endpoints().search(alice, { fulltext: 'ocean share' });
      expect(found.results.map((r) => r.view)).toEqual([expect.objectContaining({ hostVisible: true, hostPathVisible: true, hostRoles: ['administrator'] })]);
      expect(found.results[0].view.host?.id).toBe(host);
      expect(found.results[0].view.endpoint.id).toBe(share);
      const plain = await endpoints().search(alice, { fulltext: 'ocean 0' });
      expect(plain.results[0].view).toMatchObject({ host: null, hostRoles: [], hostVisible: false });
    });

    it('never says there is a next page that would end past the search window', async () => {
      for (let i = 0; i <= MAX_SEARCH_WINDOW; i++) {
        const e = Endpoint.create({ display_name: `Reef ${i}`, personal: false, public: true }, { id: world.ids.uuid(), owner: alice.primary, now: world.clock.now(), subscriptionId: null, setupKey: world.ids.uuid() });
        await world.uow.repositories.endpoints.insert(e);
      }
      expect(await endpoints().search(bob, { fulltext: 'reef', limit: 10, offset: MAX_SEARCH_WINDOW - 10 })).toMatchObject({ hasNextPage: false });
      expect(await endpoints().search(bob, { fulltext: 'reef', limit: 10, offset: MAX_SEARCH_WINDOW - 20 })).toMatchObject({ hasNextPage: true });
    }, 30_000);
  });
});

describe('EndpointService: verification by the subscription administrators (subscription_admin_verified)', () => {
  let world: TestWorld;
  let alice: Principal;
  let bob: Principal;
  let carol: Principal;
  let host: string;
  const endpoints = () => world.services.endpoints;
  const verified = async () => (await endpoints().getEndpoint(alice, host)).endpoint.snapshot.subscription_admin_verified;

  beforeEach(async () => {
    world = new TestWorld();
    [alice, bob, carol] = await world.principals('alice', 'bob', 'carol');
    // alice uses the subscription; bob administers it
    await world.services.admin.subscriptions.addSubscription('Lab', ['alice'], ['bob']);
    host = (await endpoints().createEndpoint(alice, { display_name: 'Host', subscription_id: 'DEFAULT', public: true })).id;
  });

  it('is set by an administrator of the subscription only, and cleared by them or by the endpoint administrators', async () => {
    expect(await verified()).toBe(false);
    await expect(endpoints().setSubscriptionAdminVerified(alice, host, true)).rejects.toThrow(PermissionDeniedError);
    await expect(endpoints().setSubscriptionAdminVerified(carol, host, true)).rejects.toThrow(PermissionDeniedError);
    await endpoints().setSubscriptionAdminVerified(bob, host, true);
    expect(await verified()).toBe(true);
    await expect(endpoints().setSubscriptionAdminVerified(carol, host, false)).rejects.toThrow(`You need the 'administrator' role on endpoint '${host}' or on its subscription to clear its verification`);
    await endpoints().setSubscriptionAdminVerified(alice, host, false);
    expect(await verified()).toBe(false);
    await endpoints().setSubscriptionAdminVerified(bob, host, true);
    await endpoints().setSubscriptionAdminVerified(bob, host, false);
    expect(await verified()).toBe(false);
  });

  it('counts an administrator through a group, and needs a subscription to verify', async () => {
    await world.services.admin.identities.addGroup('admins');
    await world.services.admin.identities.addGroupMember('admins', 'carol');
    await world.services.admin.subscriptions.addSubscriptionAdministrator('Lab', 'admins');
    await endpoints().setSubscriptionAdminVerified(await world.principal('carol'), host, true);
    expect(await verified()).toBe(true);
    const plain = (await endpoints().createEndpoint(alice, { display_name: 'Unmanaged', public: true })).id;
    await expect(endpoints().setSubscriptionAdminVerified(bob, plain, true)).rejects.toThrow(`Endpoint '${plain}' has no subscription: there is nothing to verify`);
  });

  it('is cleared when the subscription changes, and kept when the same one is set again', async () => {
    await endpoints().setSubscriptionAdminVerified(bob, host, true);
    await endpoints().updateEndpoint(alice, host, { subscription_id: 'DEFAULT' });
    expect(await verified()).toBe(true);
    await endpoints().updateEndpoint(alice, host, { subscription_id: null });
    expect(await verified()).toBe(false);
  });

  it('retries when another writer changed the endpoint first', async () => {
    const repository = world.uow.repositories.endpoints;
    const real = repository.update.bind(repository);
    let calls = 0;
    jest.spyOn(repository, 'update').mockImplementation(async (endpoint) => {
      if (++calls === 1) throw new ConcurrentModificationError('lost');
      return real(endpoint);
    });
    await endpoints().setSubscriptionAdminVerified(bob, host, true);
    expect(calls).toBe(2);
    expect(await verified()).toBe(true);
  });
});

describe('what a view of an endpoint shows its caller (viewOf)', () => {
  const owner = { id: 'o', username: 'owner', name: null, email: null, organization: null, identity_provider: 'x', identity_type: 'login' as const, status: 'used' as const, set_id: 'o', password_hash: null, linked_at: null, created_at: new Date() };
  const now = new Date('2026-01-01T00:00:00Z');
  const host = Endpoint.create({ display_name: 'Host', subscription_id: 's', servers: [{ hostname: 'h.example.org' }] }, { id: 'aaaaaaaa-0000-4000-8000-000000000001', owner, now, subscriptionId: 's', setupKey: 'k' });
  const share = Endpoint.createShared({ display_name: 'Share', host_endpoint_id: host.id, host_path: '/d/' }, { id: 'aaaaaaaa-0000-4000-8000-000000000002', owner, now, host, callerIsHostAdministrator: true });

  it('lets only a share have editable access rules, for its administrators and access managers', () => {
    expect(viewOf(host, ['administrator'], null, false, []).aclEditable).toBe(false);
    expect(viewOf(share, ['administrator'], host, true, []).aclEditable).toBe(true);
    expect(viewOf(share, ['access_manager'], host, true, []).aclEditable).toBe(true);
    expect(viewOf(share, ['activity_monitor'], host, true, []).aclEditable).toBe(false);
  });

  it("shows a share's host_path to its administrators and to the host's administrators and monitors, never a host's own", () => {
    expect(viewOf(share, ['administrator'], host, true, []).hostPathVisible).toBe(true);
    expect(viewOf(share, [], host, true, ['administrator']).hostPathVisible).toBe(true);
    expect(viewOf(share, [], host, true, ['activity_monitor']).hostPathVisible).toBe(true);
    expect(viewOf(share, ['access_manager'], host, true, []).hostPathVisible).toBe(false);
    expect(viewOf(share, ['administrator'], null, false, []).hostPathVisible).toBe(false);
    expect(viewOf(host, ['administrator'], null, false, ['administrator']).hostPathVisible).toBe(false);
    expect(viewOf(host, ['administrator'], null, false, []).setupKeyVisible).toBe(true);
    expect(viewOf(host, ['activity_monitor'], null, false, []).setupKeyVisible).toBe(false);
  });
});
