import type { Principal } from '../auth/Principal';
import { AccessRuleNotFoundError, BadRequestError, EndpointNotFoundError, ExistsError, InvalidPathError, LimitExceededError, PermissionDeniedError } from '../shared/errors';
import { TestWorld } from '../testing/TestWorld';
import { checkAccessPath, checkExpiration, isAccessRuleLive, MAX_ACCESS_RULES, newAccessRule } from './AccessRule';

const now = new Date('2026-05-06T07:08:09.000Z');
const ctx = { id: 'r1', endpointId: 'e1', now };

describe('access rule values', () => {
  it('stores paths absolute, without . or .., ending in /', () => {
    expect(checkAccessPath('/projects/a')).toBe('/projects/a/');
    expect(checkAccessPath('/projects/a/')).toBe('/projects/a/');
    expect(checkAccessPath('/')).toBe('/');
    expect(checkAccessPath('/a.b/..c/')).toBe('/a.b/..c/');
    for (const bad of ['projects/a/', '', '~/a/', '/a/../b/', '/a/./b/', '/..', '/a\u0000b/', '/a\u0007b/', `/${'x'.repeat(2000)}`]) {
      expect(() => checkAccessPath(bad)).toThrow(InvalidPathError);
    }
    expect(checkAccessPath(`/${'x'.repeat(1998)}`)).toHaveLength(2000);
    expect(checkAccessPath(`/${'x'.repeat(1998)}/`)).toHaveLength(2000);
  });

  it('says what is wrong with a path, quoting at most its first 100 characters', () => {
    expect(() => checkAccessPath('projects/a/')).toThrow("Invalid path 'projects/a/': it must be absolute (start with /)");
    expect(() => checkAccessPath('x'.repeat(150))).toThrow(`Invalid path '${'x'.repeat(100)}': it must be absolute (start with /)`);
    expect(() => checkAccessPath(`/${'x'.repeat(2000)}`)).toThrow('Invalid path: at most 2000 characters');
    expect(() => checkAccessPath('/a\u0007b/')).toThrow('Invalid path: control characters are not allowed');
    expect(() => checkAccessPath('/a/../b/')).toThrow("Invalid path '/a/../b/': no . or .. segments");
    expect(() => checkAccessPath(`/${'y'.repeat(150)}/../`)).toThrow(`Invalid path '/${'y'.repeat(99)}': no . or .. segments`);
  });

  it('takes a date (midnight UTC) or an ISO datetime in the future as the expiry', () => {
    expect(checkExpiration('2026-05-07', now)).toEqual(new Date('2026-05-07T00:00:00.000Z'));
    expect(checkExpiration('2026-05-06T07:08:10Z', now)).toEqual(new Date('2026-05-06T07:08:10.000Z'));
    for (const past of ['2026-05-06', '2026-05-06T07:08:09Z', '2020-01-01']) expect(() => checkExpiration(past, now)).toThrow(/in the future/);
    for (const bad of ['tomorrow', '2026-13-45', '06/05/2027', '2027']) expect(() => checkExpiration(bad, now)).toThrow(/a date or an ISO datetime/);
    // years of six digits parse as dates, but are neither form
    for (const bad of ['+002027-01-01', '+002027-01-01T00:00:00Z']) expect(() => checkExpiration(bad, now)).toThrow(`Invalid expiration_date '${bad}': a date or an ISO datetime`);
    expect(() => checkExpiration('x'.repeat(50), now)).toThrow(`Invalid expiration_date '${'x'.repeat(40)}': a date or an ISO datetime`);
  });

  it('refuses dates no calendar has and instants past year 9999, and applies the offset (security review two, finding 9)', () => {
    for (const bad of ['2027-02-30', '2027-02-29', '2027-04-31', '2027-02-30T00:00:00Z', '2027-06-31T12:00:00+02:00', '2027-01-01T24:00:00Z', '2027-01-01T10:60:00Z', '2027-01-01T10:00:60Z', '2027-01-01T10:00:00+24:00', '2027-00-10']) {
      expect(() => checkExpiration(bad, now)).toThrow(`Invalid expiration_date '${bad}'`);
    }
    for (const late of ['9999-12-31T23:59:59-14:00', '9999-12-31T12:00:00-12:00']) expect(() => checkExpiration(late, now)).toThrow(/up to year 9999/);
    expect(checkExpiration('2028-02-29', now)).toEqual(new Date('2028-02-29T00:00:00.000Z'));
    expect(checkExpiration('2400-02-29T00:00:00Z', now)).toEqual(new Date('2400-02-29T00:00:00.000Z'));
    expect(() => checkExpiration('2100-02-29', now)).toThrow(/Invalid expiration_date/);
    expect(checkExpiration('9999-12-31T23:59:59Z', now)).toEqual(new Date('9999-12-31T23:59:59.000Z'));
    expect(checkExpiration('9999-12-31T23:59:59+14:00', now)).toEqual(new Date('9999-12-31T09:59:59.000Z'));
    expect(checkExpiration('2027-01-01T01:30:00.250+01:30', now)).toEqual(new Date('2027-01-01T00:00:00.250Z'));
    expect(checkExpiration('2027-01-01T05:00', now)).toEqual(new Date('2027-01-01T05:00:00.000Z'));
  });

  it('is live until its expiry, forever without one', () => {
    expect(isAccessRuleLive({ expiration_date: null }, now)).toBe(true);
    expect(isAccessRuleLive({ expiration_date: new Date(now.getTime() + 1) }, now)).toBe(true);
    expect(isAccessRuleLive({ expiration_date: now }, now)).toBe(false);
  });

  it('checks every field of a new rule, and lowers the principal', () => {
    const rule = { principal_type: 'identity', principal: 'ABCDEF', path: '/data', permissions: 'rw' };
    expect(newAccessRule(rule, ctx)).toEqual({
      id: 'r1', endpoint_id: 'e1', principal_type: 'identity', principal: 'abcdef', path: '/data/', permissions: 'rw',
      notify_email: null, notify_message: null, create_time: now, expiration_date: null,
    });
    expect(newAccessRule({ ...rule, principal_type: 'all_authenticated_users', principal: '' }, ctx).principal).toBe('');
    expect(() => newAccessRule({ ...rule, principal_type: 'all_authenticated_users' }, ctx)).toThrow(/must be "" for all_authenticated_users/);
    expect(() => newAccessRule({ ...rule, principal_type: 'anonymous' }, ctx)).toThrow(/must be "" for anonymous/);
    expect(() => newAccessRule({ ...rule, principal_type: 'user' }, ctx)).toThrow("Invalid principal_type 'user': must be one of identity, group, all_authenticated_users, anonymous");
    expect(newAccessRule({ ...rule, notify_message: 'é'.repeat(2048) }, ctx).notify_message).toHaveLength(2048);
    expect(() => newAccessRule({ ...rule, notify_message: 'a'.repeat(2049) }, ctx)).toThrow('Invalid notify_message: must be at most 2048 characters');
    expect(() => newAccessRule({ ...rule, permissions: 'w' }, ctx)).toThrow(/must be r or rw/);
    expect(() => newAccessRule({ ...rule, permissions: 'R' }, ctx)).toThrow(BadRequestError);
    expect(() => newAccessRule({ ...rule, notify_email: 'not an email' }, ctx)).toThrow(/notify_email/);
    expect(newAccessRule({ ...rule, notify_email: 'bob@example.org', notify_message: 'hi', expiration_date: '2027-01-01' }, ctx)).toMatchObject({
      notify_email: 'bob@example.org', notify_message: 'hi', expiration_date: new Date('2027-01-01T00:00:00.000Z'),
    });
  });
});

describe('AccessRuleService', () => {
  let world: TestWorld;
  let alice: Principal;
  let bob: Principal;
  let share: string;
  let host: string;
  const rules = () => world.services.accessRules;
  const forBob = () => ({ principal_type: 'identity', principal: bob.primary.id, path: '/bob/', permissions: 'r' });

  beforeEach(async () => {
    world = new TestWorld();
    [alice, bob] = await world.principals('alice', 'bob');
    await world.subscriptionFor('alice', 'sub-alice');
    host = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Host', subscription_id: 'DEFAULT', servers: [{ hostname: 'h.example.org' }] })).id;
    share = (await world.services.endpoints.createSharedEndpoint(alice, { display_name: 'Share', host_endpoint_id: host, host_path: '/shared/' })).id;
  });

  it('lists the owner rule first, then rules from administrator and access_manager roles, then the explicit rules', async () => {
    await world.services.admin.identities.addGroup('stewards');
    await world.services.admin.endpoints.grantRole(share, 'access_manager', 'stewards');
    await world.services.admin.endpoints.grantRole(share, 'activity_monitor', 'bob');
    await world.principals('carol');
    await world.services.admin.endpoints.grantRole(share, 'administrator', 'carol');
    const added = await rules().add(alice, share, forBob());
    const { endpointId, rules: listed } = await rules().list(alice, share);
    expect(endpointId).toBe(share);
    expect(listed.map((r) => [r.id, r.principal_type, r.role_type, r.path, r.permissions])).toEqual([
      [null, 'identity', null, '/', 'rw'],
      [null, 'group', 'access_manager', '/', 'rw'],
      [null, 'identity', 'administrator', '/', 'rw'],
      [added.id, 'identity', null, '/bob/', 'r'],
    ]);
    expect(listed[0].principal).toBe(alice.primary.id);
  });

  it('lets administrators and access managers of the share manage its rules, nobody else', async () => {
    await expect(rules().list(bob, share)).rejects.toThrow(
      `You need the 'administrator' or 'access_manager' role on endpoint '${share}' to manage its access rules`,
    );
    await expect(rules().add(bob, share, forBob())).rejects.toThrow(PermissionDeniedError);
    const grant = await world.services.admin.endpoints.grantRole(share, 'activity_monitor', 'bob');
    await expect(rules().list(bob, share)).rejects.toThrow(PermissionDeniedError);
    await world.services.admin.endpoints.revokeRole(grant);
    await world.services.admin.endpoints.grantRole(share, 'access_manager', 'bob');
    const rule = await rules().add(bob, share, forBob());
    await rules().update(bob, share, rule.id, { permissions: 'rw' });
    expect((await rules().get(bob, share, rule.id)).permissions).toBe('rw');
    await rules().delete(bob, share, rule.id);
    await expect(rules().get(alice, share, rule.id)).rejects.toThrow(AccessRuleNotFoundError);
  });

  it('locks the share on writes, and never on reads', async () => {
    const lockedBy = (call: () => Promise<unknown>) => world.endpointLocks(call);
    const rule = await rules().add(alice, share, forBob());
    expect(await lockedBy(() => rules().list(alice, share))).toEqual([{ forUpdate: false }]);
    expect(await lockedBy(() => rules().get(alice, share, rule.id))).toEqual([{ forUpdate: false }]);
    expect(await lockedBy(() => rules().add(alice, share, { ...forBob(), path: '/two/' }))).toEqual([{ forUpdate: true }]);
    expect(await lockedBy(() => rules().update(alice, share, rule.id, { permissions: 'rw' }))).toEqual([{ forUpdate: true }]);
    expect(await lockedBy(() => rules().delete(alice, share, rule.id))).toEqual([{ forUpdate: true }]);
  });

  it('names a share by its id only, not by its canonical name', async () => {
    const name = (await world.services.endpoints.getEndpoint(alice, share)).endpoint.canonicalName;
    await expect(rules().list(alice, name)).rejects.toThrow(EndpointNotFoundError);
  });

  it('gives everyone access without naming a principal, and tells apart rules of different principals on one path', async () => {
    const [carol] = await world.principals('carol');
    await rules().add(alice, share, { principal_type: 'all_authenticated_users', principal: '', path: '/all/', permissions: 'r' });
    await rules().add(alice, share, { principal_type: 'anonymous', principal: '', path: '/all/', permissions: 'r' });
    await rules().add(alice, share, { ...forBob(), path: '/all/' });
    await rules().add(alice, share, { ...forBob(), principal: carol.primary.id, path: '/all/' });
    expect((await rules().list(alice, share)).rules.filter((r) => r.path === '/all/').map((r) => r.principal_type)).toEqual([
      'all_authenticated_users',
      'anonymous',
      'identity',
      'identity',
    ]);
    await expect(rules().add(alice, share, { principal_type: 'anonymous', principal: '', path: '/all', permissions: 'r' })).rejects.toThrow(
      "An access rule for this principal and path '/all/' exists already",
    );
  });

  it('has rules on shares only, which only those who may see an endpoint learn', async () => {
    const { id } = await world.services.endpoints.createEndpoint(alice, { display_name: 'Plain' });
    await expect(rules().list(alice, id)).rejects.toThrow(new BadRequestError(`Endpoint '${id}' is not a shared endpoint: only shares have access rules`));
    await expect(rules().list(bob, id)).rejects.toThrow(new PermissionDeniedError(`You may not see endpoint '${id}'`));
    await expect(rules().list(bob, id, 'monitor')).rejects.toThrow(new PermissionDeniedError(`You may not see endpoint '${id}'`));
    await world.services.endpoints.updateEndpoint(alice, id, { public: true });
    await expect(rules().list(bob, id)).rejects.toThrow(/only shares have access rules/);
  });

  it("lets the host's administrators read a share's rules, never change them", async () => {
    const [carol] = await world.principals('carol');
    await world.services.admin.endpoints.grantRole(host, 'administrator', 'carol');
    const rule = await rules().add(alice, share, forBob());
    expect((await rules().list(carol, share)).rules.map((r) => r.id)).toEqual([null, rule.id]);
    expect((await rules().get(carol, share, rule.id)).path).toBe('/bob/');
    const refusal = new PermissionDeniedError(`You need the 'administrator' or 'access_manager' role on endpoint '${share}' to manage its access rules`);
    await expect(rules().add(carol, share, { ...forBob(), path: '/other/' })).rejects.toThrow(refusal);
    await expect(rules().update(carol, share, rule.id, { permissions: 'rw' })).rejects.toThrow(refusal);
    await expect(rules().delete(carol, share, rule.id)).rejects.toThrow(refusal);
    // a monitor of the host does not oversee its shares' rules as a manager would
    await world.services.admin.endpoints.grantRole(host, 'activity_monitor', 'bob');
    await expect(rules().list(bob, share)).rejects.toThrow(refusal);
  });

  it("shows the endpoint manager's view of a share's rules to monitors of the share or of its host, by id only", async () => {
    const [carol, dave] = await world.principals('carol', 'dave');
    const rule = await rules().add(alice, share, forBob());
    await world.services.admin.endpoints.grantRole(share, 'activity_monitor', 'bob');
    await world.services.admin.endpoints.grantRole(host, 'activity_manager', 'carol');
    for (const monitor of [bob, carol, alice]) expect((await rules().list(monitor, share, 'monitor')).rules.map((r) => r.id)).toEqual([null, rule.id]);
    await expect(rules().list(dave, share, 'monitor')).rejects.toThrow(new PermissionDeniedError(`You need the 'administrator', 'activity_manager' or 'activity_monitor' role on endpoint '${share}' or its host`));
    const name = (await world.services.endpoints.getEndpoint(alice, share)).endpoint.canonicalName;
    await expect(rules().list(bob, name, 'monitor')).rejects.toThrow(EndpointNotFoundError);
    const plain = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Plain' })).id;
    await expect(rules().list(alice, plain, 'monitor')).rejects.toThrow(/only shares have access rules/);
  });

  it('refuses an unknown principal, the same principal and path twice, and a rule over the limit', async () => {
    await expect(rules().add(alice, share, { ...forBob(), principal: '99999999-9999-4999-8999-999999999999' })).rejects.toThrow(/No identity/);
    await expect(rules().add(alice, share, { ...forBob(), principal_type: 'group', principal: bob.primary.id })).rejects.toThrow(/No group/);
    await rules().add(alice, share, forBob());
    await expect(rules().add(alice, share, { ...forBob(), path: '/bob' })).rejects.toThrow(ExistsError);
    await rules().add(alice, share, { ...forBob(), path: '/bob/more/' });
    // the rest straight into the store: the limit is what is tested, not 998 more requests
    for (let i = 2; i < MAX_ACCESS_RULES; i++) {
      await world.uow.repositories.accessRules.add(newAccessRule({ ...forBob(), path: `/p${i}/` }, { id: `rule-${i}`, endpointId: share, now: world.clock.now() }));
    }
    await expect(rules().add(alice, share, { ...forBob(), path: '/one-more/' })).rejects.toThrow(LimitExceededError);
    await expect(rules().add(alice, share, { ...forBob(), path: '/one-more/' })).rejects.toThrow('A shared endpoint has at most 1000 access rules');
  });

  it('finds a rule of this share only, by a well-formed id', async () => {
    const rule = await rules().add(alice, share, forBob());
    const host2 = await world.services.endpoints.createEndpoint(alice, { display_name: 'Host 2', subscription_id: 'DEFAULT', servers: [{ hostname: 'h2.example.org' }] });
    const other = (await world.services.endpoints.createSharedEndpoint(alice, { display_name: 'Other', host_endpoint_id: host2.id, host_path: '/o/' })).id;
    await expect(rules().get(alice, other, rule.id)).rejects.toThrow(AccessRuleNotFoundError);
    await expect(rules().get(alice, share, 'not-an-id')).rejects.toThrow(AccessRuleNotFoundError);
    expect((await rules().get(alice, share, rule.id.toUpperCase())).id).toBe(rule.id);
  });

  it('changes permissions and expiry, and clears the expiry with null', async () => {
    const rule = await rules().add(alice, share, forBob());
    world.clock.advance(10);
    await rules().update(alice, share, rule.id, { expiration_date: '2099-01-01' });
    expect((await rules().get(alice, share, rule.id)).expiration_date).toEqual(new Date('2099-01-01T00:00:00.000Z'));
    await expect(rules().update(alice, share, rule.id, { expiration_date: '2000-01-01' })).rejects.toThrow(/in the future/);
    await expect(rules().update(alice, share, rule.id, { permissions: 'x' })).rejects.toThrow(/r or rw/);
    await rules().update(alice, share, rule.id, { expiration_date: null });
    expect(await rules().get(alice, share, rule.id)).toMatchObject({ expiration_date: null, permissions: 'r' });
  });
});
