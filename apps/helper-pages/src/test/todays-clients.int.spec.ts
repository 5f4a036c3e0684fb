import { CLI_TEMPLATE_CLIENT, FLOWS_SCOPE, STANDARD_SCOPES, TIMER_SCOPE, TRANSFER_SCOPE, VIEW_IDENTITY_SET_SCOPE } from '@xfer/core';
import type { AddressInfo } from 'node:net';
import { auth } from '@globus/sdk';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import supertest from 'supertest';
import { BACKENDS, PASSWORD, startPages, type Pages } from './harness';

/** Where the browser reached the service in these tests (supertest sends it as the Host). */
const HOST = 'auth.example.org';
const AUTH_CODE_PAGE = `http://${HOST}/v2/web/auth-code`;
/** What `globus login` of CLI 3.42 asks for. */
const CLI_SCOPES = [
  'openid', 'profile', 'email', VIEW_IDENTITY_SET_SCOPE, TRANSFER_SCOPE,
  'urn:globus:auth:scope:groups.api.globus.org:all', 'urn:globus:auth:scope:search.api.globus.org:all',
  `${TIMER_SCOPE}[${TRANSFER_SCOPE}]`, FLOWS_SCOPE,
];
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1];

/** `globus login --no-local-server`, `whoami`, `session show` and `logout` of the hosted CLI 3.42, step by step over HTTP. */
describe.each(BACKENDS)("today's CLI against the authorization service on $name", (backend) => {
  let pages: Pages;
  let aliceId: string;
  beforeEach(async () => {
    pages = await startPages(backend);
    await pages.admin.clients.installStandardCatalogue();
    aliceId = (await pages.userWithPassword('alice@example.org', { email: 'alice@example.org', name: 'Alice' })).id;
  });
  afterEach(() => pages.close());

  const host = (request: supertest.Test) => request.set('Host', HOST);

  /** Step 1: the CLI makes a client of its own from its built-in one, without credentials. */
  async function templatedClient(): Promise<{ id: string; secret: string }> {
    const res = await host(pages.http.post('/v2/api/clients')).send({ client: { template_id: CLI_TEMPLATE_CLIENT.id, name: 'Globus CLI' } });
    expect(res.status).toBe(200);
    expect(res.body.client).toMatchObject({ name: 'Globus CLI', public_client: false, redirect_uris: [AUTH_CODE_PAGE], parent_client: CLI_TEMPLATE_CLIENT.id });
    const { client, secret } = res.body.included.client_credential;
    expect(client).toBe(res.body.client.id);
    return { id: client, secret };
  }

  /** Steps 2 and 3: the browser signs in and allows, the user pastes the code, the CLI exchanges it. */
  async function login(cli: { id: string; secret: string }) {
    const browser = supertest.agent(pages.app);
    const query = new URLSearchParams({ client_id: cli.id, redirect_uri: AUTH_CODE_PAGE, scope: CLI_SCOPES.join(' '), state: '_default', response_type: 'code', access_type: 'offline', prompt: 'login' });
    const handOver = await host(browser.get(`/v2/oauth2/authorize?${query}`));
    expect(handOver.status).toBe(302);
    const toLogin = await host(browser.get(handOver.headers.location));
    expect(toLogin.status).toBe(303);
    const form = await host(browser.get(toLogin.headers.location));
    expect(form.text).toContain('Globus CLI');
    const next = new URL(toLogin.headers.location, 'http://x').searchParams.get('next')!;
    const signedIn = await host(browser.post('/v2/web/login')).type('form').send({ _csrf: csrfOf(form.text), username: 'alice@example.org', password: PASSWORD, next });
    expect(signedIn.status).toBe(303);
    const consent = await host(browser.get(signedIn.headers.location));
    expect(consent.status).toBe(200);
    const fields: Record<string, string> = { decision: 'allow' };
    for (const [, name, value] of consent.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[name] = value.replace(/&amp;/g, '&');
    const allowed = await host(browser.post('/v2/web/authorize')).type('form').send(fields);
    expect(allowed.status).toBe(302);
    const back = new URL(allowed.headers.location);
    expect(`${back.origin}${back.pathname}`).toBe(AUTH_CODE_PAGE);
    expect(back.searchParams.get('state')).toBe('_default');
    const page = await host(browser.get(`${back.pathname}${back.search}`));
    const code = back.searchParams.get('code')!;
    if (!code) throw new Error(back.href);
    expect(page.text).toContain(code);
    expect(page.text).toMatch(/<button[^>]*>Copy<\/button>/);
    const tokens = await host(pages.http.post('/v2/oauth2/token')).auth(cli.id, cli.secret).type('form').send({ grant_type: 'authorization_code', code, redirect_uri: AUTH_CODE_PAGE });
    expect(tokens.status).toBe(200);
    return tokens.body as { access_token: string; refresh_token: string; resource_server: string; scope: string; id_token: string; other_tokens: { access_token: string; refresh_token: string; resource_server: string; scope: string; expires_in: number }[] };
  }

  it('logs in: a client of its own, the auth-code page, a token per resource server with refresh tokens, an id_token for the new client', async () => {
    const cli = await templatedClient();
    const tokens = await login(cli);
    const all = [tokens, ...tokens.other_tokens];
    expect(Object.fromEntries(all.map((t) => [t.resource_server, t.scope.split(' ').sort()]))).toEqual({
      'auth.globus.org': ['email', 'openid', 'profile', VIEW_IDENTITY_SET_SCOPE].sort(),
      'transfer.api.globus.org': [TRANSFER_SCOPE],
      'groups.api.globus.org': ['urn:globus:auth:scope:groups.api.globus.org:all'],
      'search.api.globus.org': ['urn:globus:auth:scope:search.api.globus.org:all'],
      '524230d7-ea86-4a52-8312-86065a9e0417': [TIMER_SCOPE],
      'eec9b274-0c81-4334-bdc2-54e90e689b9a': [FLOWS_SCOPE],
    });
    for (const token of all) expect(token.refresh_token).toMatch(/^xfer_/);
    const keys = (await pages.http.get('/jwk.json')).body as JSONWebKeySet;
    const { payload } = await jwtVerify(tokens.id_token, createLocalJWKSet(keys), { audience: cli.id });
    expect(payload.sub).toBe(aliceId);
  });

  it('validates, answers whoami and session show, and logs out by revoking every token as the built-in client', async () => {
    const cli = await templatedClient();
    const tokens = await login(cli);
    const authToken = [tokens, ...tokens.other_tokens].find((t) => t.resource_server === 'auth.globus.org')!;
    const validate = async (token: string) => (await pages.http.post('/v2/oauth2/token/validate').auth(cli.id, cli.secret).type('form').send({ token })).body;
    for (const token of [tokens, ...tokens.other_tokens]) expect(await validate(token.refresh_token)).toEqual({ active: true });
    expect(await validate(authToken.access_token)).toEqual({ active: true });
    expect(await validate('xfer_nope')).toEqual({ active: false });

    const whoami = await pages.http.get('/v2/oauth2/userinfo').set('Authorization', `Bearer ${authToken.access_token}`);
    expect(whoami.body).toMatchObject({ sub: aliceId, preferred_username: 'alice@example.org', email: 'alice@example.org' });
    const session = await pages.http.post('/v2/oauth2/token/introspect').auth(cli.id, cli.secret).type('form').send({ token: authToken.access_token, include: 'session_info' });
    expect(session.body).toMatchObject({ active: true, session_info: { authentications: { [aliceId]: { auth_time: expect.any(Number) } } } });
    const identities = await pages.http.get(`/v2/api/identities?ids=${aliceId}`).set('Authorization', `Bearer ${authToken.access_token}`);
    expect(identities.body.identities).toEqual([expect.objectContaining({ id: aliceId, username: 'alice@example.org', email: 'alice@example.org' })]);

    // a third client's revocation of these tokens changes nothing
    const other = await pages.admin.clients.addClient({ display_name: 'Other', public_client: false });
    await pages.http.post('/v2/oauth2/token/revoke').auth(other.client.id, other.secret!).type('form').send({ token: tokens.refresh_token });
    expect(await validate(tokens.refresh_token)).toEqual({ active: true });
    // logout: the built-in client (client_id in the form, no secret) revokes each token of the client made from it
    for (const token of [tokens, ...tokens.other_tokens]) {
      for (const value of [token.access_token, token.refresh_token]) {
        const res = await pages.http.post('/v2/oauth2/token/revoke').type('form').send({ token: value, client_id: CLI_TEMPLATE_CLIENT.id });
        expect(res.status).toBe(200);
      }
    }
    for (const token of [tokens, ...tokens.other_tokens]) {
      expect(await validate(token.refresh_token)).toEqual({ active: false });
      expect(await validate(token.access_token)).toEqual({ active: false });
    }
  });

  it('knows the standard scopes after migrate, and a client made from the template deletes itself', async () => {
    const names = (await pages.admin.clients.listScopes()).map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(STANDARD_SCOPES.map((s) => s.name)));
    const timer = (await pages.admin.clients.listScopes()).find((s) => s.name === TIMER_SCOPE)!;
    expect(timer.dependent_scope_ids).toHaveLength(1);
    const robot = await pages.admin.clients.addClient({ display_name: 'Robot', public_client: false });
    const grant = await pages.http.post('/v2/oauth2/token').auth(robot.client.id, robot.secret!).type('form').send({ grant_type: 'client_credentials', scope: TRANSFER_SCOPE });
    expect(grant.status).toBe(200);
    const cli = await templatedClient();
    expect((await pages.http.delete(`/v2/api/clients/${cli.id}`).auth(robot.client.id, robot.secret!)).status).toBe(403);
    expect((await pages.http.delete(`/v2/api/clients/${cli.id}`)).status).toBe(401);
    const deleted = await pages.http.delete(`/v2/api/clients/${cli.id}`).auth(cli.id, cli.secret);
    expect(deleted.status).toBe(200);
    expect((await pages.http.post('/v2/oauth2/token/validate').auth(cli.id, cli.secret).type('form').send({ token: 'x' })).status).toBe(401);
  });

  it('refuses a template that is not one, a removed built-in client, and answers unknown API routes with a JSON document', async () => {
    const plain = await pages.admin.clients.addClient({ display_name: 'Plain' });
    const notTemplate = await pages.http.post('/v2/api/clients').send({ client: { template_id: plain.client.id, name: 'x' } });
    expect(notTemplate.status).toBe(400);
    expect((await pages.http.post('/v2/api/clients').send({ client: { name: 'x' } })).body.code).toBe('BadRequest');
    await pages.admin.clients.removeClient(CLI_TEMPLATE_CLIENT.id);
    const removed = await pages.http.post('/v2/api/clients').send({ client: { template_id: CLI_TEMPLATE_CLIENT.id, name: 'Globus CLI' } });
    expect(removed.status).toBe(404);
    expect(removed.body).toMatchObject({ code: 'ClientError.NotFound', request_id: expect.any(String) });
    // removed stays removed: installing the catalogue again does not bring it back
    await pages.admin.clients.installStandardCatalogue();
    expect((await pages.http.post('/v2/api/clients').send({ client: { template_id: CLI_TEMPLATE_CLIENT.id, name: 'Globus CLI' } })).status).toBe(404);
    for (const path of ['/v2/api/nothing', '/v2/api/identities/x/y/z', '/v2/api/clients']) {
      const res = await pages.http.get(path);
      expect({ path, status: res.status, type: res.type }).toEqual({ path, status: 404, type: 'application/json' });
    }
  });

  it("lists the caller's consents as the SDK's to_forest() reads them, and the identity providers", async () => {
    const cli = await templatedClient();
    const tokens = await login(cli);
    const authToken = [tokens, ...tokens.other_tokens].find((t) => t.resource_server === 'auth.globus.org')!.access_token;
    const get = (path: string) => pages.http.get(`/v2/api${path}`).set('Authorization', `Bearer ${authToken}`);
    const { consents } = (await get(`/identities/${aliceId}/consents`)).body as { consents: { id: number; scope_name: string; dependency_path: number[]; client: string; last_used: string }[] };
    const timer = consents.find((c) => c.scope_name === TIMER_SCOPE)!;
    const below = consents.find((c) => c.dependency_path.length === 2 && c.dependency_path[0] === timer.id)!;
    expect(below.scope_name).toBe(TRANSFER_SCOPE);
    expect(consents.every((c) => c.client === cli.id && !Number.isNaN(Date.parse(c.last_used)))).toBe(true);
    const bob = await pages.admin.identities.addIdentity({ username: 'bob@example.org' });
    expect((await get(`/identities/${bob.id}/consents`)).status).toBe(403);
    const providers = (await get('/identity_providers?domains=example.org')).body.identity_providers;
    expect(providers).toEqual([expect.objectContaining({ name: 'xfer local accounts', domains: ['example.org'], status: 'active' })]);
    expect((await get(`/identity_providers?ids=${providers[0].id}`)).body.identity_providers).toHaveLength(1);
    expect((await get('/identity_providers?ids=11111111-2222-4333-8444-555555555555')).body.identity_providers).toEqual([]);
    expect((await pages.http.get('/v2/api/identity_providers')).status).toBe(401);
  });

  it('answers the same steps through the hosted service\'s JavaScript SDK: validate, userinfo, identities, consents, revoke', async () => {
    const cli = await templatedClient();
    const tokens = await login(cli);
    const authToken = [tokens, ...tokens.other_tokens].find((t) => t.resource_server === 'auth.globus.org')!;
    const server = pages.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    process.env.GLOBUS_SDK_SERVICE_URL_AUTH = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const basic = { Authorization: `Basic ${Buffer.from(`${cli.id}:${cli.secret}`).toString('base64')}` };
      const bearer = { Authorization: `Bearer ${authToken.access_token}` };
      expect(await (await auth.oauth2.token.validate({ payload: { token: tokens.refresh_token, client_id: cli.id }, headers: basic })).json()).toEqual({ active: true });
      expect(await (await auth.oauth2.userinfo({ headers: bearer } as unknown as Parameters<typeof auth.oauth2.userinfo>[0])).json()).toMatchObject({ sub: aliceId });
      expect((await (await auth.identities.getAll({ query: { ids: aliceId }, headers: bearer })).json()).identities[0].username).toBe('alice@example.org');
      const consents = (await (await auth.identities.consents.getAll(aliceId, { headers: bearer })).json()).consents as { scope_name: string }[];
      expect(consents.map((c) => c.scope_name)).toEqual(expect.arrayContaining([TIMER_SCOPE, FLOWS_SCOPE]));
      expect((await auth.oauth2.token.revoke({ payload: { token: tokens.refresh_token, client_id: CLI_TEMPLATE_CLIENT.id } })).status).toBe(200);
      expect(await (await auth.oauth2.token.validate({ payload: { token: tokens.refresh_token, client_id: cli.id }, headers: basic })).json()).toEqual({ active: false });
    } finally {
      delete process.env.GLOBUS_SDK_SERVICE_URL_AUTH;
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
