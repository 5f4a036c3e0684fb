import { AuthenticationFailedError, ConsentRequiredError } from '../shared/errors';
import { TestWorld } from '../testing/TestWorld';
import { TRANSFER_SCOPE } from './AuthenticationService';
import { hashToken } from './AccessToken';
import { AuthorizationServerService, DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS, OAuthProtocolError, parseScopeParameter, UnsafeAuthorizationRequestError } from './AuthorizationServer';
import type { ClientState } from './Client';
import type { SignedIn } from './HelperPagesService';
import { VIEW_IDENTITY_SET_SCOPE } from './IdToken';
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
    await admin.clients.addScope('urn:xfer:scope:storage.example.org:data_access', 'Read files');
    await admin.clients.addScope('urn:xfer:scope:archive.example.org:read', 'Read the archive', { dependsOn: ['urn:xfer:scope:storage.example.org:data_access'] });
    await admin.clients.addScope(TRANSFER_SCOPE, 'Move files', { dependsOn: ['urn:xfer:scope:archive.example.org:read'] });
    await admin.clients.addScope('openid', 'Know who you are');
    portal = (await admin.clients.addClient({ display_name: 'Portal', redirect_uris: [CALLBACK], public_client: false })).client;
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
    await expect(server().authorizationCode.checkAuthorizationRequest({ ...request, client_id: 'nope' })).rejects.toThrow(UnsafeAuthorizationRequestError);
    await expect(server().authorizationCode.checkAuthorizationRequest({ ...request, redirect_uri: `${CALLBACK}/` })).rejects.toThrow(UnsafeAuthorizationRequestError);
    await expect(server().authorizationCode.checkAuthorizationRequest({ ...request, scope: 'openid nope' })).rejects.toThrow(OAuthProtocolError);
    expect((await server().authorizationCode.checkAuthorizationRequest(request)).scopes.map((s) => s.name)).toEqual(['openid']);
  });

  it('records a consent tree per scope not yet consented, and asks nothing the second time', async () => {
    const { scopes } = await server().authorizationCode.checkAuthorizationRequest({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope: `${TRANSFER_SCOPE} openid` });
    const tree = await server().authorizationCode.scopeTree(scopes);
    expect(tree.map((n) => [n.scope.name, n.children.map((c) => [c.scope.name, c.children.map((g) => g.scope.name)])])).toEqual([
      [TRANSFER_SCOPE, [['urn:xfer:scope:archive.example.org:read', ['urn:xfer:scope:storage.example.org:data_access']]]],
      ['openid', []],
    ]);
    // Allow from two tabs at once records each consent once
    await Promise.all([server().authorizationCode.recordConsents(alice, portal, scopes), server().authorizationCode.recordConsents(alice, portal, scopes)]);
    expect(await server().authorizationCode.scopesToConsent(alice, portal, scopes)).toEqual([]);
    const consents = await world.uow.repositories.consents.listForIdentities([alice.identity.id]);
    expect(consents.map((c) => c.dependency_path.length)).toEqual([1, 2, 3, 1]);
    await server().authorizationCode.recordConsents(alice, portal, scopes);
    expect(await world.uow.repositories.consents.listForIdentities([alice.identity.id])).toHaveLength(4);
  });

  it("tells a token's session (its sign-in's time, else its own issue time), and validates only the calling client's live tokens", async () => {
    const { scopes } = await server().authorizationCode.checkAuthorizationRequest({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid' });
    await server().authorizationCode.recordConsents(alice, portal, scopes);
    const signedInAt = new Date(world.clock.now().getTime() - 90_000);
    const [withRefresh] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'new', requireConsent: true, authTime: signedInAt });
    world.clock.advance(30);
    const [plain] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'none', requireConsent: true });
    const session = async (token: string) => (await server().inspection.introspect(portal, token, ['session_info'])).session_info;
    const authentication = (at: Date) => ({ [alice.identity.id]: { auth_time: Math.floor(at.getTime() / 1000), idp: alice.identity.identity_provider, acr: null, amr: null, custom_claims: {} } });
    expect(await session(withRefresh!.access_token)).toEqual({ session_id: hashToken(withRefresh!.refresh_token!).slice(0, 32), authentications: authentication(signedInAt) });
    expect(await session(plain!.access_token)).toEqual({ session_id: hashToken(plain!.access_token).slice(0, 32), authentications: authentication(world.clock.now()) });
    expect((await server().inspection.introspect(portal, plain!.access_token, [])).session_info).toBeUndefined();

    const other = (await world.services.admin.clients.addClient({ display_name: 'Other', public_client: false })).client;
    for (const token of [withRefresh!.access_token, withRefresh!.refresh_token!, plain!.access_token]) {
      expect(await server().inspection.validateToken(portal, token)).toEqual({ active: true });
      expect(await server().inspection.validateToken(other, token)).toEqual({ active: false });
    }
    expect(await server().inspection.validateToken(portal, 'not a token')).toEqual({ active: false });
    await server().inspection.revokeToken(portal, plain!.access_token);
    expect(await server().inspection.validateToken(portal, plain!.access_token)).toEqual({ active: false });
    await server().inspection.revokeToken(portal, withRefresh!.refresh_token!);
    expect(await server().inspection.validateToken(portal, withRefresh!.refresh_token!)).toEqual({ active: false });
    world.clock.advance(DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS + 1);
    const [late] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'none', requireConsent: true });
    world.clock.advance(DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS + 1);
    expect(await server().inspection.validateToken(portal, late!.access_token)).toEqual({ active: false });
  });

  it('issues one token per resource server, only on approved consents, and introspects for the right clients', async () => {
    const issue = () =>
      server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: [TRANSFER_SCOPE, 'openid'], refresh: 'new', requireConsent: true });
    await expect(issue()).rejects.toThrow(/rescinded/);
    const { scopes } = await server().authorizationCode.checkAuthorizationRequest({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope: `${TRANSFER_SCOPE} openid` });
    await server().authorizationCode.recordConsents(alice, portal, scopes);
    const [transfer, openid] = await issue();
    expect([transfer.resource_server, openid.resource_server]).toEqual(['transfer.api.globus.org', 'auth.globus.org']);
    expect(transfer.refresh_token).not.toBe(openid.refresh_token);
    expect(await server().inspection.introspect(portal, transfer.access_token, ['identity_set'])).toMatchObject({ active: true, sub: alice.identity.id, identity_set: [alice.identity.id] });
    const stranger = (await world.services.admin.clients.addClient({ display_name: 'Stranger', public_client: false })).client;
    expect(await server().inspection.introspect(stranger, transfer.access_token, [])).toEqual({ active: false });

    expect(await server().authorizationCode.rescind(alice, portal.id)).toEqual({ consents: 2, tokens: 4 });
    expect(await server().inspection.introspect(portal, transfer.access_token, [])).toEqual({ active: false });
    await expect(issue()).rejects.toThrow(/rescinded/);
  });

  describe('with two clients', () => {
    let lab: ClientState;
    const consentTo = async (client: ClientState, scope: string) => {
      const { scopes } = await server().authorizationCode.checkAuthorizationRequest({ client_id: client.id, redirect_uri: CALLBACK, response_type: 'code', scope });
      await server().authorizationCode.recordConsents(alice, client, scopes);
      return scopes;
    };
    const issueFor = (client: ClientState, scopeNames: string[]) =>
      server().tokens.issueTokens({ client, identityId: alice.identity.id, scopeNames, refresh: 'new', requireConsent: true });

    beforeEach(async () => {
      lab = (await world.services.admin.clients.addClient({ display_name: 'Lab', redirect_uris: [CALLBACK], public_client: false })).client;
    });

    it('counts a consent for the client it was given to only', async () => {
      const scopes = await consentTo(portal, 'openid');
      expect(await server().authorizationCode.scopesToConsent(alice, portal, scopes)).toEqual([]);
      expect((await server().authorizationCode.scopesToConsent(alice, lab, scopes)).map((s) => s.name)).toEqual(['openid']);
      await expect(issueFor(lab, ['openid'])).rejects.toThrow(/rescinded/);
      await expect(issueFor(portal, ['openid'])).resolves.toHaveLength(1);
    });

    it('rescinds the consents and tokens of one client and leaves the other client\'s', async () => {
      await consentTo(portal, 'openid');
      await consentTo(lab, 'openid');
      const [portalToken] = await issueFor(portal, ['openid']);
      const [labToken] = await issueFor(lab, ['openid']);
      expect(await server().authorizationCode.rescind(alice, portal.id)).toEqual({ consents: 1, tokens: 2 });
      expect(await server().inspection.introspect(portal, portalToken.access_token, [])).toEqual({ active: false });
      expect(await server().inspection.introspect(lab, labToken.access_token, [])).toMatchObject({ active: true, client_id: lab.id });
      await expect(issueFor(lab, ['openid'])).resolves.toHaveLength(1);
      await expect(issueFor(portal, ['openid'])).rejects.toThrow(/rescinded/);
    });

    it('lets a client introspect its own tokens, and a resource server the tokens meant for it, nobody else', async () => {
      await consentTo(portal, 'openid');
      const [token] = await issueFor(portal, ['openid']);
      const { admin } = world.services;
      const auth = (await admin.clients.addClient({ display_name: 'Auth RS', public_client: false, resource_server: 'auth.globus.org' })).client;
      const other = (await admin.clients.addClient({ display_name: 'Other RS', public_client: false, resource_server: 'transfer.api.globus.org' })).client;
      expect(await server().inspection.introspect(portal, token.access_token, [])).toMatchObject({ active: true });
      expect(await server().inspection.introspect(auth, token.access_token, [])).toMatchObject({ active: true, aud: ['auth.globus.org', portal.id] });
      expect(await server().inspection.introspect(other, token.access_token, [])).toEqual({ active: false });
      expect(await server().inspection.introspect(lab, token.access_token, [])).toEqual({ active: false });
    });
  });

  it('issues access tokens that live as long as expires_in says (48 hours)', async () => {
    const { scopes } = await server().authorizationCode.checkAuthorizationRequest({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid' });
    await server().authorizationCode.recordConsents(alice, portal, scopes);
    const [token] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'new', requireConsent: true });
    expect(token.expires_in).toBe(48 * 60 * 60);
    expect(token.expires_at.getTime() - world.clock.now().getTime()).toBe(48 * 60 * 60 * 1000);
    world.clock.advance(48 * 60 * 60 - 60);
    expect(await server().inspection.introspect(portal, token.access_token, [])).toMatchObject({ active: true });
    world.clock.advance(120);
    expect(await server().inspection.introspect(portal, token.access_token, [])).toEqual({ active: false });
  });

  it('requires PKCE S256 of public clients before a code is stored', async () => {
    const app = (await world.services.admin.clients.addClient({ display_name: 'App', redirect_uris: [CALLBACK] })).client;
    const base = { code: 'c', client: app, identityId: alice.identity.id, redirectUri: CALLBACK, scopes: ['openid'], expiresAt: world.clock.now() };
    await expect(server().authorizationCode.saveAuthorizationCode({ ...base, codeChallenge: null, codeChallengeMethod: null })).rejects.toThrow(/PKCE/);
    await expect(server().authorizationCode.saveAuthorizationCode({ ...base, codeChallenge: 'x'.repeat(43), codeChallengeMethod: 'plain' })).rejects.toThrow(/S256/);
    // and only for consented scopes
    await expect(server().authorizationCode.saveAuthorizationCode({ ...base, codeChallenge: 'x'.repeat(43), codeChallengeMethod: 'S256' })).rejects.toThrow(/rescinded/);
  });

  describe('client authentication', () => {
    it('accepts a confidential client by its own secret only, and a public client only without one', async () => {
      const confidential = await world.services.admin.clients.addClient({ display_name: 'Backend', public_client: false });
      const app = await world.services.admin.clients.addClient({ display_name: 'App', redirect_uris: [CALLBACK] });
      const other = await world.services.admin.clients.addClient({ display_name: 'Other', public_client: false });
      expect((await server().registry.authenticateClient(confidential.client.id, confidential.secret))?.id).toBe(confidential.client.id);
      expect(await server().registry.authenticateClient(confidential.client.id, other.secret)).toBeNull();
      expect(await server().registry.authenticateClient(confidential.client.id, undefined)).toBeNull();
      expect(await server().registry.authenticateClient(confidential.client.id, '')).toBeNull();
      expect(await server().registry.authenticateClient('not-a-client', confidential.secret)).toBeNull();
      expect(await server().registry.authenticateClient(undefined, undefined)).toBeNull();
      expect((await server().registry.authenticateClient(app.client.id, undefined))?.id).toBe(app.client.id);
      expect((await server().registry.authenticateClient(app.client.id, null))?.id).toBe(app.client.id);
      expect(await server().registry.authenticateClient(app.client.id, 'a secret')).toBeNull();
    });
  });

  describe('the scope parameter of a token request', () => {
    it('is checked whole, dependencies in brackets included: every name registered, else invalid_scope naming it', async () => {
      await world.services.admin.clients.addScope('urn:xfer:scope:data.example.org:read', 'Read');
      await expect(server().registry.checkScopeParameter(`${TRANSFER_SCOPE} urn:xfer:scope:data.example.org:read`)).resolves.toBeUndefined();
      await expect(server().registry.checkScopeParameter(`${TRANSFER_SCOPE}[urn:xfer:scope:data.example.org:gone]`)).rejects.toThrow(new OAuthProtocolError('invalid_scope', "Unknown scope 'urn:xfer:scope:data.example.org:gone'"));
      await expect(server().registry.checkScopeParameter('urn:xfer:scope:nowhere.example.org:x')).rejects.toThrow(OAuthProtocolError);
      await expect(server().registry.checkScopeParameter(' ')).rejects.toThrow(new OAuthProtocolError('invalid_scope', 'scope is required'));
    });
  });

  describe('authorization requests', () => {
    const request = () => ({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid' });
    const codeOf = async (params: Record<string, string | undefined>) => {
      try {
        await server().authorizationCode.checkAuthorizationRequest({ ...request(), ...params });
        return 'accepted';
      } catch (error) {
        return error instanceof OAuthProtocolError ? error.code : (error as Error).constructor.name;
      }
    };

    it('answers only response_type=code', async () => {
      expect(await codeOf({ response_type: 'token' })).toBe('unsupported_response_type');
      expect(await codeOf({ response_type: undefined })).toBe('unsupported_response_type');
      expect(await codeOf({})).toBe('accepted');
    });

    it('takes a state of up to 1024 printable ASCII characters, and a nonce of 1 to 512', async () => {
      expect(await codeOf({ state: '' })).toBe('accepted');
      expect(await codeOf({ state: ' ~'.repeat(512) })).toBe('accepted');
      expect(await codeOf({ state: 'x'.repeat(1025) })).toBe('invalid_request');
      expect(await codeOf({ state: 'caf\u00e9' })).toBe('invalid_request');
      expect(await codeOf({ state: 'line\nbreak' })).toBe('invalid_request');
      expect(await codeOf({ nonce: 'n'.repeat(512) })).toBe('accepted');
      expect(await codeOf({ nonce: 'n'.repeat(513) })).toBe('invalid_request');
      expect(await codeOf({ nonce: '' })).toBe('invalid_request');
      expect(await codeOf({ nonce: 'tab\there' })).toBe('invalid_request');
    });

    it('needs a scope, every one of them registered', async () => {
      expect(await codeOf({ scope: undefined })).toBe('invalid_scope');
      expect(await codeOf({ scope: '   ' })).toBe('invalid_scope');
      expect(await codeOf({ scope: 'openid unknown' })).toBe('invalid_scope');
      const checked = await server().authorizationCode.checkAuthorizationRequest({ ...request(), scope: `openid ${TRANSFER_SCOPE} openid` });
      expect(checked.scopes.map((s) => s.name)).toEqual(['openid', TRANSFER_SCOPE]);
      expect(checked.redirectUri).toBe(CALLBACK);
      expect(checked.client.id).toBe(portal.id);
    });

    it('takes a code_challenge only as a 43-character base64url S256, and requires one of a public client', async () => {
      const challenge = 'aZ09_-'.repeat(7) + 'x';
      expect(challenge).toHaveLength(43);
      expect(await codeOf({ code_challenge: challenge })).toBe('accepted');
      expect(await codeOf({ code_challenge: challenge, code_challenge_method: 'S256' })).toBe('accepted');
      expect(await codeOf({ code_challenge: challenge, code_challenge_method: 'plain' })).toBe('invalid_request');
      expect(await codeOf({ code_challenge: challenge.slice(1) })).toBe('invalid_request');
      expect(await codeOf({ code_challenge: `${challenge}x` })).toBe('invalid_request');
      expect(await codeOf({ code_challenge: `${challenge.slice(1)}=` })).toBe('invalid_request');
      const app = (await world.services.admin.clients.addClient({ display_name: 'App', redirect_uris: [CALLBACK] })).client;
      expect(await codeOf({ client_id: app.id })).toBe('invalid_request');
      expect(await codeOf({ client_id: app.id, code_challenge: challenge })).toBe('accepted');
    });

    it('lists every registered scope for the discovery document', async () => {
      expect((await server().registry.scopeNames()).sort()).toEqual(['openid', TRANSFER_SCOPE, 'urn:xfer:scope:archive.example.org:read', 'urn:xfer:scope:storage.example.org:data_access'].sort());
    });
  });

  describe('the consent screen\'s scope tree', () => {
    const depth = (nodes: { children: unknown[] }[]): number => (nodes.length === 0 ? 0 : 1 + Math.max(...nodes.map((n) => depth(n.children as { children: unknown[] }[]))));

    it('shows at most eight levels of dependent scopes', async () => {
      const { admin } = world.services;
      await admin.clients.addScope('urn:xfer:scope:chain.example.org:s11', 'Level 11');
      for (let i = 10; i >= 0; i--) await admin.clients.addScope(`urn:xfer:scope:chain.example.org:s${i}`, `Level ${i}`, { dependsOn: [`urn:xfer:scope:chain.example.org:s${i + 1}`] });
      const top = (await world.uow.repositories.scopes.findByName('urn:xfer:scope:chain.example.org:s0'))!;
      expect(depth(await server().authorizationCode.scopeTree([top]))).toBe(8);
      const fourth = (await world.uow.repositories.scopes.findByName('urn:xfer:scope:chain.example.org:s8'))!;
      expect(depth(await server().authorizationCode.scopeTree([fourth]))).toBe(4);
    });

    it('never shows a scope beneath itself', async () => {
      const looped = { id: 'looped-scope', name: 'urn:xfer:scope:loop.example.org:self', description: 'Loops', resource_server: 'loop.example.org', dependent_scope_ids: ['looped-scope'], created_at: world.clock.now() };
      await world.uow.repositories.scopes.add(looped);
      expect(await server().authorizationCode.scopeTree([looped])).toEqual([{ scope: looped, children: [] }]);
    });
  });

  describe('codes, refresh tokens and token issue', () => {
    const consent = async (client: ClientState, scope: string) => {
      const { scopes } = await server().authorizationCode.checkAuthorizationRequest({ client_id: client.id, redirect_uri: CALLBACK, response_type: 'code', scope });
      await server().authorizationCode.recordConsents(alice, client, scopes);
    };
    const saveCode = (code: string, extra: { nonce?: string | null; authTime?: Date | null } = {}) =>
      server().authorizationCode.saveAuthorizationCode({ code, client: portal, identityId: alice.identity.id, redirectUri: CALLBACK, scopes: ['openid'], codeChallenge: null, codeChallengeMethod: null, expiresAt: world.clock.now(), ...extra });

    it('keeps only a hash of a code, with what the token request will need', async () => {
      await consent(portal, 'openid');
      const authTime = new Date('2026-01-01T00:00:00Z');
      const saved = await saveCode('the-code', { nonce: 'n-1', authTime });
      expect(saved.code_hash).not.toContain('the-code');
      expect(saved).toMatchObject({ client_id: portal.id, identity_id: alice.identity.id, redirect_uri: CALLBACK, scopes: ['openid'], code_challenge: null, code_challenge_method: null, nonce: 'n-1', auth_time: authTime, used_at: null });
      expect(await server().authorizationCode.findAuthorizationCode('the-code')).toEqual(saved);
      expect(await server().authorizationCode.findAuthorizationCode('another-code')).toBeNull();
      const withPkce = await server().authorizationCode.saveAuthorizationCode({
        code: 'pkce-code', client: portal, identityId: alice.identity.id, redirectUri: CALLBACK, scopes: ['openid'], codeChallenge: 'c'.repeat(43), codeChallengeMethod: null, expiresAt: world.clock.now(),
      });
      expect(withPkce).toMatchObject({ code_challenge: 'c'.repeat(43), code_challenge_method: 'S256', nonce: null, auth_time: null });
    });

    it('spends a code once, and revokes what it bought when it comes back', async () => {
      await consent(portal, 'openid');
      const saved = await saveCode('the-code');
      expect(await server().authorizationCode.consumeAuthorizationCode(saved.code_hash)).toBe(true);
      expect(await server().authorizationCode.consumeAuthorizationCode(saved.code_hash)).toBe(false);
      const [token] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'new', requireConsent: true, codeHash: saved.code_hash });
      const [unrelated] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'new', requireConsent: true });
      expect(await server().refreshToken.findRefreshToken(token.refresh_token!)).not.toBeNull();
      expect(await server().authorizationCode.findAuthorizationCode('the-code')).toBeNull();
      expect(await server().inspection.introspect(portal, token.access_token, [])).toEqual({ active: false });
      expect(await server().refreshToken.findRefreshToken(token.refresh_token!)).toBeNull();
      expect(await server().inspection.introspect(portal, unrelated.access_token, [])).toMatchObject({ active: true });
      expect(await server().refreshToken.findRefreshToken(unrelated.refresh_token!)).not.toBeNull();
    });

    it('finds a refresh token by its value while it is not revoked', async () => {
      await consent(portal, 'openid');
      const [token] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'new', requireConsent: true, authTime: new Date('2026-01-01T00:00:00Z') });
      const found = await server().refreshToken.findRefreshToken(token.refresh_token!);
      expect(found).toMatchObject({ identity_id: alice.identity.id, client_id: portal.id, scopes: ['openid'], resource_server: 'auth.globus.org', auth_time: new Date('2026-01-01T00:00:00Z'), consent_client_id: null, revoked_at: null });
      expect(await server().refreshToken.findRefreshToken('not-a-token')).toBeNull();
      await server().inspection.revokeToken(portal, token.refresh_token!);
      expect(await server().refreshToken.findRefreshToken(token.refresh_token!)).toBeNull();
    });

    it('refreshes with the same refresh token (not rotated)', async () => {
      await consent(portal, 'openid');
      const authTime = new Date('2026-01-01T00:00:00Z');
      const [first] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'new', requireConsent: true, authTime });
      const refresh = (await server().refreshToken.findRefreshToken(first.refresh_token!))!;
      world.clock.advance(60);
      const [second] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh, refreshSecret: first.refresh_token!, requireConsent: true, authTime: null });
      expect(second.refresh_token).toBe(first.refresh_token);
      expect(second.access_token).not.toBe(first.access_token);
      expect(second.expires_at.getTime()).toBe(first.expires_at.getTime() + 60_000);
      // revoking the refresh token takes both access tokens with it
      await server().inspection.revokeToken(portal, first.refresh_token!);
      expect(await server().inspection.introspect(portal, first.access_token, [])).toEqual({ active: false });
      expect(await server().inspection.introspect(portal, second.access_token, [])).toEqual({ active: false });
    });

    it('issues without refresh tokens when none is asked, and groups scopes of one resource server into one token', async () => {
      await world.services.admin.clients.addScope('email', 'Your email address');
      await consent(portal, `openid email ${TRANSFER_SCOPE}`);
      const tokens = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid', TRANSFER_SCOPE, 'email'], refresh: 'none', requireConsent: true });
      expect(tokens.map((t) => [t.resource_server, t.scopes, t.refresh_token])).toEqual([
        ['auth.globus.org', ['openid', 'email'], null],
        ['transfer.api.globus.org', [TRANSFER_SCOPE], null],
      ]);
      expect(await server().inspection.introspect(portal, tokens[0].access_token, [])).toMatchObject({ active: true, scope: 'openid email' });
    });

    it('stamps the consents a token is issued under as used', async () => {
      await consent(portal, TRANSFER_SCOPE);
      const before = await world.uow.repositories.consents.listForIdentities([alice.identity.id]);
      expect(before.map((c) => c.last_used)).toEqual([null, null, null]);
      world.clock.advance(30);
      await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: [TRANSFER_SCOPE], refresh: 'none', requireConsent: true });
      const after = await world.uow.repositories.consents.listForIdentities([alice.identity.id]);
      expect(after.map((c) => c.last_used)).toEqual([world.clock.now(), world.clock.now(), world.clock.now()]);
    });

    it('issues without consent when the grant needs none (client credentials), but never for unknown scopes', async () => {
      const tokens = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'none', requireConsent: false });
      expect(tokens).toHaveLength(1);
      await expect(server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid', 'nope'], refresh: 'none', requireConsent: false })).rejects.toMatchObject({ code: 'invalid_scope' });
    });

    it('refuses a grant whose identity is gone', async () => {
      await consent(portal, 'openid');
      await expect(server().tokens.issueTokens({ client: portal, identityId: 'gone', scopeNames: ['openid'], refresh: 'none', requireConsent: true })).rejects.toMatchObject({ code: 'invalid_grant' });
    });

    it('gives a client its own identity for client_credentials, made once', async () => {
      const first = await server().clientCredentials.clientIdentity(portal);
      expect(first).toMatchObject({ id: portal.id, username: `${portal.id}@clients.auth.globus.org`, name: 'Portal', identity_type: 'client' });
      expect(await server().clientCredentials.clientIdentity(portal)).toEqual(first);
      expect(await world.uow.repositories.identities.findById(portal.id)).toEqual(first);
    });

    it('gives no identity of its own to a client made from a template, nor to a public one: they act only for people', async () => {
      const made = { ...portal, id: 'c1a1e000-0000-4000-8000-000000000001', template_id: '95fdeba8-fac2-42bd-a357-e068d82ff78e' };
      await expect(server().clientCredentials.clientIdentity(made)).rejects.toMatchObject({ code: 'unauthorized_client', message: "A client made from a template gets tokens only through a person's sign-in, never as itself" });
      await expect(server().clientCredentials.clientIdentity({ ...portal, public_client: true })).rejects.toMatchObject({ code: 'unauthorized_client', message: 'A public client cannot act as itself' });
      expect(await world.uow.repositories.identities.findById(made.id)).toBeNull();
    });
  });

  describe('revocation (RFC 7009)', () => {
    it('revokes a token only for the client it was issued to, and ignores anything else', async () => {
      const { scopes } = await server().authorizationCode.checkAuthorizationRequest({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid' });
      await server().authorizationCode.recordConsents(alice, portal, scopes);
      const lab = (await world.services.admin.clients.addClient({ display_name: 'Lab', public_client: false })).client;
      const [token] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'new', requireConsent: true });
      await server().inspection.revokeToken(lab, token.access_token);
      await server().inspection.revokeToken(lab, token.refresh_token!);
      await server().inspection.revokeToken(portal, 'not-a-token');
      expect(await server().inspection.introspect(portal, token.access_token, [])).toMatchObject({ active: true });
      expect(await server().refreshToken.findRefreshToken(token.refresh_token!)).not.toBeNull();
      await server().inspection.revokeToken(portal, token.access_token);
      expect(await server().inspection.introspect(portal, token.access_token, [])).toEqual({ active: false });
      expect(await server().refreshToken.findRefreshToken(token.refresh_token!)).not.toBeNull();
    });
  });

  describe('the dependent-token grant', () => {
    const ARCHIVE = 'urn:xfer:scope:archive.example.org:read';
    const STORAGE = 'urn:xfer:scope:storage.example.org:data_access';
    let transferService: ClientState;
    let userToken: string;

    beforeEach(async () => {
      const { scopes } = await server().authorizationCode.checkAuthorizationRequest({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope: TRANSFER_SCOPE });
      await server().authorizationCode.recordConsents(alice, portal, scopes);
      [{ access_token: userToken }] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: [TRANSFER_SCOPE], refresh: 'none', requireConsent: true });
      transferService = (await world.services.admin.clients.addClient({ display_name: 'Transfer', public_client: false, resource_server: 'transfer.api.globus.org' })).client;
    });

    it("gives the token's resource server tokens for the scopes beneath the token's, as itself", async () => {
      const [dependent] = await server().dependentToken.issueDependentTokens(transferService, userToken, false);
      expect(dependent).toMatchObject({ resource_server: 'archive.example.org', scopes: [ARCHIVE], refresh_token: null });
      expect(await server().inspection.introspect(transferService, dependent.access_token, [])).toMatchObject({ active: true, sub: alice.identity.id, client_id: transferService.id, scope: ARCHIVE });
    });

    it('adds refresh tokens when offline, which keep resting on the user\'s consents to the first client', async () => {
      const [dependent] = await server().dependentToken.issueDependentTokens(transferService, userToken, true);
      const refresh = (await server().refreshToken.findRefreshToken(dependent.refresh_token!))!;
      expect(refresh).toMatchObject({ client_id: transferService.id, consent_client_id: portal.id, scopes: [ARCHIVE] });
      const again = () => server().tokens.issueTokens({ client: transferService, identityId: alice.identity.id, scopeNames: [ARCHIVE], refresh, refreshSecret: dependent.refresh_token!, requireConsent: true });
      await expect(again()).resolves.toHaveLength(1);
      await server().authorizationCode.rescind(alice, portal.id);
      await expect(again()).rejects.toMatchObject({ code: 'invalid_grant' });
    });

    it('names the dependent scope the user has not consented to beneath the root, when that consent alone is gone', async () => {
      const consents = await world.services.admin.tokens.listConsents(alice.identity.username);
      const below = consents.find((c) => c.dependency_path.length === 2)!;
      await world.services.admin.tokens.revokeConsent(below.id);
      await expect(server().dependentToken.issueDependentTokens(transferService, userToken, false)).rejects.toMatchObject({
        code: 'invalid_grant',
        message: `The user has not consented to '${below.scope_name}' beneath '${TRANSFER_SCOPE}', or rescinded it`,
      });
    });

    it('goes one level down only, and names each dependent scope once', async () => {
      const storageService = (await world.services.admin.clients.addClient({ display_name: 'Archive', public_client: false, resource_server: 'archive.example.org' })).client;
      const [archive] = await server().dependentToken.issueDependentTokens(transferService, userToken, false);
      await expect(server().dependentToken.issueDependentTokens(storageService, archive.access_token, false)).rejects.toMatchObject({ code: 'invalid_grant' });
      await world.services.admin.clients.addScope('urn:xfer:scope:transfer.api.globus.org:other', 'Also archive', { dependsOn: [ARCHIVE] });
      const { scopes } = await server().authorizationCode.checkAuthorizationRequest({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope: 'urn:xfer:scope:transfer.api.globus.org:other' });
      await server().authorizationCode.recordConsents(alice, portal, scopes);
      const [both] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: [TRANSFER_SCOPE, 'urn:xfer:scope:transfer.api.globus.org:other'], refresh: 'none', requireConsent: true });
      const dependents = await server().dependentToken.issueDependentTokens(transferService, both.access_token, false);
      expect(dependents.map((t) => t.scopes)).toEqual([[ARCHIVE]]);
      expect(dependents.map((t) => t.scopes).flat()).not.toContain(STORAGE);
    });

    it('stamps the consents it used', async () => {
      world.clock.advance(90);
      await server().dependentToken.issueDependentTokens(transferService, userToken, false);
      const consents = await world.uow.repositories.consents.listForIdentities([alice.identity.id]);
      expect(consents.map((c) => [c.dependency_path.length, c.last_used?.getTime() ?? null])).toEqual([
        [1, world.clock.now().getTime() - 90_000],
        [2, world.clock.now().getTime()],
        [3, world.clock.now().getTime()],
      ]);
    });

    it('is only for a confidential client registered for the resource server the token is for', async () => {
      const { admin } = world.services;
      const publicApp = (await admin.clients.addClient({ display_name: 'App', redirect_uris: [CALLBACK] })).client;
      const noServer = (await admin.clients.addClient({ display_name: 'Plain', public_client: false })).client;
      const elsewhere = (await admin.clients.addClient({ display_name: 'Elsewhere', public_client: false, resource_server: 'archive.example.org' })).client;
      await expect(server().dependentToken.issueDependentTokens(publicApp, userToken, false)).rejects.toMatchObject({ code: 'unauthorized_client' });
      await expect(server().dependentToken.issueDependentTokens(noServer, userToken, false)).rejects.toMatchObject({ code: 'unauthorized_client' });
      await expect(server().dependentToken.issueDependentTokens(elsewhere, userToken, false)).rejects.toThrow(/not issued for your resource server/);
      await expect(server().dependentToken.issueDependentTokens(transferService, 'not-a-token', false)).rejects.toThrow(/not valid/);
    });

    it('refuses tokens an operator issued, and grants the user rescinded', async () => {
      const { token } = await world.services.admin.tokens.issueToken('alice');
      await expect(server().dependentToken.issueDependentTokens(transferService, token, false)).rejects.toThrow(/operator/);
      const consents = await world.uow.repositories.consents.listForIdentities([alice.identity.id]);
      // the dependent consent alone revoked: the root still stands
      await world.uow.repositories.consents.update([{ ...consents[1], status: 'revoked' }]);
      await expect(server().dependentToken.issueDependentTokens(transferService, userToken, false)).rejects.toThrow(/beneath/);
      await server().authorizationCode.rescind(alice, portal.id);
      await expect(server().dependentToken.issueDependentTokens(transferService, userToken, false)).rejects.toThrow(/not valid/);
    });

    it('counts the consents of every identity the user has linked', async () => {
      await world.services.admin.identities.addIdentity({ username: 'alice@work.example.org', name: 'Alice at work', email: null });
      await world.services.admin.identities.linkIdentities('alice', 'alice@work.example.org');
      const work = (await world.uow.repositories.identities.findByUsername('alice@work.example.org'))!;
      const [token] = await server().tokens.issueTokens({ client: portal, identityId: work.id, scopeNames: [TRANSFER_SCOPE], refresh: 'none', requireConsent: true });
      await expect(server().dependentToken.issueDependentTokens(transferService, token.access_token, false)).resolves.toHaveLength(1);
    });
  });

  describe('introspection and userinfo', () => {
    let token: string;
    const issue = async (scope: string) => {
      const { scopes } = await server().authorizationCode.checkAuthorizationRequest({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope });
      await server().authorizationCode.recordConsents(alice, portal, scopes);
      const [issued] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: scopes.map((s) => s.name), refresh: 'none', requireConsent: true });
      return issued.access_token;
    };

    beforeEach(async () => {
      await world.services.admin.clients.addScope('profile', 'Your name');
      await world.services.admin.clients.addScope('email', 'Your email address');
      await world.services.admin.clients.addScope(VIEW_IDENTITY_SET_SCOPE, 'Your linked identities');
      token = await issue('openid');
    });

    it('describes a live token as RFC 7662 does, with times in seconds', async () => {
      const created = Math.floor(world.clock.now().getTime() / 1000);
      expect(await server().inspection.introspect(portal, token, [])).toEqual({
        active: true,
        token_type: 'Bearer',
        scope: 'openid',
        client_id: portal.id,
        sub: alice.identity.id,
        username: 'alice',
        name: 'alice',
        email: null,
        aud: ['auth.globus.org', portal.id],
        iss: 'http://localhost:8081',
        exp: created + 48 * 60 * 60,
        iat: created,
        nbf: created,
      });
    });

    it('adds the identity set when asked, as ids or in detail', async () => {
      await world.services.admin.identities.addIdentity({ username: 'alice@work.example.org', name: 'Alice at work', email: 'alice@work.example.org' });
      await world.services.admin.identities.linkIdentities('alice', 'alice@work.example.org');
      const ids = (await server().inspection.introspect(portal, token, ['identity_set'])) as unknown as { identity_set: string[]; identity_set_detail?: unknown };
      expect(ids.identity_set).toHaveLength(2);
      expect(ids.identity_set_detail).toBeUndefined();
      const detail = (await server().inspection.introspect(portal, token, ['identity_set_detail'])) as unknown as { identity_set?: unknown; identity_set_detail: { sub: string; username: string }[] };
      expect(detail.identity_set).toBeUndefined();
      expect(detail.identity_set_detail.map((i) => i.sub).sort()).toEqual([...ids.identity_set].sort());
      expect(detail.identity_set_detail.map((i) => i.username).sort()).toEqual(['alice', 'alice@work.example.org']);
    });

    it('answers userinfo with sub, and the claims of each scope the token has', async () => {
      expect(await server().inspection.userInfo(token)).toEqual({ sub: alice.identity.id });
      const full = await issue(`openid profile email ${VIEW_IDENTITY_SET_SCOPE}`);
      expect(await server().inspection.userInfo(full)).toEqual({
        sub: alice.identity.id,
        preferred_username: 'alice',
        name: 'alice',
        organization: null,
        identity_provider: expect.any(String),
        identity_provider_display_name: expect.any(String),
        email: null,
        identity_set: [expect.objectContaining({ sub: alice.identity.id, username: 'alice' })],
      });
    });

    it('refuses userinfo without a live token, or without openid', async () => {
      await expect(server().inspection.userInfo(undefined)).rejects.toThrow(AuthenticationFailedError);
      await expect(server().inspection.userInfo('not-a-token')).rejects.toThrow(AuthenticationFailedError);
      const { token: operatorToken } = await world.services.admin.tokens.issueToken('alice', null, 'profile');
      await expect(server().inspection.userInfo(operatorToken)).rejects.toThrow(ConsentRequiredError);
    });
  });

  describe('what each refusal says', () => {
    const refusal = async (promise: Promise<unknown>) => {
      try {
        await promise;
      } catch (error) {
        return { code: (error as { code?: string }).code, message: (error as Error).message };
      }
      throw new Error('not refused');
    };
    const request = { redirect_uri: CALLBACK, response_type: 'code', scope: 'openid' };
    const check = (params: Record<string, string | undefined>) => refusal(server().authorizationCode.checkAuthorizationRequest({ ...request, client_id: portal.id, ...params }));

    it('names the problem of an authorization request', async () => {
      expect(await check({ client_id: 'nope' })).toMatchObject({ message: 'The application that sent you here is not registered with this service (unknown client_id).' });
      expect(await check({ redirect_uri: undefined })).toMatchObject({ message: 'The redirect_uri the application sent is not one it registered, so you are not sent back to it.' });
      expect(await check({ response_type: 'token' })).toEqual({ code: 'unsupported_response_type', message: 'response_type must be code' });
      expect(await check({ state: '\u00e9' })).toEqual({ code: 'invalid_request', message: 'state must be printable ASCII, at most 1024 characters' });
      expect(await check({ nonce: '' })).toEqual({ code: 'invalid_request', message: 'nonce must be printable ASCII, at most 512 characters' });
      expect(await check({ code_challenge: 'short' })).toEqual({ code: 'invalid_request', message: 'code_challenge must be a base64url SHA-256 (43 characters)' });
      expect(await check({ scope: ' ' })).toEqual({ code: 'invalid_scope', message: 'scope is required' });
      expect(await check({ scope: `openid ${'x'.repeat(300)}` })).toEqual({ code: 'invalid_scope', message: `Unknown scope '${'x'.repeat(200)}'` });
      expect(parseScopeParameter(undefined)).toEqual([]);
    });

    it('names the problem of a dependent-token request', async () => {
      const app = (await world.services.admin.clients.addClient({ display_name: 'App', redirect_uris: [CALLBACK] })).client;
      const rs = (await world.services.admin.clients.addClient({ display_name: 'RS', public_client: false, resource_server: 'auth.globus.org' })).client;
      expect(await refusal(server().dependentToken.issueDependentTokens(app, 'x', false))).toEqual({
        code: 'unauthorized_client',
        message: 'Only a resource server (a confidential client registered for one) may ask for dependent tokens',
      });
      expect(await refusal(server().dependentToken.issueDependentTokens(rs, 'x', false))).toEqual({ code: 'invalid_grant', message: 'The token is not valid, expired or revoked' });
      const other = (await world.services.admin.tokens.issueToken('alice')).token;
      expect(await refusal(server().dependentToken.issueDependentTokens(rs, other, false))).toEqual({ code: 'invalid_grant', message: 'The token was not issued for your resource server' });
      const operator = (await world.services.admin.tokens.issueToken('alice', null, 'openid')).token;
      expect(await refusal(server().dependentToken.issueDependentTokens(rs, operator, false))).toEqual({ code: 'invalid_grant', message: 'The token rests on no consent (an operator issued it)' });
    });

    it('names the problem of a grant and of userinfo', async () => {
      expect(await refusal(server().tokens.issueTokens({ client: portal, identityId: 'gone', scopeNames: ['openid'], refresh: 'none', requireConsent: true }))).toEqual({
        code: 'invalid_grant',
        message: 'The identity of this grant no longer exists',
      });
      expect(await refusal(server().inspection.userInfo('nope'))).toMatchObject({ message: 'Token is not valid, expired or revoked.' });
      const { token } = await world.services.admin.tokens.issueToken('alice', null, 'profile');
      const refused = await server().inspection.userInfo(token).catch((e: unknown) => e);
      expect(refused).toMatchObject({ message: 'userinfo needs a token with the openid scope', requiredScopes: ['openid'] });
    });
  });

  describe('rules the survivors of mutation testing showed', () => {
    const consentTo = async (scope: string) => {
      const { scopes } = await server().authorizationCode.checkAuthorizationRequest({ client_id: portal.id, redirect_uri: CALLBACK, response_type: 'code', scope });
      await server().authorizationCode.recordConsents(alice, portal, scopes);
    };

    it('uses the default issuer and token lifetime when none is configured', async () => {
      const plain = new AuthorizationServerService(world.uow, world.clock);
      await consentTo('openid');
      const [token] = await plain.tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'none', requireConsent: true });
      expect(token.expires_in).toBe(DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS);
      expect(await plain.inspection.introspect(portal, token.access_token, [])).toMatchObject({ iss: 'http://localhost' });
    });

    it("gives a resource server an operator token's audience as itself alone", async () => {
      const rs = (await world.services.admin.clients.addClient({ display_name: 'Transfer', public_client: false, resource_server: 'transfer.api.globus.org' })).client;
      const { token } = await world.services.admin.tokens.issueToken('alice');
      expect(await server().inspection.introspect(rs, token, [])).toMatchObject({ active: true, client_id: null, aud: ['transfer.api.globus.org'], exp: null });
    });

    it("needs a root consent for the client's own grant: a consent beneath another scope is not one", async () => {
      await consentTo(TRANSFER_SCOPE);
      await expect(server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['urn:xfer:scope:archive.example.org:read'], refresh: 'none', requireConsent: true })).rejects.toMatchObject({ code: 'invalid_grant' });
    });

    it('stores a token issued without a refresh token as having none', async () => {
      await consentTo('openid');
      const [token] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: ['openid'], refresh: 'none', requireConsent: true });
      expect((await world.uow.repositories.accessTokens.findByHash(hashToken(token.access_token)))?.refresh_token_hash).toBeNull();
    });

    it('refuses a code for a scope that does not exist, and stamps no consent when a code is stored', async () => {
      await consentTo('openid');
      const base = { client: portal, identityId: alice.identity.id, redirectUri: CALLBACK, codeChallenge: null, codeChallengeMethod: null, expiresAt: world.clock.now() };
      await expect(server().authorizationCode.saveAuthorizationCode({ ...base, code: 'a', scopes: ['openid', 'no-such-scope'] })).rejects.toMatchObject({ code: 'invalid_grant' });
      await server().authorizationCode.saveAuthorizationCode({ ...base, code: 'b', scopes: ['openid'] });
      expect((await world.uow.repositories.consents.listForIdentities([alice.identity.id])).map((c) => c.last_used)).toEqual([null]);
    });

    describe('dependent tokens of a scope with two dependents', () => {
      const A = 'urn:xfer:scope:a.example.org:all';
      const B = 'urn:xfer:scope:b.example.org:all';
      const BOTH = 'urn:xfer:scope:transfer.api.globus.org:both';
      let rs: ClientState;
      let userToken: string;

      beforeEach(async () => {
        const { admin } = world.services;
        await admin.clients.addScope(A, 'A');
        await admin.clients.addScope(B, 'B');
        await admin.clients.addScope(BOTH, 'Both', { dependsOn: [A, B] });
        await consentTo(BOTH);
        [{ access_token: userToken }] = await server().tokens.issueTokens({ client: portal, identityId: alice.identity.id, scopeNames: [BOTH], refresh: 'none', requireConsent: true });
        rs = (await admin.clients.addClient({ display_name: 'Transfer', public_client: false, resource_server: 'transfer.api.globus.org' })).client;
      });

      it('issues a token for each dependent scope, stored without a refresh token unless offline', async () => {
        const tokens = await server().dependentToken.issueDependentTokens(rs, userToken, false);
        expect(tokens.map((t) => t.scopes)).toEqual([[A], [B]]);
        for (const t of tokens) expect((await world.uow.repositories.accessTokens.findByHash(hashToken(t.access_token)))?.refresh_token_hash).toBeNull();
      });

      it('needs the consent to each dependent scope itself', async () => {
        const bScope = (await world.uow.repositories.scopes.findByName(B))!;
        const b = (await world.uow.repositories.consents.listForIdentities([alice.identity.id])).find((c) => c.scope_id === bScope.id)!;
        await world.uow.repositories.consents.update([{ ...b, status: 'revoked' }]);
        await expect(server().dependentToken.issueDependentTokens(rs, userToken, false)).rejects.toThrow(`The user has not consented to '${B}' beneath '${BOTH}', or rescinded it`);
      });

      it("needs the root consent the token rests on, though the token lives", async () => {
        const root = (await world.uow.repositories.consents.listForIdentities([alice.identity.id])).find((c) => c.dependency_path.length === 1)!;
        await world.services.admin.tokens.revokeConsent(root.id);
        await expect(server().dependentToken.issueDependentTokens(rs, userToken, false)).rejects.toThrow(`The user has not consented to '${BOTH}' for this client, or rescinded it`);
      });
    });
  });
});
