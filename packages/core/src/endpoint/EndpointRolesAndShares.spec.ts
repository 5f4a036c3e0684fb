import type { Principal } from '../auth/Principal';
import { BadRequestError, PermissionDeniedError, RoleNotFoundError } from '../shared/errors';
import { TestWorld } from '../testing/TestWorld';
import { Endpoint } from './Endpoint';

/** The roles API and the shares of a host (catalogue features 2 and 3), at the use cases. */
describe('EndpointService: roles and shares of a host', () => {
  let world: TestWorld;
  let alice: Principal;
  let bob: Principal;
  let carol: Principal;
  let host: string;
  const endpoints = () => world.services.endpoints;
  const grant = (caller: Principal, xid: string, role: string, who: Principal | string, principal_type = 'identity') =>
    endpoints().addRole(caller, xid, { role, principal_type, principal: typeof who === 'string' ? who : who.primary.id });

  beforeEach(async () => {
    world = new TestWorld();
    [alice, bob, carol] = await world.principals('alice', 'bob', 'carol');
    await world.subscriptionFor('alice');
    host = (await endpoints().createEndpoint(alice, { display_name: 'Host', subscription_id: 'DEFAULT', servers: [{ hostname: 'gridftp.example.org' }] })).id;
  });

  describe('roles', () => {
    it('grants a role to a known identity or group, by administrators only, and lists it to role holders', async () => {
      const granted = await grant(alice, host, 'activity_monitor', bob);
      expect(granted).toMatchObject({ endpoint_id: host, role: 'activity_monitor', principal_type: 'identity', principal_id: bob.primary.id, created_at: world.clock.now() });
      await expect(grant(bob, host, 'administrator', bob)).rejects.toThrow(PermissionDeniedError);
      expect((await endpoints().listRoles(bob, host)).map((r) => [r.role, r.principal_id])).toEqual([
        ['administrator', alice.primary.id],
        ['activity_monitor', bob.primary.id],
      ]);
      await expect(endpoints().listRoles(carol, host)).rejects.toThrow(PermissionDeniedError);
      expect(await endpoints().getRole(bob, host, granted.id.toUpperCase())).toEqual(granted);
      await expect(endpoints().getRole(carol, host, granted.id)).rejects.toThrow(PermissionDeniedError);
    });

    it('takes principal ids in any case, and refuses unknown principals and malformed ids', async () => {
      const granted = await grant(alice, host, 'activity_monitor', bob.primary.id.toUpperCase());
      expect(granted.principal_id).toBe(bob.primary.id);
      await expect(grant(alice, host, 'activity_monitor', '00000000-0000-4000-8000-0000000000ff')).rejects.toThrow(`No identity '00000000-0000-4000-8000-0000000000ff' to grant a role to`);
      await expect(grant(alice, host, 'activity_monitor', 'bob')).rejects.toThrow(BadRequestError);
      await expect(grant(alice, host, 'activity_monitor', bob.primary.id, 'group')).rejects.toThrow(/No group/);
      const lab = await world.services.admin.identities.addGroup('lab');
      await expect(grant(alice, host, 'activity_monitor', lab, 'group')).resolves.toMatchObject({ principal_type: 'group', principal_id: lab });
      await expect(grant(alice, host, 'activity_monitor', lab, 'identity')).rejects.toThrow(/No identity/);
    });

    it('grants roles on managed endpoints only, access_manager on shares only', async () => {
      const unmanaged = (await endpoints().createEndpoint(alice, { display_name: 'Plain' })).id;
      await expect(grant(alice, unmanaged, 'activity_monitor', bob)).rejects.toThrow(/only on managed endpoints/);
      await expect(grant(alice, host, 'access_manager', bob)).rejects.toThrow(/only on shared endpoints/);
      const share = (await endpoints().createSharedEndpoint(alice, { display_name: 'Share', host_endpoint_id: host, host_path: '/data/' })).id;
      await expect(grant(alice, share, 'access_manager', bob)).resolves.toMatchObject({ role: 'access_manager' });
    });

    it('finds a role of this endpoint only, by a well-formed id', async () => {
      const other = (await endpoints().createEndpoint(alice, { display_name: 'Other', subscription_id: 'DEFAULT' })).id;
      const onOther = await grant(alice, other, 'activity_monitor', bob);
      await expect(endpoints().getRole(alice, host, onOther.id)).rejects.toThrow(RoleNotFoundError);
      await expect(endpoints().getRole(alice, host, 'not-an-id')).rejects.toThrow(RoleNotFoundError);
      await expect(endpoints().deleteRole(alice, host, onOther.id)).rejects.toThrow(RoleNotFoundError);
    });

    it("removes a role, by administrators only, but never the owner's own administrator role", async () => {
      const monitor = await grant(alice, host, 'activity_monitor', bob);
      const admin = await grant(alice, host, 'administrator', carol);
      await expect(endpoints().deleteRole(bob, host, monitor.id)).rejects.toThrow(PermissionDeniedError);
      await endpoints().deleteRole(carol, host, monitor.id);
      const owners = (await endpoints().listRoles(alice, host)).filter((r) => r.principal_id === alice.primary.id);
      await expect(endpoints().deleteRole(carol, host, owners[0].id)).rejects.toThrow("The owner's administrator role cannot be removed");
      // an administrator role of the owner given again besides is the owner's too
      await endpoints().deleteRole(alice, host, admin.id);
      expect((await endpoints().listRoles(alice, host)).map((r) => r.id)).toEqual([owners[0].id]);
    });
  });

  describe('shares of a host', () => {
    const share = async (owner: Principal, name: string, isPublic = true) => {
      const { id } = await endpoints().createSharedEndpoint(owner, { display_name: name, host_endpoint_id: host, host_path: `/${name}/` });
      if (!isPublic) {
        // shares are public through the API; one stored private (older data) is still never shown
        const stored = (await world.uow.repositories.endpoints.findById(id))!;
        await world.uow.repositories.endpoints.update(Endpoint.adopt({ ...stored.snapshot, public: false }));
      }
      world.clock.advance(1);
      return id;
    };

    it('lists to administrators and activity monitors of the host only', async () => {
      await share(alice, 'one');
      await expect(endpoints().sharesOfHost(bob, host, { after: null, limit: 10 })).rejects.toThrow(PermissionDeniedError);
      await grant(alice, host, 'activity_monitor', bob);
      expect((await endpoints().sharesOfHost(bob, host, { after: null, limit: 10 })).views.map((v) => v.endpoint.displayName)).toEqual(['one']);
      const onShare = await share(alice, 'two');
      await expect(endpoints().sharesOfHost(alice, onShare, { after: null, limit: 10 })).rejects.toThrow(/cannot host shared endpoints/);
    });

    it('pages in creation order, each share once, skipping the ones the caller may not see without an empty page', async () => {
      await grant(alice, host, 'activity_monitor', bob);
      await share(alice, 's1');
      await share(alice, 'hidden1', false);
      await share(alice, 'hidden2', false);
      await share(alice, 's2');
      await share(alice, 's3');
      const seen: (string | null)[][] = [];
      let after = null;
      for (let pages = 0; pages < 10; pages++) {
        const page: Awaited<ReturnType<ReturnType<typeof endpoints>['sharesOfHost']>> = await endpoints().sharesOfHost(bob, host, { after, limit: 1 });
        seen.push(page.views.map((v) => v.endpoint.displayName));
        after = page.next;
        if (after === null) break;
      }
      expect(seen).toEqual([['s1'], ['s2'], ['s3'], []]);
      const all = await endpoints().sharesOfHost(alice, host, { after: null, limit: 10 });
      expect(all.views.map((v) => v.endpoint.displayName)).toEqual(['s1', 'hidden1', 'hidden2', 's2', 's3']);
      expect(all.next).toBeNull();
    });

    it("lists the caller's own shares of a host, by their roles, with the host's fields", async () => {
      await grant(alice, host, 'administrator', bob);
      const mine = await share(bob, 'mine');
      await share(alice, 'theirs');
      const managed = await share(alice, 'managed');
      await grant(alice, managed, 'access_manager', carol);
      expect((await endpoints().mySharedEndpoints(carol, host)).map((v) => v.endpoint.displayName)).toEqual(['managed']);
      const bobs = await endpoints().mySharedEndpoints(bob, host);
      expect(bobs.map((v) => v.endpoint.id)).toEqual([mine]);
      expect(bobs[0]).toMatchObject({ hostVisible: true, hostPathVisible: true });
      expect((await endpoints().mySharedEndpoints(alice, host)).map((v) => v.endpoint.displayName)).toEqual(['theirs', 'managed']);
      await expect(endpoints().mySharedEndpoints(alice, managed)).rejects.toThrow(/cannot host shared endpoints/);
    });
  });

  describe('search', () => {
    it('finds what the caller could GET, best first, with the host of each share read once', async () => {
      await endpoints().createEndpoint(alice, { display_name: 'Ocean storage', public: true });
      await endpoints().createEndpoint(alice, { display_name: 'Ocean secrets' });
      await endpoints().createEndpoint(bob, { display_name: 'Desert', description: 'ocean of sand', public: true });
      const { id: shared } = await endpoints().createSharedEndpoint(alice, { display_name: 'Ocean share', host_endpoint_id: host, host_path: '/ocean/' });
      const found = await endpoints().search(bob, { fulltext: 'ocean' });
      expect(found.results.map((r) => r.view.endpoint.displayName)).toEqual(expect.arrayContaining(['Ocean storage', 'Desert', 'Ocean share']));
      expect(found.results).toHaveLength(3);
      expect(found.results[found.results.length - 1].view.endpoint.displayName).toBe('Desert');
      const shareView = found.results.find((r) => r.view.endpoint.id === shared)!.view;
      expect(shareView).toMatchObject({ hostVisible: false, hostPathVisible: false });
      expect(found).toMatchObject({ hasNextPage: false, offset: 0, limit: 25 });
    });

    it('says there is a next page only when more matched, and answers an empty page for scopes without data', async () => {
      for (let i = 0; i < 3; i++) await endpoints().createEndpoint(alice, { display_name: `Ocean ${i}`, public: true });
      expect(await endpoints().search(bob, { fulltext: 'ocean', limit: 2 })).toMatchObject({ hasNextPage: true, limit: 2 });
      expect(await endpoints().search(bob, { fulltext: 'ocean', limit: 3 })).toMatchObject({ hasNextPage: false });
      expect(await endpoints().search(bob, { fulltext: 'ocean', limit: 2, offset: 2 })).toMatchObject({ hasNextPage: false, offset: 2 });
      expect(await endpoints().search(bob, { fulltext: 'nothing', limit: 2 })).toMatchObject({ results: [], hasNextPage: false });
      expect(await endpoints().search(bob, { scope: 'recently-used' })).toEqual({ results: [], hasNextPage: false, offset: 0, limit: 25 });
    });

    it('never says there is a next page past the search window', async () => {
      for (let i = 0; i < 3; i++) await endpoints().createEndpoint(alice, { display_name: `Ocean ${i}`, public: true });
      expect(await endpoints().search(bob, { fulltext: 'ocean', limit: 1, offset: 999 })).toMatchObject({ hasNextPage: false });
    });
  });
});
