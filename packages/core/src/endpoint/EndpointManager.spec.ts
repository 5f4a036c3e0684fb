import type { Principal } from '../auth/Principal';
import { ALL_PAUSED } from '../pause-rule/PauseRule';
import { BadRequestError, EndpointNotFoundError, PermissionDeniedError, ResourceNotFoundError } from '../shared/errors';
import { TestWorld } from '../testing/TestWorld';
import { Endpoint } from './Endpoint';
import { MAX_MANAGED_ENDPOINTS, PAUSE_RULE_LIST_LIMITS } from './EndpointManager';

describe('the endpoint manager (monitored endpoints, their shares and pause rules)', () => {
  let world: TestWorld;
  let alice: Principal;
  let bob: Principal;
  let carol: Principal;
  let host: string;
  const manager = () => world.services.endpointManager;
  const grant = (endpointId: string, role: string, username: string) => world.services.admin.endpoints.grantRole(endpointId, role, username);

  beforeEach(async () => {
    world = new TestWorld();
    [alice, bob, carol] = await world.principals('alice', 'bob', 'carol');
    await world.subscriptionFor('alice');
    host = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Host', subscription_id: 'DEFAULT', servers: [{ hostname: 'h.example.org' }] })).id;
  });

  describe('monitored endpoints', () => {
    it('lists the endpoints on which the caller holds a monitoring role, with the roles it holds', async () => {
      const other = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Other', subscription_id: 'DEFAULT' })).id;
      await grant(host, 'activity_monitor', 'bob');
      await grant(other, 'activity_manager', 'bob');
      const views = await manager().monitoredEndpoints(bob);
      expect(views.map((v) => [v.endpoint.id, v.roles])).toEqual([
        [host, ['activity_monitor']],
        [other, ['activity_manager']],
      ]);
      expect(await manager().monitoredEndpoints(carol)).toEqual([]);
      expect((await manager().monitoredEndpoints(alice)).map((v) => v.endpoint.id)).toEqual([host, other]);
    });

    it('gives one endpoint to its monitors only, by id (never by canonical name)', async () => {
      await grant(host, 'activity_monitor', 'bob');
      expect((await manager().endpoint(bob, host.toUpperCase())).endpoint.id).toBe(host);
      await expect(manager().endpoint(carol, host)).rejects.toThrow(new PermissionDeniedError(`You need the 'administrator', 'activity_manager' or 'activity_monitor' role on endpoint '${host}'`));
      const canonical = (await world.services.endpoints.getEndpoint(alice, host)).endpoint.snapshot.canonical_name;
      await expect(manager().endpoint(alice, canonical)).rejects.toThrow(EndpointNotFoundError);
    });

    it("lists a host's shares to the host's monitors, with host_path visible to them; a share cannot host", async () => {
      const share = (await world.services.endpoints.createSharedEndpoint(alice, { display_name: 'Share', host_endpoint_id: host, host_path: '/data/' })).id;
      await grant(host, 'activity_monitor', 'bob');
      const shares = await manager().hostedEndpoints(bob, host);
      expect(shares.map((v) => [v.endpoint.id, v.hostPathVisible])).toEqual([[share, true]]);
      await expect(manager().hostedEndpoints(carol, host)).rejects.toThrow(PermissionDeniedError);
      await expect(manager().hostedEndpoints(alice, share)).rejects.toThrow(new BadRequestError(`Endpoint '${share}' cannot host shared endpoints`));
    });

    it('lists every share of a small host, oldest first, its host visible', async () => {
      expect(MAX_MANAGED_ENDPOINTS).toBe(1000);
      for (let i = 0; i < 3; i++) await world.services.endpoints.createSharedEndpoint(alice, { display_name: `Share ${i}`, host_endpoint_id: host, host_path: `/s${i}/` });
      const shares = await manager().hostedEndpoints(alice, host);
      expect(shares.map((v) => v.endpoint.snapshot.display_name)).toEqual(['Share 0', 'Share 1', 'Share 2']);
      expect(shares.map((v) => v.hostVisible)).toEqual([true, true, true]);
    });

    it('answers at most MAX_MANAGED_ENDPOINTS shares of a host, the oldest, in one read', async () => {
      // one share made as people make them, the others stored beside it, a second apart
      const first = (await world.services.endpoints.createSharedEndpoint(alice, { display_name: 'Share 0', host_endpoint_id: host, host_path: '/s0/' })).id;
      const state = (await world.uow.repositories.endpoints.findById(first))!.toPrimitives();
      for (let i = 1; i < MAX_MANAGED_ENDPOINTS + 2; i++) {
        await world.uow.repositories.endpoints.insert(Endpoint.fromPrimitives({ ...state, id: world.ids.uuid(), display_name: `Share ${i}`, canonical_name: `${state.canonical_name}-${i}`, created_at: new Date(state.created_at.getTime() + i * 1000) }));
      }
      const pages: (string | undefined)[] = [];
      const listSharesOfHost = world.uow.repositories.endpoints.listSharesOfHost.bind(world.uow.repositories.endpoints);
      world.uow.repositories.endpoints.listSharesOfHost = async (hostId, principalIds, page) => {
        pages.push(page.after?.id);
        return listSharesOfHost(hostId, principalIds, page);
      };
      const shares = await manager().hostedEndpoints(alice, host);
      expect(shares).toHaveLength(MAX_MANAGED_ENDPOINTS);
      expect(new Set(shares.map((v) => v.endpoint.id)).size).toBe(MAX_MANAGED_ENDPOINTS);
      expect(shares[MAX_MANAGED_ENDPOINTS - 1]!.endpoint.snapshot.display_name).toBe(`Share ${MAX_MANAGED_ENDPOINTS - 1}`);
      expect(pages).toEqual([undefined]);
    });

    it('says whether the caller may see the host of a monitored share', async () => {
      const share = (await world.services.endpoints.createSharedEndpoint(alice, { display_name: 'Share', host_endpoint_id: host, host_path: '/data/' })).id;
      await grant(share, 'activity_monitor', 'bob');
      const hostVisible = async (caller: Principal) => (await manager().monitoredEndpoints(caller)).map((v) => [v.endpoint.snapshot.display_name, v.hostVisible]);
      expect(await hostVisible(bob)).toEqual([['Share', false]]);
      expect(await hostVisible(alice)).toEqual([['Host', false], ['Share', true]]);
      await world.services.endpoints.updateEndpoint(alice, host, { public: true });
      expect(await hostVisible(bob)).toEqual([['Share', true]]);
      expect((await manager().endpoint(bob, share)).hostVisible).toBe(true);
    });
  });

  describe('pause rules', () => {
    const rule = (message: string, extra = {}) => ({ endpoint_id: host, message, ...extra });

    it('are made by administrators and activity managers, pausing everything not named, for everyone unless an identity is given', async () => {
      const made = await manager().createPauseRule(alice, rule('Disk swap', { flags: { pause_task_transfer_read: false } }));
      expect(made).toMatchObject({
        endpoint_id: host,
        message: 'Disk swap',
        identity_id: null,
        start_time: world.clock.now(),
        ...ALL_PAUSED,
        pause_task_transfer_read: false,
        modified_by: 'alice',
        modified_by_id: alice.primary.id,
        created_by_host_manager: false,
      });
      await grant(host, 'activity_manager', 'bob');
      const forCarol = await manager().createPauseRule(bob, rule('For carol', { identity_id: carol.primary.id.toUpperCase(), start_time: new Date('2030-01-01T00:00:00Z') }));
      expect(forCarol).toMatchObject({ identity_id: carol.primary.id, start_time: new Date('2030-01-01T00:00:00Z'), modified_by: 'bob' });
      await grant(host, 'activity_monitor', 'carol');
      await expect(manager().createPauseRule(carol, rule('No'))).rejects.toThrow(new PermissionDeniedError(`You need the 'administrator' or 'activity_manager' role on endpoint '${host}' to manage its pause rules`));
    });

    it('need an endpoint, a message and a known identity', async () => {
      await expect(manager().createPauseRule(alice, { message: 'x' })).rejects.toThrow("Field 'endpoint_id' is required: the endpoint the rule pauses");
      await expect(manager().createPauseRule(alice, { endpoint_id: host })).rejects.toThrow("Field 'message' is required: what users are told");
      await expect(manager().createPauseRule(alice, rule('x', { identity_id: 'nobody' }))).rejects.toThrow("Invalid identity_id: no identity 'nobody'");
      await expect(manager().createPauseRule(alice, rule('x', { identity_id: 'aaaaaaaa-0000-4000-8000-000000000000' }))).rejects.toThrow(BadRequestError);
      expect(await world.uow.repositories.pauseRules.listForEndpoint(host)).toEqual([]);
    });

    it('change as asked, never moving to another endpoint; are read and deleted by their managers only', async () => {
      const made = await manager().createPauseRule(alice, rule('Before'));
      const changed = await manager().updatePauseRule(alice, made.id, { message: 'After', identity_id: bob.primary.id, start_time: null, flags: { pause_ls: false } });
      expect(changed).toMatchObject({ message: 'After', identity_id: bob.primary.id, start_time: null, pause_ls: false, pause_mkdir: true });
      expect(await manager().pauseRule(alice, made.id.toUpperCase())).toEqual(changed);
      expect((await manager().updatePauseRule(alice, made.id, { identity_id: null })).identity_id).toBeNull();
      expect((await manager().updatePauseRule(alice, made.id, { endpoint_id: host.toUpperCase() })).endpoint_id).toBe(host);
      await expect(manager().updatePauseRule(alice, made.id, { endpoint_id: 'aaaaaaaa-0000-4000-8000-000000000000' })).rejects.toThrow("Field 'endpoint_id' of a pause rule cannot change");
      await expect(manager().pauseRule(bob, made.id)).rejects.toThrow(PermissionDeniedError);
      await expect(manager().deletePauseRule(bob, made.id)).rejects.toThrow(PermissionDeniedError);
      await manager().deletePauseRule(alice, made.id);
      await expect(manager().pauseRule(alice, made.id)).rejects.toThrow(new ResourceNotFoundError(`No such pause rule '${made.id}'`));
      await expect(manager().pauseRule(alice, 'not-an-id')).rejects.toThrow(ResourceNotFoundError);
    });

    it("list the rules of the endpoints one manages, or of those named (each once, at most 100), a page at a time", async () => {
      const other = (await world.services.endpoints.createEndpoint(bob, { display_name: 'Bob host' })).id;
      for (const message of ['one', 'two', 'three']) await manager().createPauseRule(alice, rule(message));
      await world.services.admin.endpoints.addPauseRule(other, { message: "bob's" });
      expect((await manager().pauseRules(alice)).rules.map((r) => r.message)).toEqual(['one', 'two', 'three']);
      expect((await manager().pauseRules(bob)).rules.map((r) => r.message)).toEqual(["bob's"]);
      expect(await manager().pauseRules(carol)).toEqual({ rules: [], offset: 0, limit: PAUSE_RULE_LIST_LIMITS.rules, hasNextPage: false });
      const named = await manager().pauseRules(alice, [host, host.toUpperCase(), host]);
      expect(named.rules.map((r) => r.message)).toEqual(['one', 'two', 'three']);
      await expect(manager().pauseRules(alice, [other])).rejects.toThrow(PermissionDeniedError);
      const many = Array.from({ length: 101 }, (_, i) => `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, '0')}`);
      await expect(manager().pauseRules(alice, many)).rejects.toThrow('Invalid filter_endpoint: at most 100 endpoints, not 101');
      expect((await manager().pauseRules(alice, many.slice(0, 100).map(() => host))).rules).toHaveLength(3);
      expect(await manager().pauseRules(alice, [host], { offset: 1, limit: 1 })).toMatchObject({ rules: [expect.objectContaining({ message: 'two' })], offset: 1, limit: 1, hasNextPage: true });
      expect(await manager().pauseRules(alice, undefined, { offset: 2, limit: 1 })).toMatchObject({ rules: [expect.objectContaining({ message: 'three' })], hasNextPage: false });
      expect(await manager().pauseRules(alice, undefined, { offset: 0, limit: 3 })).toMatchObject({ hasNextPage: false });
      for (const page of [{ limit: 0 }, { limit: 1001 }, { limit: 1.5 }]) await expect(manager().pauseRules(alice, undefined, page)).rejects.toThrow('Invalid limit: a number from 1 to 1000');
      for (const page of [{ offset: -1 }, { offset: 0.5 }]) await expect(manager().pauseRules(alice, undefined, page)).rejects.toThrow('Invalid offset: a number from 0');
      expect((await manager().pauseRules(alice, undefined, { limit: 1000 })).limit).toBe(1000);
    });

    it('list the rules of several endpoints in order, reading each endpoint only as far as the page reaches', async () => {
      const second = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Second' })).id;
      for (const message of ['one', 'two', 'three']) await manager().createPauseRule(alice, rule(message));
      for (const message of ['four', 'five']) await manager().createPauseRule(alice, { endpoint_id: second, message });
      const read: string[] = [];
      const listForEndpoint = world.uow.repositories.pauseRules.listForEndpoint.bind(world.uow.repositories.pauseRules);
      world.uow.repositories.pauseRules.listForEndpoint = async (endpointId) => {
        read.push(endpointId === host ? 'host' : 'second');
        return listForEndpoint(endpointId);
      };
      const page = async (offset: number, limit: number) => {
        read.length = 0;
        const { rules, hasNextPage } = await manager().pauseRules(alice, undefined, { offset, limit });
        return { messages: rules.map((r) => r.message), hasNextPage, read: [...read] };
      };
      expect(await page(0, 1000)).toEqual({ messages: ['one', 'two', 'three', 'four', 'five'], hasNextPage: false, read: ['host', 'second'] });
      // the first endpoint's rules fill the page exactly: the next endpoint's say another page follows
      expect(await page(0, 3)).toEqual({ messages: ['one', 'two', 'three'], hasNextPage: true, read: ['host', 'second'] });
      expect(await page(0, 2)).toEqual({ messages: ['one', 'two'], hasNextPage: true, read: ['host'] });
      expect(await page(2, 2)).toEqual({ messages: ['three', 'four'], hasNextPage: true, read: ['host', 'second'] });
      expect(await page(3, 2)).toEqual({ messages: ['four', 'five'], hasNextPage: false, read: ['host', 'second'] });
      expect(await page(5, 2)).toEqual({ messages: [], hasNextPage: false, read: ['host', 'second'] });
      expect((await manager().pauseRules(alice, [second, host])).rules.map((r) => r.message)).toEqual(['four', 'five', 'one', 'two', 'three']);
    });

    it(`list the rules of as many as ${PAUSE_RULE_LIST_LIMITS.endpoints} named endpoints`, async () => {
      const ids: string[] = [];
      for (let i = 0; i < PAUSE_RULE_LIST_LIMITS.endpoints; i++) ids.push((await world.services.endpoints.createEndpoint(alice, { display_name: `E${i}` })).id);
      await manager().createPauseRule(alice, { endpoint_id: ids[PAUSE_RULE_LIST_LIMITS.endpoints - 1], message: 'last' });
      expect((await manager().pauseRules(alice, ids)).rules.map((r) => r.message)).toEqual(['last']);
    });

    it('name their endpoint by id only, never by its canonical name', async () => {
      const canonical = (await world.services.endpoints.getEndpoint(alice, host)).endpoint.snapshot.canonical_name;
      await expect(manager().createPauseRule(alice, { endpoint_id: canonical, message: 'x' })).rejects.toThrow(EndpointNotFoundError);
      await expect(manager().pauseRules(alice, [canonical])).rejects.toThrow(EndpointNotFoundError);
    });

    it('keep their start time when a change does not name one', async () => {
      const start = new Date('2030-01-01T00:00:00Z');
      const made = await manager().createPauseRule(alice, rule('Later', { start_time: start }));
      expect((await manager().updatePauseRule(alice, made.id, { message: 'Still later' })).start_time).toEqual(start);
      expect((await manager().pauseRule(alice, made.id)).start_time).toEqual(start);
    });
  });
});
