import { AuthenticationService, DEFAULT_AUTHENTICATION_OPTIONS, TRANSFER_SCOPE } from '../auth/AuthenticationService';
import type { Principal } from '../auth/Principal';
import {
  AuthenticationFailedError,
  ConsentRequiredError,
  BadRequestError,
  ConflictError,
  EndpointDeletedError,
  EndpointNotFoundError,
  PermissionDeniedError,
} from '../shared/errors';
import { TestWorld } from '../testing/TestWorld';
import type { CreateEndpoint } from './Endpoint';

describe('EndpointService', () => {
  let world: TestWorld;
  let alice: Principal;
  let bob: Principal;
  const endpoints = () => world.services.endpoints;
  const stateOf = async (caller: Principal, xid: string) => (await endpoints().getEndpoint(caller, xid)).endpoint.snapshot;

  beforeEach(async () => {
    world = new TestWorld();
    [alice, bob] = await world.principals('alice', 'bob');
  });

  async function managedHost(owner: Principal = alice, extra: Partial<CreateEndpoint> = {}) {
    await world.subscriptionFor(owner.primary.username, `sub-${owner.primary.username}-${Math.random()}`).catch(() => undefined);
    const { id } = await endpoints().createEndpoint(owner, {
      display_name: `Host ${Math.random()}`,
      subscription_id: 'DEFAULT',
      servers: [{ hostname: 'gridftp.example.org' }],
      ...extra,
    });
    return id;
  }

  describe('create', () => {
    it('makes the primary identity the owner and an administrator', async () => {
      const { id } = await endpoints().createEndpoint(alice, { display_name: 'Mine' });
      const view = await endpoints().getEndpoint(alice, id);
      expect(view.endpoint.snapshot).toMatchObject({ owner_id: alice.primary.id, owner_string: 'alice' });
      expect(view.roles).toEqual(['administrator']);
      const roles = await world.uow.repositories.roles.listForEndpoint(id);
      expect(roles).toEqual([expect.objectContaining({ role: 'administrator', principal_type: 'identity', principal_id: alice.primary.id })]);
    });

    it('refuses a second endpoint with the same display_name by the same owner, naming it', async () => {
      await endpoints().createEndpoint(alice, { display_name: 'Twin' });
      await expect(endpoints().createEndpoint(alice, { display_name: 'Twin' })).rejects.toThrow(/display_name 'Twin'/);
      await expect(endpoints().createEndpoint(bob, { display_name: 'Twin' })).resolves.toMatchObject({ id: expect.any(String), canonical_name: expect.stringMatching(/^bob#/) });
    });

    it('keeps nothing of a create that failed', async () => {
      await expect(endpoints().createEndpoint(alice, { display_name: 'X', servers: [{ hostname: 'ok.example.org' }, { hostname: 'bad host' }] })).rejects.toThrow(BadRequestError);
      // the name is still free: nothing of the failed create was stored
      await expect(endpoints().createEndpoint(alice, { display_name: 'X' })).resolves.toMatchObject({ id: expect.any(String) });
    });
  });

  describe('subscriptions', () => {
    it('resolves DEFAULT to the caller only subscription', async () => {
      const sub = await world.subscriptionFor('alice');
      const { id } = await endpoints().createEndpoint(alice, { display_name: 'M', subscription_id: 'DEFAULT' });
      expect((await stateOf(alice, id)).subscription_id).toBe(sub);
    });

    it('refuses DEFAULT with no subscription, and lists them when there are several', async () => {
      await expect(endpoints().createEndpoint(alice, { display_name: 'M', subscription_id: 'DEFAULT' })).rejects.toThrow(/no subscription/);
      const a = await world.subscriptionFor('alice', 'A');
      const b = await world.subscriptionFor('alice', 'B');
      const attempt = endpoints().createEndpoint(alice, { display_name: 'M', subscription_id: 'DEFAULT' });
      await expect(attempt).rejects.toThrow(`You currently have access to: ${[a, b].sort().join(', ')}`);
    });

    it('refuses a subscription the caller is not a member of, and accepts one through a group', async () => {
      const sub = await world.services.admin.subscriptions.addSubscription('Lab', []);
      await expect(endpoints().createEndpoint(alice, { display_name: 'M', subscription_id: sub })).rejects.toThrow(/not a member/);
      await world.services.admin.identities.addGroup('lab');
      await world.services.admin.identities.addGroupMember('lab', 'alice');
      const groupSub = await world.services.admin.subscriptions.addSubscription('Group lab', ['lab']);
      const member = await world.principal('alice');
      const { id } = await endpoints().createEndpoint(member, { display_name: 'G', subscription_id: groupSub });
      expect((await stateOf(member, id)).subscription_id).toBe(groupSub);
    });

    it('lets an administrator who is not a member send the subscription back unchanged', async () => {
      const id = await managedHost();
      await world.services.admin.endpoints.grantRole(id, 'administrator', 'bob');
      const current = await stateOf(bob, id);
      await endpoints().updateEndpoint(bob, id, { subscription_id: current.subscription_id, description: 'ok' });
      await expect(endpoints().updateEndpoint(bob, id, { subscription_id: 'DEFAULT' })).rejects.toThrow(/no subscription/);
    });
  });

  describe('shared endpoints (spec 2.3, 4.2 rule 3)', () => {
    it('creates a share on a managed host: public, no servers, inheriting, with host fields', async () => {
      const host = await managedHost();
      const { id } = await endpoints().createSharedEndpoint(alice, { display_name: 'Share', host_endpoint_id: host, host_path: '/~/shared/' });
      const view = await endpoints().getEndpoint(alice, id);
      expect(view.endpoint.snapshot).toMatchObject({
        kind: 'shared',
        public: true,
        host_endpoint_id: host,
        host_path: '/~/shared/',
        network_use: null,
        location: null,
        servers: [],
        canonical_name: `alice#${id}`,
      });
      expect(view).toMatchObject({ hostVisible: true, hostPathVisible: true });
      expect(view.host?.displayName).toMatch(/^Host /);
    });

    it('refuses an unmanaged server host, a share host, and settings a share does not take', async () => {
      const { id: unmanaged } = await endpoints().createEndpoint(alice, { display_name: 'Plain' });
      await expect(endpoints().createSharedEndpoint(alice, { display_name: 'S', host_endpoint_id: unmanaged, host_path: '/' })).rejects.toThrow(/not managed/);
      const host = await managedHost();
      const { id: share } = await endpoints().createSharedEndpoint(alice, { display_name: 'S1', host_endpoint_id: host, host_path: '/' });
      await expect(endpoints().createSharedEndpoint(alice, { display_name: 'S2', host_endpoint_id: share, host_path: '/' })).rejects.toThrow(/cannot host/);
      await expect(endpoints().createSharedEndpoint(alice, { display_name: 'S4', host_endpoint_id: host, host_path: '/', public: false })).rejects.toThrow(/always public/);
      await expect(endpoints().createSharedEndpoint(alice, { display_name: 'S5', host_endpoint_id: host, host_path: '/', myproxy_server: 'm.example.org' })).rejects.toThrow(/myproxy_server/);
      await expect(endpoints().createSharedEndpoint(alice, { display_name: 'S6', host_endpoint_id: host, host_path: '/', location: '1,2' })).rejects.toThrow(/location/);
      await expect(endpoints().createSharedEndpoint(alice, { display_name: 'S7', host_endpoint_id: host })).rejects.toThrow(/host_path/);
      await expect(endpoints().createSharedEndpoint(alice, { display_name: 'S8', host_endpoint_id: host, host_path: 'relative/' })).rejects.toThrow(/absolute path/);
      await endpoints().createSharedEndpoint(alice, { display_name: 'S9', host_endpoint_id: host, host_path: '/', public: true, location: null, subscription_id: null });
    });

    it('lets a personal-client host administrator share without a subscription', async () => {
      const { id: laptop } = await endpoints().createEndpoint(alice, { display_name: 'Laptop', personal: true });
      const { id: share } = await endpoints().createSharedEndpoint(alice, { display_name: 'S', host_endpoint_id: laptop, host_path: '/' });
      expect((await endpoints().getEndpoint(alice, share)).endpoint.hostEndpointId).toBe(laptop);
      await world.services.admin.endpoints.grantRole(laptop, 'activity_monitor', 'bob');
      await expect(endpoints().createSharedEndpoint(bob, { display_name: 'S', host_endpoint_id: laptop, host_path: '/' })).rejects.toThrow(PermissionDeniedError);
    });

    it("refuses a share of a public managed host to whoever is not the host's administrator", async () => {
      const host = await managedHost(alice, { public: true });
      await expect(endpoints().createSharedEndpoint(bob, { display_name: 'S', host_endpoint_id: host, host_path: '/' })).rejects.toThrow(
        new PermissionDeniedError(`You need the 'administrator' role on endpoint '${host}' to share it`),
      );
      await world.services.admin.endpoints.grantRole(host, 'administrator', 'bob');
      const { id } = await endpoints().createSharedEndpoint(bob, { display_name: 'S', host_endpoint_id: host, host_path: '/b/' });
      expect((await endpoints().getEndpoint(alice, id)).hostPathVisible).toBe(true);
      await endpoints().deleteEndpoint(alice, id);
      await expect(endpoints().getEndpoint(bob, id)).rejects.toThrow(/deleted/);
    });

    it('hides host_path from callers without administrator on the share or activity_monitor on the host', async () => {
      const host = await managedHost(alice, { public: true });
      const { id } = await endpoints().createSharedEndpoint(alice, { display_name: 'S', host_endpoint_id: host, host_path: '/data/' });
      expect((await endpoints().getEndpoint(bob, id)).hostPathVisible).toBe(false);
      await world.services.admin.endpoints.grantRole(host, 'activity_monitor', 'bob');
      expect((await endpoints().getEndpoint(bob, id)).hostPathVisible).toBe(true);
    });

    it('hides the host display name from callers who may not see the host, and shows nulls once the host is deleted', async () => {
      const host = await managedHost();
      const { id } = await endpoints().createSharedEndpoint(alice, { display_name: 'S', host_endpoint_id: host, host_path: '/data/' });
      expect(await endpoints().getEndpoint(bob, id)).toMatchObject({ hostVisible: false, hostPathVisible: false });
      await endpoints().deleteEndpoint(alice, host);
      const view = await endpoints().getEndpoint(alice, id);
      expect(view).toMatchObject({ host: null, hostVisible: false, hostPathVisible: false });
      expect(view.endpoint.hostEndpointId).toBe(host);
    });

    it('lists the shares of a host on which the caller is administrator or access manager', async () => {
      const host = await managedHost();
      const mine = await endpoints().createSharedEndpoint(alice, { display_name: 'Mine', host_endpoint_id: host, host_path: '/a/' });
      await world.subscriptionFor('bob');
      await world.services.admin.endpoints.grantRole(host, 'activity_monitor', 'bob');
      const managedByBob = await endpoints().createSharedEndpoint(alice, { display_name: 'Bobs', host_endpoint_id: host, host_path: '/b/' });
      await world.services.admin.endpoints.grantRole(managedByBob.id, 'access_manager', 'bob');
      expect((await endpoints().mySharedEndpoints(alice, host)).map((v) => v.endpoint.id)).toEqual([mine.id, managedByBob.id]);
      expect((await endpoints().mySharedEndpoints(bob, host)).map((v) => v.endpoint.id)).toEqual([managedByBob.id]);
      await expect(endpoints().mySharedEndpoints(alice, mine.id)).rejects.toThrow(BadRequestError);
      const { id: unmanaged } = await endpoints().createEndpoint(alice, { display_name: 'Unmanaged' });
      expect(await endpoints().mySharedEndpoints(alice, unmanaged)).toEqual([]);
    });

    it('allows only the common fields on a share update', async () => {
      const host = await managedHost();
      const { id } = await endpoints().createSharedEndpoint(alice, { display_name: 'S', host_endpoint_id: host, host_path: '/a/' });
      await endpoints().updateEndpoint(alice, id, { description: 'New', force_encryption: true, oauth_server: null });
      await expect(endpoints().updateEndpoint(alice, id, { public: false })).rejects.toThrow(/'public' cannot be changed on a shared endpoint/);
      await expect(endpoints().updateEndpoint(alice, id, { network_use: 'normal' })).rejects.toThrow(/network_use/);
      await expect(endpoints().updateEndpoint(alice, id, { subscription_id: 'DEFAULT' })).rejects.toThrow(/subscription_id/);
      await expect(endpoints().addServer(alice, id, { hostname: 'a.example.org' })).rejects.toThrow(/doesn't have servers/);
      await expect(endpoints().listServers(alice, id)).rejects.toThrow(/doesn't have servers/);
    });
  });

  describe('owner_string (spec 2.1)', () => {
    it('changes only to an identity-role administrator, done by that administrator', async () => {
      const { id } = await endpoints().createEndpoint(alice, { display_name: 'Owned' });
      await world.services.admin.endpoints.grantRole(id, 'administrator', 'bob');
      await expect(endpoints().updateEndpoint(alice, id, { owner_string: 'bob' })).rejects.toThrow(/one of your own identities/);
      await endpoints().updateEndpoint(bob, id, { owner_string: 'bob' });
      expect(await stateOf(alice, id)).toMatchObject({ owner_string: 'bob', owner_id: alice.primary.id });
    });

    it('refuses an identity that administers only through a group', async () => {
      const { id } = await endpoints().createEndpoint(alice, { display_name: 'Owned' });
      await world.services.admin.identities.addGroup('admins');
      await world.services.admin.identities.addGroupMember('admins', 'bob');
      await world.services.admin.endpoints.grantRole(id, 'administrator', 'admins');
      const groupBob = await world.principal('bob');
      await expect(endpoints().updateEndpoint(groupBob, id, { owner_string: 'bob' })).rejects.toThrow(/through an identity role/);
    });
  });

  describe('who may do what (spec 4.2)', () => {
    // on a host: access_manager exists only on shares
    const ROLES = ['administrator', 'activity_manager', 'activity_monitor'] as const;
    const attempts = (caller: Principal, id: string) => ({
      view: () => endpoints().getEndpoint(caller, id),
      listServers: () => endpoints().listServers(caller, id),
      update: () => endpoints().updateEndpoint(caller, id, { description: `by ${caller.primary.username}` }),
      addServer: () => endpoints().addServer(caller, id, { hostname: 'extra.example.org' }),
      updateServer: () => endpoints().updateServer(caller, id, 1, { port: 2812 }),
      deleteServer: async () => {
        const added = await endpoints().addServer(alice, id, { hostname: 'spare.example.org' });
        return endpoints().deleteServer(caller, id, added);
      },
      delete: () => endpoints().deleteEndpoint(caller, id),
    });
    const outcome = async (attempt: () => Promise<unknown>) => attempt().then(() => 'ok', (e: unknown) => (e instanceof PermissionDeniedError ? 'denied' : `error ${String(e)}`));
    const outcomes = async (caller: Principal, id: string) => {
      const result: Record<string, string> = {};
      for (const [name, attempt] of Object.entries(attempts(caller, id))) result[name] = await outcome(attempt);
      return result;
    };
    const READ_ONLY = { view: 'ok', listServers: 'ok', update: 'denied', addServer: 'denied', updateServer: 'denied', deleteServer: 'denied', delete: 'denied' };

    it('shows a private endpoint to its role holders only', async () => {
      const { id } = await endpoints().createEndpoint(alice, { display_name: 'Private', servers: [{ hostname: 'a.example.org' }] });
      expect(await outcome(() => endpoints().getEndpoint(bob, id))).toBe('denied');
      expect(await outcome(() => endpoints().listServers(bob, id))).toBe('denied');
      for (const role of ROLES) {
        const grant = await world.services.admin.endpoints.grantRole(id, role, 'bob');
        const allowed = role === 'administrator' || role === 'activity_monitor';
        expect([role, await outcome(() => endpoints().getEndpoint(bob, id))]).toEqual([role, allowed ? 'ok' : 'denied']);
        await world.services.admin.endpoints.revokeRole(grant);
      }
    });

    it('lets only administrators change or delete an endpoint and its servers', async () => {
      for (const role of ROLES.filter((r) => r !== 'administrator')) {
        const { id } = await endpoints().createEndpoint(alice, { display_name: `Guarded ${role}`, public: true, servers: [{ hostname: 'a.example.org' }] });
        await world.services.admin.endpoints.grantRole(id, role, 'bob');
        expect([role, await outcomes(bob, id)]).toEqual([role, READ_ONLY]);
      }
      const { id: open } = await endpoints().createEndpoint(alice, { display_name: 'Public, no role', public: true, servers: [{ hostname: 'a.example.org' }] });
      expect(await outcomes(bob, open)).toEqual(READ_ONLY);
      const { id } = await endpoints().createEndpoint(alice, { display_name: 'Shared admin', servers: [{ hostname: 'a.example.org' }] });
      await world.services.admin.endpoints.grantRole(id, 'administrator', 'bob');
      expect(await outcomes(bob, id)).toEqual({ view: 'ok', listServers: 'ok', update: 'ok', addServer: 'ok', updateServer: 'ok', deleteServer: 'ok', delete: 'ok' });
    });

    it('hands owner_string only to an identity that holds administrator itself, not another role', async () => {
      const { id } = await endpoints().createEndpoint(alice, { display_name: 'Owned by role' });
      // bob administers through a group and holds other roles himself
      await world.services.admin.identities.addGroup('stewards');
      await world.services.admin.identities.addGroupMember('stewards', 'bob');
      await world.services.admin.endpoints.grantRole(id, 'administrator', 'stewards');
      await world.services.admin.endpoints.grantRole(id, 'activity_manager', 'bob');
      await world.services.admin.endpoints.grantRole(id, 'activity_monitor', 'bob');
      const steward = await world.principal('bob');
      await expect(endpoints().updateEndpoint(steward, id, { owner_string: 'bob' })).rejects.toThrow(/through an identity role/);
      expect(await stateOf(alice, id)).toMatchObject({ owner_string: 'alice' });
      await world.services.admin.endpoints.grantRole(id, 'administrator', 'bob');
      await endpoints().updateEndpoint(steward, id, { owner_string: 'bob' });
      expect(await stateOf(alice, id)).toMatchObject({ owner_string: 'bob' });
    });
  });

  describe('linked identities (spec 1)', () => {
    it('grants the owner rights to every identity linked to the owner', async () => {
      const { id } = await endpoints().createEndpoint(alice, { display_name: 'Private' });
      await world.user('alice@work.example.org');
      await world.services.admin.identities.linkIdentities('alice@work.example.org', 'alice');
      const work = await world.principal('alice@work.example.org');
      expect((await endpoints().getEndpoint(work, id)).roles).toEqual(['administrator']);
      await endpoints().updateEndpoint(work, id, { owner_string: 'alice' });
    });
  });

  describe('lookup and deletion', () => {
    it('finds by canonical name on get and delete only', async () => {
      const { id, canonical_name } = await endpoints().createEndpoint(alice, { display_name: 'Legacy', name: 'legacy' });
      expect(canonical_name).toBe('alice#legacy');
      expect((await endpoints().getEndpoint(alice, 'alice#legacy')).endpoint.id).toBe(id);
      await expect(endpoints().updateEndpoint(alice, 'alice#legacy', { description: 'x' })).rejects.toThrow(EndpointNotFoundError);
      await endpoints().deleteEndpoint(alice, 'alice#legacy');
      await expect(endpoints().getEndpoint(alice, 'alice#legacy')).rejects.toThrow(EndpointDeletedError);
    });

    it('reports a deleted endpoint as EndpointDeleted and an unknown one as EndpointNotFound', async () => {
      const { id } = await endpoints().createEndpoint(alice, { display_name: 'Gone', servers: [{ hostname: 'a.example.org' }] });
      await world.services.admin.endpoints.grantRole(id, 'activity_manager', 'bob');
      await world.services.admin.endpoints.addPauseRule(id, { message: 'paused' });
      await endpoints().deleteEndpoint(alice, id);
      await expect(endpoints().getEndpoint(alice, id)).rejects.toThrow(EndpointDeletedError);
      await expect(endpoints().listServers(alice, id)).rejects.toThrow(EndpointDeletedError);
      await expect(endpoints().deleteEndpoint(alice, id)).rejects.toThrow(EndpointDeletedError);
      expect(await world.uow.repositories.roles.listForEndpoint(id)).toEqual([]);
      expect(await world.uow.repositories.pauseRules.listForEndpoint(id)).toEqual([]);
      await expect(endpoints().getEndpoint(alice, '00000000-0000-4000-8000-0000000000ff')).rejects.toThrow(EndpointNotFoundError);
      await expect(endpoints().getEndpoint(alice, 'not-an-id')).rejects.toThrow(EndpointNotFoundError);
    });
  });

  describe('pause rules (spec 4.2 rule 6)', () => {
    it('returns the rules for everyone and for the caller', async () => {
      const { id } = await endpoints().createEndpoint(alice, { display_name: 'Paused', public: true });
      const everyone = await world.services.admin.endpoints.addPauseRule(id, { message: 'Everyone' });
      const forBob = await world.services.admin.endpoints.addPauseRule(id, { message: 'Bob only', identity: 'bob' });
      const bobs = await endpoints().myEffectivePauseRules(bob, id);
      expect(bobs.map((r) => r.id).sort()).toEqual([everyone, forBob].sort());
      expect((await endpoints().myEffectivePauseRules(alice, id)).map((r) => r.id)).toEqual([everyone]);
    });
  });

  describe('authentication', () => {
    it('refuses a revoked token at once', async () => {
      const auth = world.services.authentication;
      const { token } = await world.services.admin.tokens.issueToken('alice');
      await auth.authenticate(token);
      await world.services.admin.tokens.revokeToken(token);
      await expect(auth.authenticate(token)).rejects.toThrow(/revoked/);
    });

    it('asks for consent when a token lacks the required scope', async () => {
      const { token } = await world.services.admin.tokens.issueToken('alice', null, 'openid');
      const error = await world.services.authentication.authenticate(token).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConsentRequiredError);
      expect((error as ConsentRequiredError).requiredScopes).toEqual([TRANSFER_SCOPE]);
      const anyScope = new AuthenticationService(world.uow, world.clock, { ...DEFAULT_AUTHENTICATION_OPTIONS, requiredScope: null });
      await expect(anyScope.authenticate(token)).resolves.toMatchObject({ primary: expect.objectContaining({ username: 'alice' }) });
    });

    it('refuses missing, unknown, expired tokens', async () => {
      const auth = world.services.authentication;
      await expect(auth.authenticate(undefined)).rejects.toThrow(AuthenticationFailedError);
      await expect(auth.authenticate('xfer_unknown')).rejects.toThrow(AuthenticationFailedError);
      const { token } = await world.services.admin.tokens.issueToken('alice', 60);
      await expect(auth.authenticate(token)).resolves.toMatchObject({ primary: expect.objectContaining({ username: 'alice' }) });
      world.clock.advance(61);
      await expect(auth.authenticate(token)).rejects.toThrow(/expired/);
    });
  });

  it('maps the error classes the API relies on', () => {
    expect(new PermissionDeniedError('x').code).toBe('PermissionDenied');
    expect(new ConflictError('x').code).toBe('ClientError.Conflict');
  });
});
