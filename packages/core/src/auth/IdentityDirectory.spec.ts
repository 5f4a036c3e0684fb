import { AuthenticationFailedError, BadRequestError, PermissionDeniedError, ResourceNotFoundError, TooManyRequestsError } from '../shared/errors';
import { TestWorld } from '../testing/TestWorld';
import { LOCAL_IDENTITY_PROVIDER, MAX_USERNAME } from './Identity';
import { MAX_IDENTITY_LOOKUP, PROVISION_LIMIT, type DirectoryCaller } from './IdentityDirectory';
import { AUTH_RESOURCE_SERVER } from './Scope';

describe('IdentityDirectory', () => {
  let world: TestWorld;
  let alice: DirectoryCaller;
  const directory = () => world.services.identityDirectory;

  beforeEach(async () => {
    world = new TestWorld();
    const { admin } = world.services;
    await admin.identities.addIdentity({ username: 'alice', name: 'Alice', email: 'alice@example.org' });
    await admin.identities.addIdentity({ username: 'alice@work.example.org', name: 'Alice at work', email: 'alice@work.example.org' });
    await admin.identities.linkIdentities('alice', 'alice@work.example.org');
    await admin.identities.addIdentity({ username: 'bob', name: 'Bob', email: 'bob@example.org' });
    alice = await directory().caller((await admin.tokens.issueToken('alice', null, 'openid email')).token);
  });

  it('knows the caller by a live token, with the identities of its set', async () => {
    expect(alice.identity.username).toBe('alice');
    expect(alice.setIds.size).toBe(2);
    await expect(directory().caller(undefined)).rejects.toThrow(AuthenticationFailedError);
    await expect(directory().caller('not-a-token')).rejects.toThrow(new AuthenticationFailedError('Token is not valid, expired or revoked.'));
    const { token } = await world.services.admin.tokens.issueToken('bob', 60);
    await expect(directory().caller(token)).resolves.toMatchObject({ identity: { username: 'bob' } });
    world.clock.advance(61);
    await expect(directory().caller(token)).rejects.toThrow(AuthenticationFailedError);
  });

  it("finds identities by username or by id, leaves unknown ones out, and shows e-mail addresses of the caller's own set only", async () => {
    const found = await directory().lookup(alice, { usernames: ['bob', 'alice@work.example.org', 'nobody', 'bob'] });
    expect(found.map((i) => [i.username, i.email])).toEqual([
      ['bob', null],
      ['alice@work.example.org', 'alice@work.example.org'],
    ]);
    const byId = await directory().lookup(alice, { ids: [found[0].id.toUpperCase(), alice.identity.id, 'not-an-id'] });
    expect(byId.map((i) => [i.username, i.email])).toEqual([
      ['bob', null],
      ['alice', 'alice@example.org'],
    ]);
    expect(await directory().lookup(alice, { usernames: [] })).toEqual([]);
  });

  it('shows no e-mail address to a token without the email scope, not even its own', async () => {
    const transferOnly = await directory().caller((await world.services.admin.tokens.issueToken('alice')).token);
    expect(transferOnly.mayReadEmail).toBe(false);
    const found = await directory().lookup(transferOnly, { usernames: ['alice', 'alice@work.example.org', 'bob'] });
    expect(found.map((i) => i.email)).toEqual([null, null, null]);
    expect((await directory().get(transferOnly, transferOnly.identity.id)).email).toBeNull();
  });

  it('takes usernames or ids, not both and not neither, at most 100 distinct', async () => {
    await expect(directory().lookup(alice, {})).rejects.toThrow('Give either usernames or ids, not both and not neither');
    await expect(directory().lookup(alice, { usernames: ['bob'], ids: [] })).rejects.toThrow(BadRequestError);
    const many = Array.from({ length: MAX_IDENTITY_LOOKUP }, (_, i) => `user${i}`);
    await expect(directory().lookup(alice, { usernames: [...many, 'user0'] })).resolves.toEqual([]);
    await expect(directory().lookup(alice, { usernames: [...many, 'one-more'] })).rejects.toThrow(`At most ${MAX_IDENTITY_LOOKUP}`);
  });

  it('provisions unknown usernames as unused identities, once, and only by username', async () => {
    const [made] = await directory().lookup(alice, { usernames: ['carol@example.org'], provision: true });
    expect(made).toMatchObject({ username: 'carol@example.org', status: 'unused', email: null });
    const [again] = await directory().lookup(alice, { usernames: ['carol@example.org'], provision: true });
    expect(again.id).toBe(made.id);
    expect(await world.uow.repositories.identities.findByUsername('carol@example.org')).toMatchObject({ id: made.id });
    expect(await directory().lookup(alice, { usernames: ['dave@example.org'] })).toEqual([]);
    expect(await world.uow.repositories.identities.findByUsername('dave@example.org')).toBeNull();
    await expect(directory().lookup(alice, { ids: [made.id], provision: true })).rejects.toThrow(/provision goes with usernames/);
  });

  it('gets one identity by id, in any case, or says there is none', async () => {
    const [bob] = await directory().lookup(alice, { usernames: ['bob'] });
    expect(await directory().get(alice, bob.id.toUpperCase())).toEqual(bob);
    expect((await directory().get(alice, alice.identity.id)).email).toBe('alice@example.org');
    await expect(directory().get(alice, '00000000-0000-4000-8000-00000000ffff')).rejects.toThrow(new ResourceNotFoundError("No such identity '00000000-0000-4000-8000-00000000ffff'"));
  });

  it('refuses a username longer than any stored, naming its start', async () => {
    const long = 'a'.repeat(MAX_USERNAME + 1);
    await expect(directory().lookup(alice, { usernames: ['bob', long] })).rejects.toThrow(new BadRequestError(`Invalid usernames: '${'a'.repeat(40)}...' is longer than ${MAX_USERNAME} characters`));
    await expect(directory().lookup(alice, { usernames: ['a'.repeat(MAX_USERNAME)] })).resolves.toEqual([]);
    await expect(directory().lookup(alice, { ids: [long] })).resolves.toEqual([]);
  });

  it("provisions at most PROVISION_LIMIT identities per caller's set in a window, never one in the clients' domain", async () => {
    expect(await directory().lookup(alice, { usernames: ['someone@clients.auth.globus.org'], provision: true })).toEqual([]);
    expect(await world.uow.repositories.identities.findByUsername('someone@clients.auth.globus.org')).toBeNull();
    const names = (from: number, count: number) => Array.from({ length: count }, (_, i) => `new${from + i}@example.org`);
    expect(await directory().lookup(alice, { usernames: names(0, PROVISION_LIMIT.identities), provision: true })).toHaveLength(PROVISION_LIMIT.identities);
    world.clock.advance(60);
    const refused = await directory().lookup(alice, { usernames: names(1000, 1), provision: true }).catch((error: TooManyRequestsError) => error);
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect(refused).toMatchObject({ message: `You may provision at most ${PROVISION_LIMIT.identities} identities in ${PROVISION_LIMIT.windowSeconds / 60} minutes`, retryAfterSeconds: PROVISION_LIMIT.windowSeconds });
    // nothing of the refused request is kept; what exists is still found
    expect(await world.uow.repositories.identities.findByUsername('new1000@example.org')).toBeNull();
    expect(await directory().lookup(alice, { usernames: names(0, 2), provision: true })).toHaveLength(2);
    // another person counts apart; the window passes
    const bob = await directory().caller((await world.services.admin.tokens.issueToken('bob', null, 'openid')).token);
    expect(await directory().lookup(bob, { usernames: names(2000, 1), provision: true })).toHaveLength(1);
    world.clock.advance(PROVISION_LIMIT.windowSeconds);
    expect(await directory().lookup(alice, { usernames: names(3000, 2), provision: true })).toHaveLength(2);
  });

  it('refuses the limit partway: a request that would pass it makes none beyond it', async () => {
    await directory().lookup(alice, { usernames: Array.from({ length: PROVISION_LIMIT.identities - 1 }, (_, i) => `p${i}@example.org`), provision: true });
    await expect(directory().lookup(alice, { usernames: ['last@example.org', 'beyond@example.org'], provision: true })).rejects.toThrow(TooManyRequestsError);
  });

  it("lists the consents of the caller's own identities with their scopes' names, only with a token for the authorization service", async () => {
    const { admin } = world.services;
    await admin.clients.addScope('openid', 'Who you are');
    const { client } = await admin.clients.addClient({ display_name: 'Portal', public_client: false });
    await admin.tokens.grantConsent('alice', client.id, 'openid');
    const authCaller = { ...alice, resourceServer: AUTH_RESOURCE_SERVER };
    const consents = await directory().consentsOf(authCaller, alice.identity.id.toUpperCase());
    expect(consents).toEqual([expect.objectContaining({ identity_id: alice.identity.id, client_id: client.id, scope_name: 'openid' })]);
    await expect(directory().consentsOf({ ...alice, resourceServer: 'transfer.api.globus.org' }, alice.identity.id)).rejects.toThrow(
      new PermissionDeniedError(`Consents are listed only with a token for the authorization service (${AUTH_RESOURCE_SERVER}), not one for transfer.api.globus.org`),
    );
    const bobId = (await world.uow.repositories.identities.findByUsername('bob'))!.id;
    await expect(directory().consentsOf(authCaller, bobId)).rejects.toThrow(new PermissionDeniedError('Only the consents of your own identities can be listed'));
  });

  it('names its one identity provider, filtered by domains or ids as the hosted API does', () => {
    const [provider] = directory().identityProviders({});
    expect(provider).toEqual({ id: LOCAL_IDENTITY_PROVIDER.id, name: LOCAL_IDENTITY_PROVIDER.displayName, short_name: 'xfer', alternative_names: [], status: 'active', domains: [] });
    expect(directory().identityProviders({ domains: ['example.org'] })[0]!.domains).toEqual(['example.org']);
    expect(directory().identityProviders({ ids: [LOCAL_IDENTITY_PROVIDER.id.toUpperCase()] })).toHaveLength(1);
    expect(directory().identityProviders({ ids: ['00000000-0000-4000-8000-000000000000'] })).toEqual([]);
    expect(() => directory().identityProviders({ domains: [], ids: [] })).toThrow(new BadRequestError('Give either domains or ids, not both'));
  });
});
