import { AuthenticationFailedError, TooManySignInAttemptsError } from '../shared/errors';
import { TestWorld } from '../testing/TestWorld';
import { DEFAULT_HELPER_PAGES_OPTIONS, HelperPagesService } from './HelperPagesService';
import { hashSessionSecret } from './Session';
import { DEFAULT_SIGN_IN_THROTTLE, signInKeys } from './SignInThrottle';

describe('signing in to the helper pages', () => {
  let world: TestWorld;
  const pages = () => world.services.helperPages;
  const PASSWORD = 'correct horse battery';
  const wrong = (username = 'alice', address = '192.0.2.1') => pages().signIn(username, 'wrong', { address }).catch((e: unknown) => e);

  beforeEach(async () => {
    world = new TestWorld();
    await world.user('alice');
    await world.services.admin.identities.setPassword('alice', PASSWORD);
  });

  it('opens a session for the right password only', async () => {
    const { secret, expiresAt } = await pages().signIn('alice', PASSWORD);
    expect((await pages().signedIn(secret))?.identity.username).toBe('alice');
    expect(expiresAt.getTime()).toBeGreaterThan(world.clock.now().getTime());
    expect(await wrong()).toBeInstanceOf(AuthenticationFailedError);
    expect(await pages().signIn('nobody', PASSWORD).catch((e: unknown) => e)).toBeInstanceOf(AuthenticationFailedError);
    expect(await pages().signIn('not a username!', PASSWORD).catch((e: unknown) => e)).toBeInstanceOf(AuthenticationFailedError);
  });

  it('refuses an address after 10 failures in the window, other addresses still get in, and the window passes', async () => {
    for (let i = 0; i < DEFAULT_SIGN_IN_THROTTLE.attemptsPerAddress; i++) expect(await wrong('alice', '192.0.2.1')).toBeInstanceOf(AuthenticationFailedError);
    const refused = await pages().signIn('alice', PASSWORD, { address: '192.0.2.1' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TooManySignInAttemptsError);
    expect((refused as Error).message).toContain('15 minutes');
    await expect(pages().signIn('alice', PASSWORD, { address: '192.0.2.2' })).resolves.toMatchObject({ secret: expect.any(String), expiresAt: expect.any(Date) });
    world.clock.advance(DEFAULT_SIGN_IN_THROTTLE.windowSeconds - 1);
    await expect(pages().signIn('alice', PASSWORD, { address: '192.0.2.1' })).rejects.toThrow(TooManySignInAttemptsError);
    world.clock.advance(2);
    await expect(pages().signIn('alice', PASSWORD, { address: '192.0.2.1' })).resolves.toMatchObject({ secret: expect.any(String), expiresAt: expect.any(Date) });
  });

  it('lets 9 failures from an address pass, and counts nothing without an address but the account', async () => {
    for (let i = 0; i < DEFAULT_SIGN_IN_THROTTLE.attemptsPerAddress - 1; i++) await wrong('alice', '192.0.2.9');
    await expect(pages().signIn('alice', PASSWORD, { address: '192.0.2.9' })).resolves.toMatchObject({ secret: expect.any(String), expiresAt: expect.any(Date) });
    for (let i = 0; i < 20; i++) await pages().signIn('alice', 'wrong').catch(() => undefined);
    await expect(pages().signIn('alice', PASSWORD)).resolves.toMatchObject({ secret: expect.any(String), expiresAt: expect.any(Date) });
  });

  it('refuses an account after 50 failures from anywhere, until the window passes; a success clears its count', async () => {
    const limit = DEFAULT_SIGN_IN_THROTTLE.attemptsPerAccount;
    // all but the last failures straight into the store (each real attempt hashes a password)
    const account = signInKeys('alice', undefined).account;
    const fail = async (n: number) => {
      for (let i = 0; i < n; i++) await world.uow.repositories.signInFailures.add([account], world.clock.now());
    };
    await fail(limit - 2);
    await wrong('alice', '198.51.100.1');
    await expect(pages().signIn('alice', PASSWORD, { address: '203.0.113.1' })).resolves.toMatchObject({ secret: expect.any(String), expiresAt: expect.any(Date) });
    await fail(limit - 1);
    await wrong('ALICE', '198.51.100.2');
    expect(await pages().signIn('alice', PASSWORD, { address: '203.0.113.2' }).catch((e: unknown) => e)).toBeInstanceOf(TooManySignInAttemptsError);
    world.clock.advance(DEFAULT_SIGN_IN_THROTTLE.windowSeconds + 1);
    await expect(pages().signIn('alice', PASSWORD, { address: '203.0.113.2' })).resolves.toMatchObject({ secret: expect.any(String), expiresAt: expect.any(Date) });
  });

  it('records a failure without an address under the account alone', async () => {
    const add = jest.spyOn(world.uow.repositories.signInFailures, 'add');
    await pages().signIn('alice', 'wrong').catch(() => undefined);
    expect(add.mock.calls).toEqual([[[signInKeys('alice', undefined).account], world.clock.now()]]);
  });

  it('has no signed-in user for a session whose identity is gone', async () => {
    await world.uow.repositories.sessions.add({ id_hash: hashSessionSecret('orphan'), identity_id: 'gone', created_at: world.clock.now(), expires_at: new Date(world.clock.now().getTime() + 60_000) });
    expect(await pages().signedIn('orphan')).toBeNull();
  });

  it('ends the browser\'s previous session on sign-in', async () => {
    const first = await pages().signIn('alice', PASSWORD);
    const second = await pages().signIn('alice', PASSWORD, { previousSecret: first.secret });
    expect(await pages().signedIn(first.secret)).toBeNull();
    expect(await pages().signedIn(second.secret)).not.toBeNull();
  });

  it('keeps a session until it expires, and ends it on logout', async () => {
    const short = new HelperPagesService(world.uow, world.clock, { ...DEFAULT_HELPER_PAGES_OPTIONS, sessionLifetimeSeconds: 60 });
    const { secret } = await short.signIn('alice', PASSWORD);
    world.clock.advance(59);
    expect(await short.signedIn(secret)).not.toBeNull();
    world.clock.advance(1);
    expect(await short.signedIn(secret)).toBeNull();
    const again = await short.signIn('alice', PASSWORD);
    expect(await short.logout(again.secret)).toBe(true);
    expect(await short.logout(again.secret)).toBe(false);
    expect(await short.logout(undefined)).toBe(false);
    expect(await short.signedIn(again.secret)).toBeNull();
    expect(await short.signedIn(undefined)).toBeNull();
  });

  it('lasts eight hours by default, from the sign-in', async () => {
    const { expiresAt, secret } = await pages().signIn('alice', PASSWORD);
    expect(expiresAt.getTime() - world.clock.now().getTime()).toBe(8 * 60 * 60 * 1000);
    expect((await pages().signedIn(secret))?.authenticatedAt).toEqual(world.clock.now());
  });

  it('refuses a closed identity as a wrong password, and counts it', async () => {
    const alice = (await world.uow.repositories.identities.findByUsername('alice'))!;
    await world.uow.repositories.identities.update([{ ...alice, status: 'closed' }]);
    await expect(pages().signIn('alice', PASSWORD, { address: '192.0.2.7' })).rejects.toThrow('Wrong username or password.');
    expect(await world.uow.repositories.signInFailures.countSince(signInKeys('alice', '192.0.2.7').address!, new Date(0))).toBe(1);
    expect(await world.uow.repositories.signInFailures.countSince(signInKeys('ALICE ', undefined).account, new Date(0))).toBe(1);
  });

  it('shows the identity set: which is primary, which signed in, each with its provider', async () => {
    await world.services.admin.identities.addIdentity({ username: 'alice@work.example.org' });
    await world.services.admin.identities.linkIdentities('alice', 'alice@work.example.org');
    await world.services.admin.identities.setPassword('alice@work.example.org', PASSWORD);
    const { secret } = await pages().signIn('alice@work.example.org', PASSWORD);
    const user = (await pages().signedIn(secret))!;
    expect(pages().identities(user).map((i) => [i.username, i.primary, i.signed_in, i.identity_provider_display_name, i.linked_at === null])).toEqual([
      ['alice', true, false, 'xfer local accounts', true],
      ['alice@work.example.org', false, true, 'xfer local accounts', false],
    ]);
  });

  it("finds the client a page is for by a well-formed id only", async () => {
    const { client } = await world.services.admin.clients.addClient({ display_name: 'Portal' });
    expect((await pages().client(client.id.toUpperCase()))?.display_name).toBe('Portal');
    expect(await pages().client(undefined)).toBeNull();
    expect(await pages().client('portal')).toBeNull();
    expect(await pages().client('00000000-0000-4000-8000-0000000000ff')).toBeNull();
  });

  it('lists the approved consents per client (by name), as trees, naming what is no longer described', async () => {
    const { admin } = world.services;
    const zeta = (await admin.clients.addClient({ display_name: 'Zeta portal' })).client;
    const alpha = (await admin.clients.addClient({ display_name: 'Alpha app' })).client;
    await admin.clients.addScope('urn:xfer:scope:data.example.org:read', 'Read your files');
    await admin.clients.addScope('urn:xfer:scope:app.example.org:all', 'Use the app');
    const root = await admin.tokens.grantConsent('alice', zeta.id, 'urn:xfer:scope:app.example.org:all');
    await admin.tokens.grantConsent('alice', zeta.id, 'urn:xfer:scope:data.example.org:read', root);
    const revoked = await admin.tokens.grantConsent('alice', alpha.id, 'urn:xfer:scope:data.example.org:read');
    await admin.tokens.grantConsent('alice', alpha.id, 'urn:xfer:scope:app.example.org:all');
    await admin.tokens.revokeConsent(revoked);
    const gone = await world.uow.repositories.consents.add({ client_id: 'gone-client', scope_id: 'gone-scope', identity_id: (await world.uow.repositories.identities.findByUsername('alice'))!.id, parent_path: [], created: world.clock.now(), updated: world.clock.now(), last_used: null, status: 'approved' });
    const user = (await pages().signedIn((await pages().signIn('alice', PASSWORD)).secret))!;
    const listed = await pages().consents(user);
    expect(listed.map((c) => [c.client.display_name, c.consents.map((n) => [n.consent.scope_name, n.children.map((k) => k.consent.scope_description)])])).toEqual([
      ['Alpha app', [['urn:xfer:scope:app.example.org:all', []]]],
      ['Unknown application', [['gone-scope', []]]],
      ['Zeta portal', [['urn:xfer:scope:app.example.org:all', ['Read your files']]]],
    ]);
    expect(listed[1].consents[0].consent).toMatchObject({ id: gone.id, scope_description: 'An activity no longer described by the service', status: 'approved', last_used: null });
    expect(listed[2].client.id).toBe(zeta.id);
  });
});
