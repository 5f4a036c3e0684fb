import { BadRequestError, PROVISION_LIMIT, TRANSFER_SCOPE } from '@xfer/core';
import supertest from 'supertest';
import { BACKENDS, sharedDatabase, startPages, type Pages } from './harness';
import { CALLBACK, locationOf, oauthFlow, pkce } from './oauthFlow';

const VIEW_IDENTITY_SET = 'urn:globus:auth:scope:auth.globus.org:view_identity_set';

/** Findings of the second security review on the authorization service, each kept fixed on every database. */
describe.each(BACKENDS)('security review two, authorization service, on $name', (backend) => {
  let pages: Pages;
  beforeEach(async () => {
    pages = await startPages(backend);
  });
  afterEach(() => pages.close());

  const identities = (token: string, query: string) => pages.http.get(`/v2/api/identities${query}`).set('Authorization', `Bearer ${token}`);

  it('finding 6: the identities routes show no e-mail address to a token without the email scope, the caller\'s own included', async () => {
    const alice = await pages.admin.identities.addIdentity({ username: 'alice@example.org', email: 'alice@example.org' });
    await pages.admin.identities.addIdentity({ username: 'alice@orcid.example.org', email: 'a@orcid.example.org' });
    await pages.admin.identities.linkIdentities('alice@example.org', 'alice@orcid.example.org');
    const without = (await pages.admin.tokens.issueToken('alice@example.org', null, `openid profile ${VIEW_IDENTITY_SET}`)).token;
    const withEmail = (await pages.admin.tokens.issueToken('alice@example.org', null, `openid email ${VIEW_IDENTITY_SET}`)).token;
    const query = '?usernames=alice@example.org,alice@orcid.example.org';
    expect((await identities(without, query)).body.identities.map((i: { email: string | null }) => i.email)).toEqual([null, null]);
    expect((await identities(without, `?ids=${alice.id}`)).body.identities[0].email).toBeNull();
    expect((await identities(without, `/${alice.id}`)).body.identity.email).toBeNull();
    expect((await identities(withEmail, query)).body.identities.map((i: { email: string | null }) => i.email)).toEqual(['alice@example.org', 'a@orcid.example.org']);
    expect((await identities(withEmail, `/${alice.id}`)).body.identity.email).toBe('alice@example.org');
  });

  it('finding 10: prompt=none never shows a page: login_required without a session, consent_required without consent, a code with both', async () => {
    await pages.admin.clients.addScope(TRANSFER_SCOPE, 'Manage your endpoints');
    const client = (await pages.admin.clients.addClient({ display_name: 'Portal', redirect_uris: [CALLBACK] })).client;
    await pages.userWithPassword('alice');
    const { challenge } = pkce();
    const query = (extra: Record<string, string> = {}) =>
      new URLSearchParams({ response_type: 'code', redirect_uri: CALLBACK, client_id: client.id, scope: TRANSFER_SCOPE, state: 's-1', prompt: 'none', code_challenge: challenge, code_challenge_method: 'S256', ...extra }).toString();
    const silently = async (agent: supertest.Agent, extra: Record<string, string> = {}) => {
      const res = await agent.get(`/v2/web/authorize?${query(extra)}`);
      expect(res.status).toBe(302);
      const back = locationOf(res);
      expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
      expect(back.searchParams.get('state')).toBe('s-1');
      return back.searchParams;
    };
    expect((await silently(supertest.agent(pages.app))).get('error')).toBe('login_required');
    const alice = await pages.signedInAgent('alice');
    expect((await silently(alice)).get('error')).toBe('consent_required');
    expect((await silently(alice, { prompt: 'none login' })).get('error')).toBe('invalid_request');
    const { codeFor } = oauthFlow(() => pages);
    await codeFor(alice, client.id, { scope: TRANSFER_SCOPE, code_challenge: challenge, code_challenge_method: 'S256' });
    const granted = await silently(alice);
    expect(granted.get('error')).toBeNull();
    expect(granted.get('code')).toEqual(expect.any(String));
  });

  describe('finding 2: identity provisioning', () => {
    it("never takes a client's username: the client's own grant keeps working, and the operator cannot add one either", async () => {
      await pages.admin.clients.addScope(TRANSFER_SCOPE, 'Manage your endpoints');
      const added = await pages.admin.clients.addClient({ display_name: 'Robot', redirect_uris: [CALLBACK], public_client: false });
      const bob = (await pages.admin.tokens.issueToken((await pages.admin.identities.addIdentity({ username: 'bob@example.org' })).username, null, VIEW_IDENTITY_SET)).token;
      for (const spelling of [`${added.client.id}@clients.auth.globus.org`, `${added.client.id.toUpperCase()}@Clients.Auth.Globus.org`]) {
        // the client's own identity (made with the client), never one provisioned in its name
        const res = await identities(bob, `?usernames=${spelling}&provision=true`);
        expect(res.status).toBe(200);
        expect(res.body.identities).toEqual([expect.objectContaining({ id: added.client.id, identity_type: 'client', status: 'used' })]);
      }
      const other = `${'0'.repeat(8)}-0000-4000-8000-000000000000@clients.auth.globus.org`;
      expect((await identities(bob, `?usernames=${other}&provision=true`)).body.identities).toEqual([]);
      const grant = await pages.http.post('/v2/oauth2/token').type('form').auth(added.client.id, added.secret!).send({ grant_type: 'client_credentials', scope: TRANSFER_SCOPE });
      expect(grant.status).toBe(200);
      const robot = (await identities(bob, `?usernames=${added.client.id}@clients.auth.globus.org`)).body.identities;
      expect(robot).toEqual([expect.objectContaining({ id: added.client.id, identity_type: 'client' })]);
      await expect(pages.admin.identities.addIdentity({ username: 'someone@clients.auth.globus.org' })).rejects.toThrow(BadRequestError);
    });

    it('compares usernames without regard to case: lookup, provisioning and the operator resolve to the one identity', async () => {
      const bob = (await pages.admin.tokens.issueToken((await pages.admin.identities.addIdentity({ username: 'bob@example.org' })).username, null, VIEW_IDENTITY_SET)).token;
      const made = await identities(bob, '?usernames=Carol@Example.org,carol@example.org&provision=true');
      expect(made.body.identities).toEqual([expect.objectContaining({ username: 'Carol@Example.org', status: 'unused' })]);
      const again = await identities(bob, '?usernames=CAROL@EXAMPLE.ORG&provision=true');
      expect(again.body.identities.map((i: { id: string }) => i.id)).toEqual([made.body.identities[0].id]);
      expect((await identities(bob, '?usernames=carol@example.org')).body.identities[0].username).toBe('Carol@Example.org');
      await expect(pages.admin.identities.addIdentity({ username: 'carol@example.ORG' })).rejects.toThrow(/already exists/);
      expect((await pages.admin.tokens.issueToken('carol@example.org')).identity_id).toBe(made.body.identities[0].id);
    });

    it(`provisions at most ${PROVISION_LIMIT.identities} identities per caller in a window, counted across instances (429 with Retry-After)`, async () => {
      const database = await sharedDatabase(backend);
      const first = await startPages(backend, {}, {}, database);
      const second = await startPages(backend, {}, {}, database);
      try {
        const bob = (await first.admin.tokens.issueToken((await first.admin.identities.addIdentity({ username: 'bob@example.org' })).username, null, VIEW_IDENTITY_SET)).token;
        const carol = (await first.admin.tokens.issueToken((await first.admin.identities.addIdentity({ username: 'carol@example.org' })).username, null, VIEW_IDENTITY_SET)).token;
        const names = (from: number, count: number) => Array.from({ length: count }, (_, i) => `user${from + i}@example.org`).join(',');
        const ask = (pagesApp: Pages, token: string, query: string) => pagesApp.http.get(`/v2/api/identities${query}`).set('Authorization', `Bearer ${token}`);
        expect((await ask(first, bob, `?usernames=${names(0, PROVISION_LIMIT.identities)}&provision=true`)).body.identities).toHaveLength(PROVISION_LIMIT.identities);
        const over = await ask(second, bob, `?usernames=${names(1000, 1)}&provision=true`);
        expect(over.status).toBe(429);
        expect(over.body.code).toBe('TooManyRequests');
        expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
        expect((await ask(second, bob, `?usernames=${names(1000, 1)}`)).body.identities).toEqual([]);
        // looking up what exists is not provisioning, and another caller has a count of its own
        expect((await ask(second, bob, `?usernames=${names(0, 3)}&provision=true`)).status).toBe(200);
        expect((await ask(second, carol, `?usernames=${names(1000, 1)}&provision=true`)).body.identities).toHaveLength(1);
      } finally {
        await first.close();
        await second.close();
        await database.drop();
      }
    });
  });

  it('finding 8: an over-long username on the identities route is a 400 JSON document naming the field, on every database', async () => {
    const bob = (await pages.admin.tokens.issueToken((await pages.admin.identities.addIdentity({ username: 'bob@example.org' })).username, null, VIEW_IDENTITY_SET)).token;
    // 257 characters that the username pattern alone allows (64 before the @, a domain of 192)
    const long = `${'a'.repeat(64)}@${'b'.repeat(188)}.org`;
    for (const query of [`?usernames=${long}`, `?usernames=${long}&provision=true`]) {
      const res = await identities(bob, query);
      expect({ query, status: res.status, type: res.type }).toEqual({ query, status: 400, type: 'application/json' });
      expect(res.body.message).toContain('usernames');
    }
    await expect(pages.admin.identities.addIdentity({ username: long })).rejects.toThrow(/at most 255 characters/);
  });

  it("finding 4: rescinding a consent revokes the dependent tokens a resource server got through it, online and offline, on every instance", async () => {
    const database = await sharedDatabase(backend);
    const first = await startPages(backend, {}, {}, database);
    const second = await startPages(backend, {}, {}, database);
    try {
      const { admin } = first;
      const dataAccess = 'urn:xfer:scope:storage.example.org:data_access';
      await admin.clients.addScope(dataAccess, 'Read and write files on your lab storage');
      await admin.clients.addScope(TRANSFER_SCOPE, 'Manage your endpoints', { dependsOn: [dataAccess] });
      const app = (await admin.clients.addClient({ display_name: 'Native App', redirect_uris: [CALLBACK] })).client;
      const rs = await admin.clients.addClient({ display_name: 'Transfer service', public_client: false, resource_server: 'transfer.api.globus.org' });
      const rsAuth: [string, string] = [rs.client.id, rs.secret!];
      await first.userWithPassword('alice');
      const alice = await first.signedInAgent('alice');
      const flow = oauthFlow(() => first);
      const { verifier, challenge } = pkce();
      const code = await flow.codeFor(alice, app.id, { scope: TRANSFER_SCOPE, code_challenge: challenge, code_challenge_method: 'S256' });
      const user = (await flow.token({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: app.id, code_verifier: verifier })).body;
      const dependent = (extra: Record<string, string>) => flow.token({ grant_type: 'urn:globus:auth:grant_type:dependent_token', token: user.access_token, ...extra }, rsAuth);
      const online = (await dependent({})).body[0];
      const offline = (await dependent({ access_type: 'offline' })).body[0];
      const refreshed = (await flow.token({ grant_type: 'refresh_token', refresh_token: offline.refresh_token }, rsAuth)).body;
      const active = async (token: string) =>
        (await second.http.post('/v2/oauth2/token/introspect').auth(...rsAuth).type('form').send({ token })).body.active as boolean;
      for (const token of [online.access_token, offline.access_token, refreshed.access_token]) expect(await active(token)).toBe(true);

      const page = await alice.get('/v2/web/consents');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
      expect((await alice.post('/v2/web/consents/rescind').type('form').send({ _csrf: csrf, client_id: app.id })).status).toBe(303);

      for (const token of [user.access_token, online.access_token, offline.access_token, refreshed.access_token]) expect(await active(token)).toBe(false);
      const again = await second.http.post('/v2/oauth2/token').type('form').auth(...rsAuth).send({ grant_type: 'refresh_token', refresh_token: offline.refresh_token });
      expect(again.body.error).toBe('invalid_grant');
    } finally {
      await first.close();
      await second.close();
      await database.drop();
    }
  });
});
