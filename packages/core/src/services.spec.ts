import { TRANSFER_SCOPE } from './auth/AuthenticationService';
import type { KeyCrypto } from './auth/SigningKey';
import { createCoreServices } from './services';
import { FixedClock, SequentialIdGenerator } from './testing/fakes';
import { InMemoryUnitOfWork } from './testing/InMemoryUnitOfWork';
import { MemoryStorage } from './testing/MemoryStorage';
import { transferRequest } from './testing/taskRequests';

/** createCoreServices: each service gets the options meant for it, and the defaults otherwise. */
describe('createCoreServices', () => {
  const crypto: KeyCrypto = {
    algorithm: 'RS512',
    generate: async (kid) => ({ publicJwk: { kid }, sealedPrivateKey: 'sealed' }),
    sign: async (claims) => JSON.stringify(claims),
  };

  async function world(options: Parameters<typeof createCoreServices>[3] = {}) {
    const clock = new FixedClock();
    const services = createCoreServices(new InMemoryUnitOfWork(), clock, new SequentialIdGenerator(), { keyCrypto: crypto, ...options });
    await services.admin.identities.addIdentity({ username: 'alice' });
    await services.admin.clients.addScope('openid', 'Who you are');
    const { client } = await services.admin.clients.addClient({ display_name: 'Portal', public_client: false });
    await services.admin.tokens.grantConsent('alice', client.id, 'openid');
    const alice = (await services.authentication.identityByUsername('alice'))!;
    return { services, clock, client, alice };
  }

  it("runs tasks as their owners over the storages given, and tells of each task accepted", async () => {
    const lab = new MemoryStorage({ '/data/a.txt': 'a' });
    const told: string[] = [];
    const { services, alice } = await world({ storages: { storageOf: () => lab }, taskSubmitted: (id) => told.push(id) });
    const owner = await services.authentication.principalOf(alice.id);
    const endpoint = (await services.endpoints.createEndpoint(owner, { display_name: 'Lab', personal: false })).id;
    const { task } = await services.tasks.submit(owner, transferRequest({ submission_id: services.tasks.submissionId(), source_endpoint: endpoint, destination_endpoint: endpoint, items: [{ source_path: '/data/a.txt', destination_path: '/b.txt' }] }));
    expect(told).toEqual([task.id]);
    expect(await services.taskRunner.run(task.id)).toMatchObject({ status: 'SUCCEEDED' });
    expect(lab.text('/b.txt')).toBe('a');
  });

  it('issues and describes tokens with the default issuer and lifetime (48 hours), and requires the transfer scope', async () => {
    const { services, client, alice } = await world();
    const [token] = await services.authorizationServer.tokens.issueTokens({ client, identityId: alice.id, scopeNames: ['openid'], refresh: 'none', requireConsent: true });
    expect(token.expires_in).toBe(48 * 60 * 60);
    expect(await services.authorizationServer.inspection.introspect(client, token.access_token, [])).toMatchObject({ iss: 'http://localhost:8081' });
    const idToken = JSON.parse(await services.idTokens.issue({ clientId: client.id, identityId: alice.id, scopes: ['openid'], accessToken: token.access_token, nonce: null, authTime: null }));
    expect(idToken).toMatchObject({ iss: 'http://localhost:8081' });
    expect(idToken.exp - idToken.iat).toBe(48 * 60 * 60);
    await expect(services.authentication.authenticate(token.access_token)).rejects.toMatchObject({ requiredScopes: [TRANSFER_SCOPE] });
  });

  it('passes the issuer and lifetime to the authorization server and the id_tokens, and the scope rule to authentication', async () => {
    const { services, client, alice } = await world({ authorizationServer: { issuer: 'https://auth.example.org', accessTokenLifetimeSeconds: 600 }, authentication: { requiredScope: null } });
    const [token] = await services.authorizationServer.tokens.issueTokens({ client, identityId: alice.id, scopeNames: ['openid'], refresh: 'none', requireConsent: true });
    expect(token.expires_in).toBe(600);
    expect(await services.authorizationServer.inspection.introspect(client, token.access_token, [])).toMatchObject({ iss: 'https://auth.example.org' });
    const idToken = JSON.parse(await services.idTokens.issue({ clientId: client.id, identityId: alice.id, scopes: ['openid'], accessToken: token.access_token, nonce: null, authTime: null }));
    expect(idToken).toMatchObject({ iss: 'https://auth.example.org' });
    expect(idToken.exp - idToken.iat).toBe(600);
    await expect(services.authentication.authenticate(token.access_token)).resolves.toMatchObject({ primary: { username: 'alice' } });
  });

  it('gives the sign-in throttle its window and limits, and housekeeping the same window', async () => {
    const { services, clock } = await world({ signInThrottle: { attemptsPerAddress: 2, windowSeconds: 60 } });
    await services.admin.identities.setPassword('alice', 'correct horse battery');
    for (let i = 0; i < 2; i++) await services.helperPages.signIn('alice', 'wrong', { address: '192.0.2.1' }).catch(() => undefined);
    await expect(services.helperPages.signIn('alice', 'correct horse battery', { address: '192.0.2.1' })).rejects.toThrow(/Try again in 1 minutes/);
    clock.advance(59);
    expect((await services.housekeeping.purgeExpired()).signInFailures).toBe(0);
    clock.advance(2);
    expect((await services.housekeeping.purgeExpired()).signInFailures).toBe(4); // each failure counts under the account and the address
    await expect(services.helperPages.signIn('alice', 'correct horse battery', { address: '192.0.2.1' })).resolves.toMatchObject({ secret: expect.any(String), expiresAt: expect.any(Date) });
  });

  it('keeps the default throttle (10 per address, 15 minutes) when given none', async () => {
    const { services, clock } = await world();
    await services.admin.identities.setPassword('alice', 'correct horse battery');
    for (let i = 0; i < 10; i++) await services.helperPages.signIn('alice', 'wrong', { address: '192.0.2.1' }).catch(() => undefined);
    await expect(services.helperPages.signIn('alice', 'correct horse battery', { address: '192.0.2.1' })).rejects.toThrow(/15 minutes/);
    clock.advance(15 * 60 - 1);
    expect((await services.housekeeping.purgeExpired()).signInFailures).toBe(0);
    clock.advance(2);
    expect((await services.housekeeping.purgeExpired()).signInFailures).toBe(20);
  });
});
