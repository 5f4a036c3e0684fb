import { TRANSFER_SCOPE } from '@xfer/core';
import supertest from 'supertest';
import { BACKENDS, startPages, type Pages } from './harness';
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
    const alice = await pages.admin.addIdentity({ username: 'alice@example.org', email: 'alice@example.org' });
    await pages.admin.addIdentity({ username: 'alice@orcid.example.org', email: 'a@orcid.example.org' });
    await pages.admin.linkIdentities('alice@example.org', 'alice@orcid.example.org');
    const without = (await pages.admin.issueToken('alice@example.org', null, `openid profile ${VIEW_IDENTITY_SET}`)).token;
    const withEmail = (await pages.admin.issueToken('alice@example.org', null, `openid email ${VIEW_IDENTITY_SET}`)).token;
    const query = '?usernames=alice@example.org,alice@orcid.example.org';
    expect((await identities(without, query)).body.identities.map((i: { email: string | null }) => i.email)).toEqual([null, null]);
    expect((await identities(without, `?ids=${alice.id}`)).body.identities[0].email).toBeNull();
    expect((await identities(without, `/${alice.id}`)).body.identity.email).toBeNull();
    expect((await identities(withEmail, query)).body.identities.map((i: { email: string | null }) => i.email)).toEqual(['alice@example.org', 'a@orcid.example.org']);
    expect((await identities(withEmail, `/${alice.id}`)).body.identity.email).toBe('alice@example.org');
  });

  it('finding 10: prompt=none never shows a page: login_required without a session, consent_required without consent, a code with both', async () => {
    await pages.admin.addScope(TRANSFER_SCOPE, 'Manage your endpoints');
    const client = (await pages.admin.addClient({ display_name: 'Portal', redirect_uris: [CALLBACK] })).client;
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
});
