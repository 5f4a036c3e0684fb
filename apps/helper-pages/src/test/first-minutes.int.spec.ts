import { BACKENDS, startPages, type Pages } from './harness';

/** What a new user meets in the first minutes (issue "The local stand-in for tests", its first ten minutes). */
describe.each(BACKENDS)('the first minutes on the authorization service on $name', (backend) => {
  let pages: Pages;
  beforeEach(async () => {
    pages = await startPages(backend, { apiUrl: 'http://127.0.0.1:8080' });
  });
  afterEach(() => pages.close());

  it('answers / and /v2/web/ with a landing page linking the helper pages and the OpenAPI document', async () => {
    expect((await pages.http.get('/')).headers.location).toBe('/v2/web/');
    const landing = await pages.http.get('/v2/web/');
    expect(landing.status).toBe(200);
    for (const link of ['/v2/web/identities', '/v2/web/consents', '/v2/web/logout', 'http://127.0.0.1:8080/v0.10/openapi.json', '/.well-known/openid-configuration']) {
      expect(landing.text).toContain(`href="${link}`);
    }
  });

  it("shows the OAuth error's description on the auth-code page, escaped", async () => {
    const res = await pages.http.get(`/v2/web/auth-code?error=access_denied&error_description=${encodeURIComponent('The user <b>denied</b> access')}`);
    expect(res.text).toContain('<strong>access_denied</strong>');
    expect(res.text).toContain('The user &lt;b&gt;denied&lt;/b&gt; access');
  });
});
