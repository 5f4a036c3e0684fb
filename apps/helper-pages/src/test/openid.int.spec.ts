import { createHash } from 'node:crypto';
import { TRANSFER_SCOPE, VIEW_IDENTITY_SET_SCOPE } from '@xfer/core';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import type supertest from 'supertest';
import { BACKENDS, startPages, type Pages } from './harness';
import { CALLBACK, oauthFlow, pkce } from './oauthFlow';

const ISSUER = 'https://auth.example.org';
const DATA_ACCESS = 'urn:xfer:scope:storage.example.org:data_access';

/** at_hash computed here from its definition (OpenID Connect Core 3.1.3.6), not by the code under test. */
const atHash = (accessToken: string) => createHash('sha512').update(accessToken).digest().subarray(0, 32).toString('base64url');

describe.each(BACKENDS)('OpenID Connect on $name', (backend) => {
  let pages: Pages;
  let app: { id: string };
  let resourceServer: { id: string; secret: string };
  let alice: supertest.Agent;
  let aliceId: string;
  const flow = oauthFlow(() => pages);

  beforeEach(async () => {
    pages = await startPages(backend, { issuer: ISSUER }, { issuer: ISSUER });
    const { admin } = pages;
    await admin.clients.addScope(DATA_ACCESS, 'Read and write files on your lab storage');
    await admin.clients.addScope(TRANSFER_SCOPE, 'Manage your endpoints and file transfers', { dependsOn: [DATA_ACCESS] });
    for (const scope of ['openid', 'profile', 'email', VIEW_IDENTITY_SET_SCOPE]) await admin.clients.addScope(scope, `OpenID ${scope}`);
    app = (await admin.clients.addClient({ display_name: 'Native App', redirect_uris: [CALLBACK] })).client;
    const rs = await admin.clients.addClient({ display_name: 'Transfer service', public_client: false, resource_server: 'transfer.api.globus.org' });
    resourceServer = { id: rs.client.id, secret: rs.secret! };
    aliceId = (await pages.userWithPassword('alice', { name: 'Alice Example', email: 'alice@example.org', organization: 'Example U' })).id;
    await pages.userWithPassword('alice@orcid.example.org');
    await admin.identities.linkIdentities('alice', 'alice@orcid.example.org');
    alice = await pages.signedInAgent('alice');
  });
  afterEach(() => pages.close());

  async function signIn(scope: string, extra: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    const code = await flow.codeFor(alice, app.id, { scope, code_challenge: challenge, ...extra });
    const res = await flow.token({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: app.id, code_verifier: verifier });
    expect(res.status).toBe(200);
    return res.body as { access_token: string; refresh_token: string; id_token?: string; other_tokens: { access_token: string; resource_server: string }[] };
  }

  async function publishedKeys(): Promise<JSONWebKeySet> {
    const res = await pages.http.get('/jwk.json');
    expect(res.status).toBe(200);
    return res.body as JSONWebKeySet;
  }

  const verify = async (idToken: string) => (await jwtVerify(idToken, createLocalJWKSet(await publishedKeys()), { issuer: ISSUER, audience: app.id, algorithms: ['RS512'] })).payload;

  it('publishes a discovery document naming every endpoint under the issuer, and the keys at its jwks_uri', async () => {
    const res = await pages.http.get('/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/v2/oauth2/authorize`,
      token_endpoint: `${ISSUER}/v2/oauth2/token`,
      userinfo_endpoint: `${ISSUER}/v2/oauth2/userinfo`,
      jwks_uri: `${ISSUER}/jwk.json`,
      revocation_endpoint: `${ISSUER}/v2/oauth2/token/revoke`,
      introspection_endpoint: `${ISSUER}/v2/oauth2/token/introspect`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS512'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: expect.arrayContaining(['authorization_code', 'refresh_token', 'urn:globus:auth:grant_type:dependent_token']),
      claims_supported: expect.arrayContaining(['sub', 'nonce', 'at_hash', 'identity_set', 'last_authentication']),
    });
    expect(res.body.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', TRANSFER_SCOPE, DATA_ACCESS]));
    const { keys } = await publishedKeys();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS512', use: 'sig', kid: expect.any(String) });
    expect(keys[0]).not.toHaveProperty('d');
  });

  it('signs an id_token the published keys verify: issuer, audience, expiry, nonce, at_hash and who signed in when', async () => {
    const before = Math.floor(Date.now() / 1000);
    const tokens = await signIn(`openid profile email ${VIEW_IDENTITY_SET_SCOPE} ${TRANSFER_SCOPE}`, { nonce: 'n-0S6_WzA2Mj' });
    const claims = await verify(tokens.id_token!);
    expect(claims).toMatchObject({
      iss: ISSUER,
      sub: aliceId,
      aud: app.id,
      nonce: 'n-0S6_WzA2Mj',
      at_hash: atHash(tokens.access_token),
      preferred_username: 'alice',
      name: 'Alice Example',
      email: 'alice@example.org',
      organization: 'Example U',
      identity_provider_display_name: 'xfer local accounts',
    });
    expect(claims.exp! - claims.iat!).toBe(48 * 60 * 60);
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.last_authentication).toBeGreaterThanOrEqual(before - 5);
    expect(claims.last_authentication).toBeLessThanOrEqual(claims.iat!);
    expect((claims.identity_set as { username: string }[]).map((i) => i.username)).toEqual(['alice', 'alice@orcid.example.org']);
    await expect(jwtVerify(tokens.id_token!, createLocalJWKSet(await publishedKeys()), { issuer: ISSUER, audience: resourceServer.id })).rejects.toThrow();
  });

  it('says only what the scopes allow, and nothing without openid', async () => {
    const plain = await signIn('openid');
    const claims = await verify(plain.id_token!);
    expect(claims).not.toHaveProperty('email');
    expect(claims).not.toHaveProperty('identity_set');
    expect(claims).not.toHaveProperty('nonce');
    const noOpenId = await signIn(TRANSFER_SCOPE);
    expect(noOpenId).not.toHaveProperty('id_token');
  });

  it('gives a fresh id_token with a refresh (no nonce, the original sign-in time)', async () => {
    const first = await signIn(`openid ${TRANSFER_SCOPE}`, { nonce: 'abc' });
    const original = await verify(first.id_token!);
    const refreshed = await flow.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: app.id });
    expect(refreshed.status).toBe(200);
    const claims = await verify(refreshed.body.id_token);
    expect(claims).not.toHaveProperty('nonce');
    expect(claims.at_hash).toBe(atHash(refreshed.body.access_token));
    expect(claims.last_authentication).toBe(original.last_authentication);
  });

  it('rotates keys: new tokens are signed with the new key, tokens signed before still verify', async () => {
    const before = await signIn('openid');
    const oldKid = decodeProtectedHeader(before.id_token!).kid;
    const rotated = await pages.runtime.services.idTokens.rotate();
    expect(rotated.retired).toEqual([oldKid]);
    const after = await signIn('openid');
    expect(decodeProtectedHeader(after.id_token!).kid).toBe(rotated.kid);
    expect((await publishedKeys()).keys.map((k) => k.kid).sort()).toEqual([oldKid, rotated.kid].sort());
    await verify(before.id_token!);
    await verify(after.id_token!);
  });

  it('asks for a sign-in again with prompt=login or a max_age passed, and ignores session_required_identities', async () => {
    for (const extra of [{ prompt: 'login' }, { max_age: '0' }] as Record<string, string>[]) {
      const first = await alice.get(`/v2/oauth2/authorize?${flow.authorizeQuery({ client_id: app.id, scope: 'openid', code_challenge: pkce().challenge, ...extra })}`);
      const res = await alice.get(first.headers.location);
      expect(res.status).toBe(303);
      const login = new URL(res.headers.location, 'http://x');
      expect(login.pathname).toBe('/v2/web/login');
      expect(login.searchParams.get('next')).not.toMatch(/prompt|max_age/);
    }
    const recent = await flow.openAuthorize(alice, { client_id: app.id, scope: 'openid', code_challenge: pkce().challenge, max_age: '3600', session_required_identities: aliceId });
    expect(recent.status).toBe(200);
    expect(recent.text).toContain('Allow');
  });

  describe('dependent tokens', () => {
    const dependent = (token: string, auth: [string, string], extra: Record<string, string> = {}) =>
      flow.token({ grant_type: 'urn:globus:auth:grant_type:dependent_token', token, ...extra }, auth);
    const transferToken = (tokens: Awaited<ReturnType<typeof signIn>>) => tokens.access_token;

    it('gives a resource server tokens for the scopes its token depends on, offline with refresh tokens, and stamps the consents used', async () => {
      const tokens = await signIn(TRANSFER_SCOPE);
      const res = await dependent(transferToken(tokens), [resourceServer.id, resourceServer.secret]);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([expect.objectContaining({ resource_server: 'storage.example.org', scope: DATA_ACCESS, token_type: 'Bearer', refresh_token: null })]);
      const introspected = await pages.http.post('/v2/oauth2/token/introspect').auth(resourceServer.id, resourceServer.secret).type('form').send({ token: res.body[0].access_token });
      // the dependent token is the resource server's own, for the user
      expect(introspected.body).toMatchObject({ active: true, client_id: resourceServer.id, sub: aliceId, scope: DATA_ACCESS });
      const offline = await dependent(transferToken(tokens), [resourceServer.id, resourceServer.secret], { access_type: 'offline' });
      expect(offline.body[0].refresh_token).toMatch(/^xfer_/);
      const refreshed = await flow.token({ grant_type: 'refresh_token', refresh_token: offline.body[0].refresh_token }, [resourceServer.id, resourceServer.secret]);
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.scope).toBe(DATA_ACCESS);
      const consents = await pages.admin.tokens.listConsents('alice');
      expect(consents.find((c) => c.scope_name === DATA_ACCESS)?.last_used).not.toBeNull();
    });

    it('refuses public clients, clients of another resource server, dead tokens, and a dependent consent that was revoked', async () => {
      const tokens = await signIn(TRANSFER_SCOPE);
      const other = await pages.admin.clients.addClient({ display_name: 'Other RS', public_client: false, resource_server: 'other.example.org' });
      const plain = await pages.admin.clients.addClient({ display_name: 'Plain', public_client: false });
      expect((await dependent(transferToken(tokens), [app.id, ''])).status).toBe(401);
      expect((await dependent(transferToken(tokens), [resourceServer.id, 'wrong'])).status).toBe(401);
      expect((await dependent(transferToken(tokens), [plain.client.id, plain.secret!])).body.error).toBe('unauthorized_client');
      expect((await dependent(transferToken(tokens), [other.client.id, other.secret!])).body.error).toBe('invalid_grant');
      expect((await dependent('xfer_nope', [resourceServer.id, resourceServer.secret])).body.error).toBe('invalid_grant');
      const offline = await dependent(transferToken(tokens), [resourceServer.id, resourceServer.secret], { access_type: 'offline' });
      const child = (await pages.admin.tokens.listConsents('alice')).find((c) => c.scope_name === DATA_ACCESS)!;
      await pages.admin.tokens.revokeConsent(child.id);
      const refused = await dependent(transferToken(tokens), [resourceServer.id, resourceServer.secret]);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining(DATA_ACCESS) });
      const refresh = await flow.token({ grant_type: 'refresh_token', refresh_token: offline.body[0].refresh_token }, [resourceServer.id, resourceServer.secret]);
      expect(refresh.body.error).toBe('invalid_grant');
    });
  });
});
