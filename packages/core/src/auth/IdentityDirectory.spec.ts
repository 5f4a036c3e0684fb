import { AuthenticationFailedError, BadRequestError, ResourceNotFoundError } from '../shared/errors';
import { TestWorld } from '../testing/TestWorld';
import { MAX_IDENTITY_LOOKUP, type DirectoryCaller } from './IdentityDirectory';

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
});
