import { AuthenticationFailedError, ConsentRequiredError, TRANSFER_SCOPE } from '@xfer/core';
import type supertest from 'supertest';
import { BACKENDS, startPages, type Pages } from './harness';
import { CALLBACK, locationOf, oauthFlow, pkce } from './oauthFlow';

const DATA_ACCESS = 'urn:xfer:scope:storage.example.org:data_access';

interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_token: string;
  other_tokens: { access_token: string }[];
}


describe.each(BACKENDS)('OAuth 2.0 authorization server on $name', (backend) => {
  let pages: Pages;
  let publicClient: { id: string };
  let confidential: { id: string; secret: string };
  let alice: supertest.Agent;

  beforeEach(async () => {
    pages = await startPages(backend, { codeLifetimeSeconds: 1 });
    await pages.admin.clients.addScope(DATA_ACCESS, 'Read and write files on your lab storage');
    await pages.admin.clients.addScope(TRANSFER_SCOPE, 'Manage your endpoints and file transfers', { dependsOn: [DATA_ACCESS] });
    await pages.admin.clients.addScope('openid', 'Know who you are');
    publicClient = (await pages.admin.clients.addClient({ display_name: 'Native App', redirect_uris: [CALLBACK], branding: { primary_color: '#224466' } })).client;
    const added = await pages.admin.clients.addClient({ display_name: 'Web Portal', redirect_uris: [CALLBACK], public_client: false });
    confidential = { id: added.client.id, secret: added.secret! };
    await pages.userWithPassword('alice');
    alice = await pages.signedInAgent('alice');
  });
  afterEach(() => pages.close());

  const { authorizeQuery, openAuthorize, decide, token } = oauthFlow(() => pages);
  const codeFor = (clientId: string, extra: Record<string, string> = {}) => oauthFlow(() => pages).codeFor(alice, clientId, { scope: `${TRANSFER_SCOPE} openid`, ...extra });

  async function tokensForPublicClient() {
    const { verifier, challenge } = pkce();
    const code = await codeFor(publicClient.id, { code_challenge: challenge, code_challenge_method: 'S256' });
    expect((await alice.get('/v2/web/consents')).text).toContain('Last used never');
    const res = await token({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: publicClient.id, code_verifier: verifier });
    expect(res.status).toBe(200);
    return res.body as TokenResponse;
  }

  describe('authorization code grant', () => {
    it('asks consent with the client and each scope in words, dependent scopes as a tree; Allow returns a code and the state', async () => {
      const { challenge } = pkce();
      const screen = await openAuthorize(alice, { client_id: publicClient.id, scope: `${TRANSFER_SCOPE} openid`, state: 'st-1', code_challenge: challenge, code_challenge_method: 'S256' });
      expect(screen.status).toBe(200);
      expect(screen.text).toContain('<h1>Allow Native App to act for you?</h1>');
      expect(screen.text).toMatch(/Manage your endpoints and file transfers[\s\S]*it also needs to[\s\S]*<ul class="consents">[\s\S]*Read and write files on your lab storage/);
      expect(screen.text).toContain('Know who you are');
      expect(screen.text).toContain(`href="/v2/web/branding/${publicClient.id}.css"`);
      // the consent form's answer redirects to the client: its origin must be allowed for the form
      expect(screen.headers['content-security-policy']).toContain("form-action 'self' https://portal.example.org");
      const res = await decide(alice, screen, 'allow');
      expect(res.status).toBe(302);
      const back = locationOf(res);
      expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
      expect(back.searchParams.get('state')).toBe('st-1');
      expect(back.searchParams.get('code')).toMatch(/^[0-9a-f]{64}$/);
      const consents = await alice.get('/v2/web/consents');
      expect(consents.text).toMatch(/Native App[\s\S]*Manage your endpoints and file transfers[\s\S]*Read and write files on your lab storage/);
    });

    it('does not ask again for scopes already consented', async () => {
      await codeFor(publicClient.id, { code_challenge: pkce().challenge });
      const again = await openAuthorize(alice, { client_id: publicClient.id, scope: TRANSFER_SCOPE, state: 's2', code_challenge: pkce().challenge });
      expect(again.status).toBe(302);
      expect(locationOf(again).searchParams.get('code')).toBeTruthy();
      expect(locationOf(again).searchParams.get('state')).toBe('s2');
    });

    it('Deny returns access_denied with the state, and records nothing', async () => {
      const screen = await openAuthorize(alice, { client_id: confidential.id, scope: TRANSFER_SCOPE, state: 'no-thanks' });
      const res = await decide(alice, screen, 'deny');
      expect(res.status).toBe(302);
      expect(locationOf(res).searchParams.get('error')).toBe('access_denied');
      expect(locationOf(res).searchParams.get('state')).toBe('no-thanks');
      expect((await alice.get('/v2/web/consents')).text).toContain('You have not allowed any application');
    });

    it('never redirects to an unregistered redirect_uri or for an unknown client', async () => {
      for (const query of [
        `client_id=${publicClient.id}&response_type=code&scope=openid&redirect_uri=${encodeURIComponent('https://evil.example.org/callback')}`,
        `client_id=${publicClient.id}&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(`${CALLBACK}/extra`)}`,
        `client_id=${publicClient.id}&response_type=code&scope=openid`,
        `client_id=11111111-2222-4333-8444-555555555555&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(CALLBACK)}`,
      ]) {
        const res = await alice.get(`/v2/web/authorize?${query}`);
        expect(res.status).toBe(400);
        expect(res.headers.location).toBeUndefined();
        expect(res.text).toMatch(/not registered|not one it registered/);
      }
    });

    it('sends protocol errors to the client with the state: PKCE required for public clients, S256 only, unknown scope, response_type', async () => {
      const cases: [Record<string, string>, string][] = [
        [{ client_id: publicClient.id, scope: 'openid' }, 'invalid_request'],
        [{ client_id: publicClient.id, scope: 'openid', code_challenge: pkce().challenge, code_challenge_method: 'plain' }, 'invalid_request'],
        [{ client_id: confidential.id, scope: 'urn:unknown:scope' }, 'invalid_scope'],
        [{ client_id: confidential.id }, 'invalid_scope'],
        [{ client_id: confidential.id, scope: 'openid', response_type: 'token' }, 'unsupported_response_type'],
      ];
      const badState = await openAuthorize(alice, { client_id: confidential.id, scope: 'openid', state: 'caf\u00e9' });
      expect(locationOf(badState).searchParams.get('error')).toBe('invalid_request');
      for (const [params, error] of cases) {
        const res = await openAuthorize(alice, { state: 'keep-me', ...params });
        expect(res.status).toBe(302);
        expect(locationOf(res).searchParams.get('error')).toBe(error);
        expect(locationOf(res).searchParams.get('state')).toBe('keep-me');
        expect(locationOf(res).href.startsWith(CALLBACK)).toBe(true);
      }
    });

    it('sends a browser without a session to sign in first, and back to the consent screen after', async () => {
      const res = await pages.http.get(`/v2/web/authorize?${authorizeQuery({ client_id: confidential.id, scope: 'openid' })}`);
      expect(res.status).toBe(303);
      const login = new URL(res.headers.location, 'http://x');
      expect(login.pathname).toBe('/v2/web/login');
      expect(login.searchParams.get('next')).toMatch(/^\/v2\/web\/authorize\?/);
      const form = await pages.http.get(res.headers.location);
      expect(form.headers['content-security-policy']).toContain("form-action 'self' https://portal.example.org");
    });
  });

  describe('token endpoint', () => {
    it('exchanges a code with PKCE for the hosted service token shape, one token per resource server', async () => {
      const body = await tokensForPublicClient();
      expect(body).toEqual({
        access_token: expect.stringMatching(/^xfer_/),
        id_token: expect.stringMatching(/^eyJ/),
        token_type: 'Bearer',
        expires_in: 172800,
        scope: TRANSFER_SCOPE,
        refresh_token: expect.stringMatching(/^xfer_/),
        resource_server: 'transfer.api.globus.org',
        state: '_default',
        other_tokens: [
          {
            access_token: expect.stringMatching(/^xfer_/),
            token_type: 'Bearer',
            expires_in: 172800,
            scope: 'openid',
            refresh_token: expect.stringMatching(/^xfer_/),
            resource_server: 'auth.globus.org',
            state: '_default',
          },
        ],
      });
      const principal = await pages.world.services.authentication.authenticate(body.access_token);
      expect(principal.primary.username).toBe('alice');
      expect((await alice.get('/v2/web/consents')).text).not.toContain('Last used never');
      // the openid token is not for the transfer API
      await expect(pages.world.services.authentication.authenticate(body.other_tokens[0].access_token)).rejects.toThrow(ConsentRequiredError);
    });

    it('echoes the state of the token request', async () => {
      const { verifier, challenge } = pkce();
      const code = await codeFor(publicClient.id, { code_challenge: challenge });
      const res = await token({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: publicClient.id, code_verifier: verifier, state: 'abc' });
      expect(res.body.state).toBe('abc');
      expect(res.body.other_tokens[0].state).toBe('abc');
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('refuses a reused code, and an expired one', async () => {
      const { verifier, challenge } = pkce();
      const code = await codeFor(publicClient.id, { code_challenge: challenge });
      const form = { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: publicClient.id, code_verifier: verifier };
      const first = await token(form);
      expect(first.status).toBe(200);
      const reused = await token(form);
      expect(reused.status).toBe(400);
      expect(reused.body.error).toBe('invalid_grant');
      // a code presented twice was probably stolen: what it was exchanged for stops working
      for (const t of [first.body.access_token, first.body.other_tokens[0].access_token]) {
        await expect(pages.world.services.authentication.authenticate(t)).rejects.toThrow(AuthenticationFailedError);
      }
      expect((await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: publicClient.id })).body.error).toBe('invalid_grant');

      const late = pkce();
      const lateCode = await codeFor(publicClient.id, { code_challenge: late.challenge });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const expired = await token({ ...form, code: lateCode, code_verifier: late.verifier });
      expect(expired.status).toBe(400);
      expect(expired.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/expired/) });
    });

    it('refuses a wrong PKCE verifier, and the code is spent after it', async () => {
      const { verifier, challenge } = pkce();
      const code = await codeFor(publicClient.id, { code_challenge: challenge });
      const form = { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: publicClient.id };
      const wrong = await token({ ...form, code_verifier: pkce().verifier });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe('invalid_grant');
      expect((await token({ ...form, code_verifier: verifier })).body.error).toBe('invalid_grant');
      // a public client cannot skip the verifier either
      const other = pkce();
      const code2 = await codeFor(publicClient.id, { code_challenge: other.challenge });
      expect((await token({ ...form, code: code2 })).body.error).toBe('invalid_client');
    });

    it('refuses a redirect_uri other than the one the code was issued for', async () => {
      const { verifier, challenge } = pkce();
      const code = await codeFor(publicClient.id, { code_challenge: challenge });
      const res = await token({ grant_type: 'authorization_code', code, redirect_uri: 'https://portal.example.org/other', client_id: publicClient.id, code_verifier: verifier });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/invalid_request|invalid_grant/);
    });

    it('authenticates confidential clients by secret: a wrong one is invalid_client (401 with basic auth)', async () => {
      const code = await codeFor(confidential.id);
      const form = { grant_type: 'authorization_code', code, redirect_uri: CALLBACK };
      const wrongBasic = await token(form, [confidential.id, 'not-the-secret']);
      expect(wrongBasic.status).toBe(401);
      expect(wrongBasic.body.error).toBe('invalid_client');
      expect(wrongBasic.headers['www-authenticate']).toMatch(/^Basic/);
      const wrongBody = await token({ ...form, client_id: confidential.id, client_secret: 'nope' });
      expect(wrongBody.body.error).toBe('invalid_client');
      const noSecret = await token({ ...form, client_id: confidential.id });
      expect(noSecret.status).toBe(400);
      const ok = await token(form, [confidential.id, confidential.secret]);
      expect(ok.status).toBe(200);
      expect(ok.body.resource_server).toBe('transfer.api.globus.org');
    });

    it('client_credentials: a confidential client gets a token as its own identity; a public client may not', async () => {
      const res = await token({ grant_type: 'client_credentials', scope: TRANSFER_SCOPE }, [confidential.id, confidential.secret]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ token_type: 'Bearer', scope: TRANSFER_SCOPE, resource_server: 'transfer.api.globus.org', refresh_token: null, other_tokens: [] });
      const principal = await pages.world.services.authentication.authenticate(res.body.access_token);
      expect(principal.primary.username).toBe(`${confidential.id}@clients.auth.globus.org`);
      expect((await token({ grant_type: 'client_credentials', scope: TRANSFER_SCOPE, client_id: publicClient.id })).body.error).toMatch(/invalid_client|unauthorized_client/);
      expect((await token({ grant_type: 'client_credentials', scope: 'urn:unknown' }, [confidential.id, confidential.secret])).body.error).toBe('invalid_scope');
    });

    it('refreshes with the same refresh token; after revocation the refresh token and its access tokens are refused', async () => {
      const body = await tokensForPublicClient();
      const refreshed = await token({ grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: publicClient.id });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body).toMatchObject({ scope: TRANSFER_SCOPE, refresh_token: body.refresh_token, resource_server: 'transfer.api.globus.org', other_tokens: [] });
      expect(refreshed.body.access_token).not.toBe(body.access_token);
      await pages.world.services.authentication.authenticate(refreshed.body.access_token);

      const revoke = await pages.http.post('/v2/oauth2/token/revoke').type('form').send({ token: body.refresh_token, client_id: publicClient.id });
      expect(revoke.status).toBe(200);
      const after = await token({ grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: publicClient.id });
      expect(after.status).toBe(400);
      expect(after.body.error).toBe('invalid_grant');
      for (const t of [body.access_token, refreshed.body.access_token]) {
        await expect(pages.world.services.authentication.authenticate(t)).rejects.toThrow(AuthenticationFailedError);
      }
    });

    it('answers RFC 6749 errors for malformed requests', async () => {
      expect((await token({ grant_type: 'password', username: 'a', password: 'b' }, [confidential.id, confidential.secret])).body.error).toMatch(/unsupported_grant_type|unauthorized_client/);
      expect((await token({ grant_type: 'made_up' }, [confidential.id, confidential.secret])).body.error).toBe('unsupported_grant_type');
      expect((await token({ grant_type: 'authorization_code' }, [confidential.id, confidential.secret])).body.error).toBe('invalid_request');
      const json = await pages.http.post('/v2/oauth2/token').send({ grant_type: 'client_credentials' });
      expect(json.status).toBe(400);
      expect(json.body.error).toBe('invalid_request');
      const garbage = await pages.http.post('/v2/oauth2/token').type('form').send('%%%');
      expect(garbage.status).toBe(400);
      expect(garbage.headers['content-type']).toMatch(/json/);
    });
  });

  describe('introspection and revocation', () => {
    it('introspects for the client the token was issued to and for its resource server, with identity_set', async () => {
      await pages.admin.identities.addIdentity({ username: 'alice@orcid.example.org' });
      await pages.admin.identities.linkIdentities('alice', 'alice@orcid.example.org');
      const code = await codeFor(confidential.id);
      const issued = (await token({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK }, [confidential.id, confidential.secret])).body;
      const introspect = (auth: [string, string], form: Record<string, string>) => pages.http.post('/v2/oauth2/token/introspect').type('form').auth(auth[0], auth[1]).send(form);

      const own = await introspect([confidential.id, confidential.secret], { token: issued.access_token, include: 'identity_set' });
      expect(own.status).toBe(200);
      expect(own.body).toMatchObject({
        active: true,
        token_type: 'Bearer',
        scope: TRANSFER_SCOPE,
        client_id: confidential.id,
        username: 'alice',
        aud: ['transfer.api.globus.org', confidential.id],
        exp: expect.any(Number),
      });
      expect(own.body.identity_set).toHaveLength(2);
      expect(own.body.identity_set[0]).toBe(own.body.sub);

      const stranger = await pages.admin.clients.addClient({ display_name: 'Stranger', public_client: false });
      expect((await introspect([stranger.client.id, stranger.secret!], { token: issued.access_token })).body).toEqual({ active: false });
      const transfer = await pages.admin.clients.addClient({ display_name: 'Transfer', public_client: false, resource_server: 'transfer.api.globus.org' });
      expect((await introspect([transfer.client.id, transfer.secret!], { token: issued.access_token })).body).toMatchObject({ active: true, sub: own.body.sub });
      expect((await introspect([confidential.id, 'wrong'], { token: issued.access_token })).status).toBe(401);
      expect((await introspect([confidential.id, confidential.secret], {})).status).toBe(400);

      await pages.http.post('/v2/oauth2/token/revoke').type('form').auth(confidential.id, confidential.secret).send({ token: issued.access_token });
      expect((await introspect([confidential.id, confidential.secret], { token: issued.access_token })).body).toEqual({ active: false });
      await expect(pages.world.services.authentication.authenticate(issued.access_token)).rejects.toThrow(AuthenticationFailedError);
    });

    it('revocation ignores tokens of other clients and unknown tokens (200 either way)', async () => {
      const body = await tokensForPublicClient();
      const other = await pages.http.post('/v2/oauth2/token/revoke').type('form').auth(confidential.id, confidential.secret).send({ token: body.access_token });
      expect(other.status).toBe(200);
      await pages.world.services.authentication.authenticate(body.access_token);
      expect((await pages.http.post('/v2/oauth2/token/revoke').type('form').auth(confidential.id, confidential.secret).send({ token: 'unknown' })).status).toBe(200);
      expect((await pages.http.post('/v2/oauth2/token/revoke').type('form').auth(confidential.id, 'wrong').send({ token: 'x' })).status).toBe(401);
    });
  });

  describe('userinfo', () => {
    it('says who signed in to a token with openid: more with profile, email and view_identity_set', async () => {
      await pages.admin.clients.addScope('profile', 'Know your name');
      await pages.admin.clients.addScope('email', 'Know your e-mail address');
      await pages.admin.clients.addScope('urn:globus:auth:scope:auth.globus.org:view_identity_set', 'Know your linked identities');
      const { verifier, challenge } = pkce();
      const code = await codeFor(publicClient.id, { code_challenge: challenge, scope: 'openid profile email urn:globus:auth:scope:auth.globus.org:view_identity_set' });
      const body = (await token({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: publicClient.id, code_verifier: verifier })).body;
      expect(body.resource_server).toBe('auth.globus.org');
      const info = await pages.http.get('/v2/oauth2/userinfo').set('Authorization', `Bearer ${body.access_token}`);
      expect(info.status).toBe(200);
      expect(info.body).toMatchObject({ sub: expect.any(String), preferred_username: 'alice', email: null, identity_provider_display_name: 'xfer local accounts' });
      expect(info.body.identity_set).toEqual([expect.objectContaining({ sub: info.body.sub, username: 'alice' })]);

      const { access_token: transferOnly } = await tokensForPublicClient();
      const noOpenid = await pages.http.get('/v2/oauth2/userinfo').set('Authorization', `Bearer ${transferOnly}`);
      expect(noOpenid.status).toBe(403);
      expect(noOpenid.body.error).toBe('insufficient_scope');
      const bad = await pages.http.post('/v2/oauth2/userinfo').set('Authorization', 'Bearer nope');
      expect(bad.status).toBe(401);
      expect(bad.headers['www-authenticate']).toContain('invalid_token');
    });
  });

  describe('auth-code page for native apps', () => {
    it('shows the code to copy, escaped, never cached, and sends no referrer', async () => {
      const res = await pages.http.get('/v2/web/auth-code?code=abc123&state=s');
      expect(res.text).toContain('<code class="auth-code" id="auth-code">abc123</code>');
      expect(res.text).toContain('<button type="button" class="copy" data-copy="auth-code" hidden>Copy</button>');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      const denied = await pages.http.get(`/v2/web/auth-code?error=${encodeURIComponent('<b>access_denied</b>')}`);
      expect(denied.text).toContain('<h1>No authorization code</h1>');
      expect(denied.text).toContain('&lt;b&gt;access_denied&lt;/b&gt;');
    });
  });

  describe('rescind', () => {
    it('removes the consents of a client and revokes every token issued under them; needs the CSRF token', async () => {
      const body = await tokensForPublicClient();
      const page = await alice.get('/v2/web/consents');
      expect(page.text).toContain('Native App');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];

      const forged = await alice.post('/v2/web/consents/rescind').type('form').send({ client_id: publicClient.id });
      expect(forged.status).toBe(403);
      expect(forged.text).toContain('The form expired or did not come from this site');
      await pages.world.services.authentication.authenticate(body.access_token);

      const res = await alice.post('/v2/web/consents/rescind').type('form').send({ _csrf: csrf, client_id: publicClient.id, next: '/v2/web/consents' });
      expect(res.status).toBe(303);
      const after = await alice.get(res.headers.location);
      expect(after.text).toContain('You rescinded your consents to Native App');
      expect(after.text).toContain('You have not allowed any application');
      for (const t of [body.access_token, body.other_tokens[0].access_token]) {
        await expect(pages.world.services.authentication.authenticate(t)).rejects.toThrow(AuthenticationFailedError);
      }
      const refresh = await token({ grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: publicClient.id });
      expect(refresh.body.error).toBe('invalid_grant');
      // the next authorization asks again
      const again = await openAuthorize(alice, { client_id: publicClient.id, scope: TRANSFER_SCOPE, code_challenge: pkce().challenge });
      expect(again.status).toBe(200);
    });
  });
});
