import { BACKENDS, startPages, type Pages } from './harness';

/** The identities API (catalogue features 5) as the hosted service's clients call it. */
describe.each(BACKENDS)('identities API on $name', (backend) => {
  let pages: Pages;
  let ids: Record<string, string>;
  let token: string;
  beforeEach(async () => {
    pages = await startPages(backend);
    ids = {};
    for (const [username, email] of [['alice@example.org', 'alice@example.org'], ['alice@orcid.example.org', 'a@orcid.example.org'], ['bob@example.org', 'bob@example.org']]) {
      ids[username] = (await pages.admin.identities.addIdentity({ username, name: username.split('@')[0], email })).id;
    }
    await pages.admin.identities.linkIdentities('alice@example.org', 'alice@orcid.example.org');
    // what the hosted service's CLI holds: a token with only the auth scopes
    token = (await pages.admin.tokens.issueToken('alice@example.org', null, 'openid profile email urn:globus:auth:scope:auth.globus.org:view_identity_set')).token;
  });
  afterEach(() => pages.close());

  const get = (path: string, bearer: string | null = token) => {
    const request = pages.http.get(`/v2/api${path}`);
    return bearer ? request.set('Authorization', `Bearer ${bearer}`) : request;
  };

  it('resolves usernames in the order asked, leaves unknown ones out, and shows e-mail only within the caller\'s identity set', async () => {
    const res = await get('/identities?usernames=bob@example.org,nobody@example.org,alice@orcid.example.org');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      identities: [
        { id: ids['bob@example.org'], username: 'bob@example.org', name: 'bob', email: null, organization: null, identity_provider: expect.any(String), identity_type: 'login', status: 'used' },
        expect.objectContaining({ id: ids['alice@orcid.example.org'], username: 'alice@orcid.example.org', email: 'a@orcid.example.org' }),
      ],
    });
    expect((await get('/identities?usernames=nobody@example.org')).body).toEqual({ identities: [] });
  });

  it('resolves ids, and one id at its own path (404 when unknown)', async () => {
    const res = await get(`/identities?ids=${ids['alice@example.org']},${ids['bob@example.org'].toUpperCase()}`);
    expect(res.body.identities.map((i: { username: string }) => i.username)).toEqual(['alice@example.org', 'bob@example.org']);
    expect((await get(`/identities/${ids['bob@example.org']}`)).body).toEqual({ identity: expect.objectContaining({ username: 'bob@example.org', email: null }) });
    const unknown = await get('/identities/11111111-2222-4333-8444-555555555555');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'ClientError.NotFound', request_id: expect.any(String), resource: '/v2/api/identities/11111111-2222-4333-8444-555555555555' });
  });

  it("resolves a confidential client's own identity from the client's creation, before its first token (a CI pipeline is granted roles first)", async () => {
    const { client: robot } = await pages.admin.clients.addClient({ display_name: 'CI pipeline', public_client: false });
    const { client: app } = await pages.admin.clients.addClient({ display_name: 'Native app' });
    const res = await get(`/identities?usernames=${robot.id}@clients.auth.globus.org,${app.id}@clients.auth.globus.org`);
    expect(res.body.identities).toEqual([expect.objectContaining({ id: robot.id, username: `${robot.id}@clients.auth.globus.org`, name: 'CI pipeline', identity_type: 'client', status: 'used' })]);
    expect((await get(`/identities/${robot.id}`)).status).toBe(200);
  });

  it('provisions unknown usernames as unused identities when asked', async () => {
    const res = await get('/identities?usernames=carol@example.org&provision=true');
    expect(res.body.identities).toEqual([expect.objectContaining({ username: 'carol@example.org', status: 'unused' })]);
    expect((await get('/identities?usernames=carol@example.org')).body.identities[0].id).toBe(res.body.identities[0].id);
  });

  it('refuses a request without a live token (401 with WWW-Authenticate), and bad queries with 400', async () => {
    const none = await get('/identities?usernames=bob@example.org', null);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="xfer"');
    expect((await get('/identities?usernames=bob@example.org', 'xfer_nope')).status).toBe(401);
    await pages.admin.tokens.revokeToken(token);
    expect((await get('/identities?usernames=bob@example.org')).status).toBe(401);
    const fresh = (await pages.admin.tokens.issueToken('bob@example.org')).token;
    for (const query of ['', `usernames=a@example.org&ids=${ids['bob@example.org']}`, `usernames=${Array.from({ length: 101 }, (_, i) => `u${i}@example.org`).join(',')}`, `ids=${ids['bob@example.org']}&provision=true`]) {
      const res = await get(`/identities?${query}`, fresh);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('BadRequest');
    }
  });
});
