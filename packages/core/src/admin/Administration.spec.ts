import { BadRequestError, ConflictError } from '../shared/errors';
import { hashToken } from '../auth/AccessToken';
import { CONSOLE_CLIENT } from '../auth/StandardCatalogue';
import { TestWorld } from '../testing/TestWorld';

describe('Administration: identity sets and consents, as stored', () => {
  let world: TestWorld;
  const admin = () => world.services.admin;
  const setOf = async (username: string) => {
    const identity = (await world.uow.repositories.identities.findByUsername(username))!;
    return (await world.uow.repositories.identities.listSet(identity.set_id)).map((i) => i.username);
  };

  beforeEach(async () => {
    world = new TestWorld();
    for (const username of ['alice', 'alice-work', 'alice-lab', 'bob']) await admin().identities.addIdentity({ username });
  });

  it('links whole sets and unlinks one identity, as every member then reads it', async () => {
    await admin().identities.linkIdentities('alice-work', 'alice-lab');
    await admin().identities.linkIdentities('alice', 'alice-work');
    expect(await setOf('alice-lab')).toEqual(['alice', 'alice-work', 'alice-lab']);
    await expect(admin().identities.linkIdentities('alice-lab', 'alice')).rejects.toThrow(ConflictError);
    await admin().identities.unlinkIdentity('alice');
    expect(await setOf('alice')).toEqual(['alice']);
    expect(await setOf('alice-lab')).toEqual(['alice-work', 'alice-lab']);
    expect(await setOf('bob')).toEqual(['bob']);
  });

  it('refuses a dependent consent under another identity\'s or another client\'s consent', async () => {
    await admin().clients.addScope('urn:xfer:scope:a', 'A');
    await admin().clients.addScope('urn:xfer:scope:b', 'B');
    const portal = (await admin().clients.addClient({ display_name: 'Portal' })).client;
    const other = (await admin().clients.addClient({ display_name: 'Other' })).client;
    const bobs = await admin().tokens.grantConsent('bob', portal.id, 'urn:xfer:scope:a');
    await expect(admin().tokens.grantConsent('alice', portal.id, 'urn:xfer:scope:b', bobs)).rejects.toThrow(ConflictError);
    await expect(admin().tokens.grantConsent('bob', other.id, 'urn:xfer:scope:b', bobs)).rejects.toThrow(ConflictError);
    await expect(admin().tokens.grantConsent('bob', portal.id, 'urn:xfer:scope:b', 9999)).rejects.toThrow(ConflictError);
    const child = await admin().tokens.grantConsent('bob', portal.id, 'urn:xfer:scope:b', bobs);
    expect((await admin().tokens.listConsents('bob')).map((c) => c.dependency_path)).toEqual([[bobs], [bobs, child]]);
  });

  it('revoking a consent by id revokes its dependents and leaves the identity\'s other consents', async () => {
    await admin().clients.addScope('urn:xfer:scope:a', 'A');
    await admin().clients.addScope('urn:xfer:scope:b', 'B');
    const portal = (await admin().clients.addClient({ display_name: 'Portal' })).client;
    const root = await admin().tokens.grantConsent('bob', portal.id, 'urn:xfer:scope:a');
    await admin().tokens.grantConsent('bob', portal.id, 'urn:xfer:scope:b', root);
    await admin().tokens.grantConsent('bob', portal.id, 'urn:xfer:scope:b');
    await admin().tokens.revokeConsent(root);
    expect((await admin().tokens.listConsents('bob')).map((c) => c.status)).toEqual(['revoked', 'revoked', 'approved']);
  });
});

describe('Administration: the first-party console client', () => {
  it('registers it once and follows its address and secret on later starts, keeping its consents', async () => {
    const world = new TestWorld();
    const admin = world.services.admin;
    await admin.identities.addIdentity({ username: 'alice' });
    await admin.clients.addScope('urn:xfer:scope:a', 'A');
    const first = await admin.clients.registerFirstPartyClient(CONSOLE_CLIENT, { redirect_uris: ['http://127.0.0.1:8082/console/callback'], secret: 'a'.repeat(32) });
    expect(first).toMatchObject({ id: CONSOLE_CLIENT.id, public_client: false, secret_hash: hashToken('a'.repeat(32)) });
    await admin.tokens.grantConsent('alice', CONSOLE_CLIENT.id, 'urn:xfer:scope:a');
    await admin.clients.registerFirstPartyClient(CONSOLE_CLIENT, { redirect_uris: ['https://console.example.org/console/callback'], secret: 'b'.repeat(32) });
    const stored = await world.uow.repositories.clients.findById(CONSOLE_CLIENT.id);
    expect(stored).toMatchObject({ redirect_uris: ['https://console.example.org/console/callback'], secret_hash: hashToken('b'.repeat(32)), created_at: first.created_at });
    expect((await admin.tokens.listConsents('alice')).map((c) => c.client_name)).toEqual(['xfer console']);
    await expect(admin.clients.registerFirstPartyClient(CONSOLE_CLIENT, { redirect_uris: [], secret: 'short' })).rejects.toThrow(BadRequestError);
  });
});
