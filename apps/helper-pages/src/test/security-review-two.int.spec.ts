import { BACKENDS, startPages, type Pages } from './harness';

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
});
