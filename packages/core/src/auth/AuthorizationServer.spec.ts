import { TestWorld } from '../testing/TestWorld';
import { TRANSFER_SCOPE } from './AuthenticationService';
import { OAuthProtocolError, parseScopeParameter, UnsafeAuthorizationRequestError } from './AuthorizationServer';
import type { ClientState } from './Client';
import type { SignedIn } from './HelperPagesService';
import { resourceServerOf } from './Scope';

describe('AuthorizationServerService', () => {
  let world: TestWorld;
  let portal: ClientState;
  let alice: SignedIn;
  const server = () => world.services.authorizationServer;
  const CALLBACK = 'https://portal.example.org/cb';

  beforeEach(async () => {
    world = new TestWorld();
    const { admin } = world.services;
    await admin.addScope('urn:xfer:scope:storage.example.org:data_access', 'Read files');
    await admin.addScope('urn:xfer:scope:archive.example.org:read', 'Read the archive', { dependsOn: ['urn:xfer:scope:storage.example.org:data_access'] });
    await admin.addScope(TRANSFER_SCOPE, 'Move files', { dependsOn: ['urn:xfer:scope:archive.example.org:read'] });
    await admin.addScope('openid', 'Know who you are');
    portal = (await admin.addClient({ display_name: 'Portal', redirect_uris: [CALLBACK], public_client: false })).client;
    await world.user('alice');
    const identity = (await world.uow.repositories.identities.findByUsername('alice'))!;
    alice = { identity, set: [identity] };
  });

  it('reads resource servers from scope names the way the hosted service names them', () => {
    expect(resourceServerOf(TRANSFER_SCOPE)).toBe('transfer.api.globus.org');
    expect(resourceServerOf('https://auth.globus.org/scopes/abc-123/https')).toBe('abc-123');
    expect(resourceServerOf('urn:xfer:scope:storage.example.org:data_access')).toBe('storage.example.org');
    expect(resourceServerOf('openid')).toBe('auth.globus.org');
    expect(parseScopeParameter('  a b\ta a ')).toEqual(['a', 'b']);
  });

  it('refuses unknown clients and unregistered redirect URIs without a redirect; the rest as protocol errors', async () => {
    const request = { client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid' };
    await expect(server().checkAuthorizationRequest({ ...request, client_id: 'nope' })).rejects.toThrow(UnsafeAuthorizationRequestError);
    await expect(server().checkAuthorizationRequest({ ...request, redirect_uri: `${CALLBACK}/` })).rejects.toThrow(UnsafeAuthorizationRequestError);
    await expect(server().checkAuthorizationRequest({ ...request, scope: 'openid nope' })).rejects.toThrow(OAuthProtocolError);
    expect((await server().checkAuthorizationRequest(request)).scopes.map((s) => s.name)).toEqual(['openid']);
  });

  it('records a consent tree per scope not yet consented, and asks nothing the second time', async () => {
    const { scopes } = await server().checkAuthorizationRequest({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope: `${TRANSFER_SCOPE} openid` });
    const tree = await server().scopeTree(scopes);
    expect(tree.map((n) => [n.scope.name, n.children.map((c) => [c.scope.name, c.children.map((g) => g.scope.name)])])).toEqual([
      [TRANSFER_SCOPE, [['urn:xfer:scope:archive.example.org:read', ['urn:xfer:scope:storage.example.org:data_access']]]],
      ['openid', []],
    ]);
    // Allow from two tabs at once records each consent once
    await Promise.all([server().recordConsents(alice, portal, scopes), server().recordConsents(alice, portal, scopes)]);
    expect(await server().scopesToConsent(alice, portal, scopes)).toEqual([]);
    const consents = await world.uow.repositories.consents.listForIdentities([alice.identity.id]);
    expect(consents.map((c) => c.dependency_path.length)).toEqual([1, 2, 3, 1]);
    await server().recordConsents(alice, portal, scopes);
    expect(await world.uow.repositories.consents.listForIdentities([alice.identity.id])).toHaveLength(4);
  });

  it('issues one token per resource server, only on approved consents, and introspects for the right clients', async () => {
    const issue = () =>
      server().issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: [TRANSFER_SCOPE, 'openid'], refresh: 'new', requireConsent: true });
    await expect(issue()).rejects.toThrow(/rescinded/);
    const { scopes } = await server().checkAuthorizationRequest({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope: `${TRANSFER_SCOPE} openid` });
    await server().recordConsents(alice, portal, scopes);
    const [transfer, openid] = await issue();
    expect([transfer.resource_server, openid.resource_server]).toEqual(['transfer.api.globus.org', 'auth.globus.org']);
    expect(transfer.refresh_token).not.toBe(openid.refresh_token);
    expect(await server().introspect(portal, transfer.access_token, ['identity_set'])).toMatchObject({ active: true, sub: alice.identity.id, identity_set: [alice.identity.id] });
    const stranger = (await world.services.admin.addClient({ display_name: 'Stranger', public_client: false })).client;
    expect(await server().introspect(stranger, transfer.access_token, [])).toEqual({ active: false });

    expect(await server().rescind(alice, portal.id)).toEqual({ consents: 2, tokens: 4 });
    expect(await server().introspect(portal, transfer.access_token, [])).toEqual({ active: false });
    await expect(issue()).rejects.toThrow(/rescinded/);
  });

  describe('with two clients', () => {
    let lab: ClientState;
    const consentTo = async (client: ClientState, scope: string) => {
      const { scopes } = await server().checkAuthorizationRequest({ client_id: client.id, redirect_uri: CALLBACK, response_type: 'code', scope });
      await server().recordConsents(alice, client, scopes);
      return scopes;
    };
    const issueFor = (client: ClientState, scopeNames: string[]) =>
      server().issueTokens({ client, identityId: alice.identity.id, scopeNames, refresh: 'new', requireConsent: true });

    beforeEach(async () => {
      lab = (await world.services.admin.addClient({ display_name: 'Lab', redirect_uris: [CALLBACK], public_client: false })).client;
    });

    it('counts a consent for the client it was given to only', async () => {
      const scopes = await consentTo(portal, 'openid');
      expect(await server().scopesToConsent(alice, portal, scopes)).toEqual([]);
      expect((await server().scopesToConsent(alice, lab, scopes)).map((s) => s.name)).toEqual(['openid']);
      await expect(issueFor(lab, ['openid'])).rejects.toThrow(/rescinded/);
      await expect(issueFor(portal, ['openid'])).resolves.toHaveLength(1);
    });

    it('rescinds the consents and tokens of one client and leaves the other client\'s', async () => {
      await consentTo(portal, 'openid');
      await consentTo(lab, 'openid');
      const [portalToken] = await issueFor(portal, ['openid']);
      const [labToken] = await issueFor(lab, ['openid']);
      expect(await server().rescind(alice, portal.id)).toEqual({ consents: 1, tokens: 2 });
      expect(await server().introspect(portal, portalToken.access_token, [])).toEqual({ active: false });
      expect(await server().introspect(lab, labToken.access_token, [])).toMatchObject({ active: true, client_id: lab.id });
      await expect(issueFor(lab, ['openid'])).resolves.toHaveLength(1);
      await expect(issueFor(portal, ['openid'])).rejects.toThrow(/rescinded/);
    });

    it('lets a client introspect its own tokens, and a resource server the tokens meant for it, nobody else', async () => {
      await consentTo(portal, 'openid');
      const [token] = await issueFor(portal, ['openid']);
      const { admin } = world.services;
      const auth = (await admin.addClient({ display_name: 'Auth RS', public_client: false, resource_server: 'auth.globus.org' })).client;
      const other = (await admin.addClient({ display_name: 'Other RS', public_client: false, resource_server: 'transfer.api.globus.org' })).client;
      expect(await server().introspect(portal, token.access_token, [])).toMatchObject({ active: true });
      expect(await server().introspect(auth, token.access_token, [])).toMatchObject({ active: true, aud: ['auth.globus.org', portal.id] });
      expect(await server().introspect(other, token.access_token, [])).toEqual({ active: false });
      expect(await server().introspect(lab, token.access_token, [])).toEqual({ active: false });
    });
  });

  it('issues access tokens that live as long as expires_in says (48 hours)', async () => {
    const { scopes } = await server().checkAuthorizationRequest({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid' });
    await server().recordConsents(alice, portal, scopes);
    const [token] = await server().issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'new', requireConsent: true });
    expect(token.expires_in).toBe(48 * 60 * 60);
    expect(token.expires_at.getTime() - world.clock.now().getTime()).toBe(48 * 60 * 60 * 1000);
    world.clock.advance(48 * 60 * 60 - 60);
    expect(await server().introspect(portal, token.access_token, [])).toMatchObject({ active: true });
    world.clock.advance(120);
    expect(await server().introspect(portal, token.access_token, [])).toEqual({ active: false });
  });

  it('requires PKCE S256 of public clients before a code is stored', async () => {
    const app = (await world.services.admin.addClient({ display_name: 'App', redirect_uris: [CALLBACK] })).client;
    const base = { code: 'c', client: app, identityId: alice.identity.id, redirectUri: CALLBACK, scopes: ['openid'], expiresAt: world.clock.now() };
    await expect(server().saveAuthorizationCode({ ...base, codeChallenge: null, codeChallengeMethod: null })).rejects.toThrow(/PKCE/);
    await expect(server().saveAuthorizationCode({ ...base, codeChallenge: 'x'.repeat(43), codeChallengeMethod: 'plain' })).rejects.toThrow(/S256/);
    // and only for consented scopes
    await expect(server().saveAuthorizationCode({ ...base, codeChallenge: 'x'.repeat(43), codeChallengeMethod: 'S256' })).rejects.toThrow(/rescinded/);
  });
});
