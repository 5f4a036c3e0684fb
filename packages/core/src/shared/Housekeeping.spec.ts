import { TestWorld } from '../testing/TestWorld';

describe('Housekeeping', () => {
  it('deletes expired sessions, codes and access tokens, and failed sign-ins older than the window, a batch at a time', async () => {
    const world = new TestWorld();
    const { admin, helperPages, housekeeping } = world.services;
    await world.user('alice');
    await admin.identities.setPassword('alice', 'correct horse battery');
    const live = await admin.tokens.issueToken('alice');
    const forever = await admin.tokens.issueToken('alice');
    await admin.tokens.issueToken('alice', 60);
    await admin.tokens.issueToken('alice', 60);
    await admin.tokens.issueToken('alice', 60);
    await helperPages.signIn('alice', 'wrong', { address: '192.0.2.1' }).catch(() => undefined);
    await helperPages.signIn('alice', 'wrong', { address: '192.0.2.1' }).catch(() => undefined);
    await helperPages.signIn('alice', 'correct horse battery');

    expect(await housekeeping.purgeExpired()).toEqual({ sessions: 0, authorizationCodes: 0, accessTokens: 0, signInFailures: 0 });
    world.clock.advance(61);
    expect(await housekeeping.purgeExpired(2)).toEqual({ sessions: 0, authorizationCodes: 0, accessTokens: 2, signInFailures: 0 });
    expect(await housekeeping.purgeExpired()).toEqual({ sessions: 0, authorizationCodes: 0, accessTokens: 1, signInFailures: 0 });
    // the throttle's window (15 minutes) and a session's life pass
    world.clock.advance(15 * 60);
    expect((await housekeeping.purgeExpired()).signInFailures).toBe(2);
    world.clock.advance(30 * 24 * 60 * 60);
    expect((await housekeeping.purgeExpired()).sessions).toBe(1);
    // the tokens that never expire still sign alice in
    expect((await world.services.authentication.authenticate(live.token)).primary.username).toBe('alice');
    expect((await world.services.authentication.authenticate(forever.token)).primary.username).toBe('alice');
  });
});
