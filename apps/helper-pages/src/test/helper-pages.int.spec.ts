import supertest from 'supertest';
import { BACKENDS, PASSWORD, startPages, type Pages } from './harness';

const XSS = `<script>alert(1)</script><img src=x onerror=alert(2)>"'`;

describe.each(BACKENDS)('helper pages on $name', (backend) => {
  let pages: Pages;
  let portal: { id: string };

  beforeEach(async () => {
    pages = await startPages(backend);
    portal = (
      await pages.admin.clients.addClient({
        display_name: 'Research Portal',
        redirect_uris: ['https://portal.example.org/home'],
        branding: { logo_url: 'https://portal.example.org/logo.png', primary_color: '#123456' },
      })
    ).client;
  });
  afterEach(() => pages.close());

  const h1 = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];

  it('has a favicon, at the root where browsers ask and linked from every page', async () => {
    for (const path of ['/favicon.ico', '/v2/web/static/favicon.ico']) {
      const icon = await pages.http.get(path);
      expect(icon.status).toBe(200);
      expect(icon.headers['content-type']).toBe('image/vnd.microsoft.icon');
    }
    expect((await pages.http.get('/v2/web/logout')).text).toContain('<link rel="icon" href="/v2/web/static/favicon.ico">');
  });

  describe('logout', () => {
    it('says "Logged out" and that there was no session, without parameters', async () => {
      const res = await pages.http.get('/v2/web/logout');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(h1(res.text)).toBe('Logged out');
      expect(res.text).toContain('You were not signed in');
      expect(res.text).not.toContain('Continue to');
    });

    it('names the client: "Logged out of <display name>", with its branding', async () => {
      const res = await pages.http.get(`/v2/web/logout?client_id=${portal.id}`);
      expect(h1(res.text)).toBe('Logged out of Research Portal');
      expect(res.text).toContain('src="https://portal.example.org/logo.png"');
      expect(res.text).toContain(`href="/v2/web/branding/${portal.id}.css"`);
      const css = await pages.http.get(`/v2/web/branding/${portal.id}.css`);
      expect(css.headers['content-type']).toMatch(/^text\/css/);
      expect(css.text).toContain('--brand-primary: #123456;');
    });

    it('ignores an unknown or malformed client_id', async () => {
      for (const id of ['11111111-2222-4333-8444-555555555555', 'not-a-client']) {
        expect(h1((await pages.http.get(`/v2/web/logout?client_id=${id}`)).text)).toBe('Logged out');
      }
    });

    it('shows "Continue to <name>" at the bottom only with both redirect_uri and redirect_name', async () => {
      const both = await pages.http.get('/v2/web/logout?redirect_uri=https%3A%2F%2Fapp.example.org%2F&redirect_name=My%20App');
      expect(both.text).toContain('<a href="https://app.example.org/" rel="noopener">Continue to My App</a>');
      expect(both.text.indexOf('Continue to')).toBeGreaterThan(both.text.indexOf('<h1>'));
      for (const query of ['redirect_uri=https%3A%2F%2Fapp.example.org%2F', 'redirect_name=My%20App', 'redirect_uri=&redirect_name=X']) {
        const one = await pages.http.get(`/v2/web/logout?${query}`);
        expect(one.status).toBe(200);
        expect(h1(one.text)).toBe('Logged out');
        expect(one.text).not.toContain('Continue to');
      }
    });

    it('shows where an unvouched link leads: the host beside it without a client that registered the URI, nothing more with one', async () => {
      const anyone = await pages.http.get('/v2/web/logout?redirect_uri=https%3A%2F%2Fevil.example.net%2Flogin&redirect_name=Your%20Bank');
      expect(anyone.status).toBe(200);
      expect(anyone.text).toContain('Continue to Your Bank</a> <span class="link-host">(evil.example.net)</span>');
      const vouched = await pages.http.get(`/v2/web/logout?client_id=${portal.id}&redirect_uri=https%3A%2F%2Fportal.example.org%2Fhome&redirect_name=Portal`);
      expect(vouched.status).toBe(200);
      expect(vouched.text).toContain('<a href="https://portal.example.org/home" rel="noopener">Continue to Portal</a>');
      expect(vouched.text).not.toContain('link-host');
    });

    it('reads names with + or %20 for spaces', async () => {
      for (const name of ['My+Research+App', 'My%20Research%20App', 'My+Research%20App']) {
        const res = await pages.http.get(`/v2/web/logout?redirect_uri=https://app.example.org/&redirect_name=${name}`);
        expect(res.status).toBe(200);
        expect(res.text).toContain('<a href="https://app.example.org/" rel="noopener">Continue to My Research App</a>');
      }
    });

    it.each(['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,hi', 'ftp://files.example.org/', '//evil.example.org/', '/relative', 'vbscript:msgbox'])(
      'never links the redirect_uri %s',
      async (uri) => {
        const res = await pages.http.get(`/v2/web/logout?redirect_uri=${encodeURIComponent(uri)}&redirect_name=Back`);
        expect(res.status).toBe(200);
        expect(h1(res.text)).toBe('Logged out');
        expect(res.text).not.toContain('Continue to');
        expect(res.text).not.toContain(`href="${uri}`);
      },
    );

    it("links only the client's registered redirect URIs when it has some", async () => {
      const other = await pages.http.get(`/v2/web/logout?client_id=${portal.id}&redirect_uri=https%3A%2F%2Fevil.example.org%2F&redirect_name=Portal`);
      expect(other.text).not.toContain('Continue to');
      const registered = await pages.http.get(`/v2/web/logout?client_id=${portal.id}&redirect_uri=https%3A%2F%2Fportal.example.org%2Fhome&redirect_name=Portal`);
      expect(registered.text).toContain('<a href="https://portal.example.org/home" rel="noopener">Continue to Portal</a>');
    });

    it('escapes redirect_name and client display names', async () => {
      const evil = (await pages.admin.clients.addClient({ display_name: XSS })).client;
      const res = await pages.http.get(`/v2/web/logout?client_id=${evil.id}&redirect_uri=https%3A%2F%2Fapp.example.org%2F&redirect_name=${encodeURIComponent(XSS)}`);
      expect(res.text).not.toContain('<script>');
      expect(res.text).not.toContain('<img src=x');
      expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    });

    it('ends the session, expires the cookie and says so', async () => {
      await pages.userWithPassword('alice');
      const agent = await pages.signedInAgent('alice');
      expect((await agent.get('/v2/web/identities')).status).toBe(200);
      const res = await agent.get('/v2/web/logout');
      expect(res.text).toContain('You have been logged out');
      const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('xfer_session='));
      expect(cookie).toMatch(/Expires=Thu, 01 Jan 1970/);
      const after = await agent.get('/v2/web/identities');
      expect(after.status).toBe(303);
      expect(after.headers.location).toBe('/v2/web/login?next=%2Fv2%2Fweb%2Fidentities');
    });
  });

  describe('identities', () => {
    it('sends an unauthenticated browser to sign in, and back afterwards', async () => {
      await pages.userWithPassword('alice');
      const target = `/v2/web/identities?client_id=${portal.id}&redirect_name=Portal`;
      const res = await pages.http.get(target);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe(`/v2/web/login?next=${encodeURIComponent(target)}`);
      const agent = supertest.agent(pages.app);
      const form = await agent.get(res.headers.location);
      expect(form.text).toContain(`name="next" value="${target.replace(/&/g, '&amp;')}"`);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1];
      const signIn = await agent.post('/v2/web/login').type('form').send({ _csrf: csrf, username: 'alice', password: PASSWORD, next: target });
      expect(signIn.status).toBe(303);
      expect(signIn.headers.location).toBe(target);
    });

    it('lists every identity of the set, marks the primary and the signed-in one, and shows linkages', async () => {
      await pages.userWithPassword('alice', { name: 'Alice Example', email: 'alice@example.org', organization: 'Example U' });
      await pages.userWithPassword('alice@orcid.example.org', { name: 'A. Example' });
      pages.world.clock.advance(3600);
      await pages.admin.identities.linkIdentities('alice', 'alice@orcid.example.org');
      const agent = await pages.signedInAgent('alice@orcid.example.org');
      const res = await agent.get('/v2/web/identities');
      expect(h1(res.text)).toBe('Your identities');
      expect(res.text).toContain('These 2 identities are linked into one account');
      const cards = res.text.split('<li class="card">').slice(1);
      expect(cards[0]).toMatch(/alice\s*<span class="badge">Primary<\/span>/);
      expect(cards[0]).toContain('Alice Example');
      expect(cards[0]).toContain('Example U');
      expect(cards[1]).toMatch(/alice@orcid.example.org\s*<span class="badge badge-current">Signed in<\/span>/);
      expect(cards[1]).toContain('2026-01-02 04:04 UTC');
    });

    it('shows "Return to <name>" at the top', async () => {
      await pages.userWithPassword('alice');
      const agent = await pages.signedInAgent('alice');
      const res = await agent.get(`/v2/web/identities?client_id=${portal.id}&redirect_uri=${encodeURIComponent('https://portal.example.org/home')}&redirect_name=Research%20Portal`);
      expect(res.text).toContain('<a href="https://portal.example.org/home" rel="noopener">Return to Research Portal</a>');
      expect(res.text.indexOf('Return to')).toBeLessThan(res.text.indexOf('<h1>'));
      expect(res.text).not.toContain('Continue to');
    });
  });

  describe('consents', () => {
    it('lists each client with its activities as a tree of dependent consents', async () => {
      await pages.userWithPassword('alice');
      await pages.admin.clients.addScope('urn:xfer:scope:transfer:all', 'Manage your endpoints and transfers');
      await pages.admin.clients.addScope('urn:xfer:scope:data_access', 'Read and write files on your storage');
      await pages.admin.clients.addScope('urn:xfer:scope:profile', 'See your name and e-mail address');
      const other = (await pages.admin.clients.addClient({ display_name: 'Analysis Notebook' })).client;
      const root = await pages.admin.tokens.grantConsent('alice', portal.id, 'urn:xfer:scope:transfer:all');
      await pages.admin.tokens.grantConsent('alice', portal.id, 'urn:xfer:scope:data_access', root);
      await pages.admin.tokens.grantConsent('alice', other.id, 'urn:xfer:scope:profile');
      const agent = await pages.signedInAgent('alice');
      const res = await agent.get('/v2/web/consents');
      expect(h1(res.text)).toBe('Your consents');
      const sections = res.text.split('<section').slice(1);
      expect(sections.map((s) => /<h2[^>]*>([^<]*)<\/h2>/.exec(s)?.[1])).toEqual(['Analysis Notebook', 'Research Portal']);
      const portalSection = sections[1];
      const nested = /Manage your endpoints and transfers[\s\S]*<ul class="consents">[\s\S]*Read and write files on your storage/;
      expect(portalSection).toMatch(nested);
      expect(portalSection).toContain('urn:xfer:scope:transfer:all');
      expect(portalSection).toContain('Granted 2026-01-02 03:04 UTC · Last used never');
    });

    it('says so when there are no consents, and escapes what clients and scopes say', async () => {
      await pages.userWithPassword('alice');
      const agent = await pages.signedInAgent('alice');
      expect((await agent.get('/v2/web/consents')).text).toContain('You have not allowed any application');
      const evil = (await pages.admin.clients.addClient({ display_name: XSS })).client;
      await pages.admin.clients.addScope('urn:xfer:scope:x', XSS);
      await pages.admin.tokens.grantConsent('alice', evil.id, 'urn:xfer:scope:x');
      const res = await agent.get('/v2/web/consents');
      expect(res.text).not.toContain('<script>');
      expect(res.text).toContain('&lt;img src=x onerror=alert(2)&gt;');
    });
  });

  describe('sign-in', () => {
    it('refuses a wrong password with 401 and no session cookie', async () => {
      await pages.userWithPassword('alice');
      const agent = supertest.agent(pages.app);
      const csrf = /name="_csrf" value="([^"]+)"/.exec((await agent.get('/v2/web/login')).text)?.[1];
      const res = await agent.post('/v2/web/login').type('form').send({ _csrf: csrf, username: 'alice', password: 'wrong password' });
      expect(res.status).toBe(401);
      expect(res.text).toContain('Wrong username or password.');
      expect(String(res.headers['set-cookie'] ?? '')).not.toContain('xfer_session=');
      const unknown = await agent.post('/v2/web/login').type('form').send({ _csrf: csrf, username: 'nobody', password: 'x' });
      expect(unknown.status).toBe(401);
    });

    it('refuses a form without a valid CSRF token', async () => {
      await pages.userWithPassword('alice');
      const agent = supertest.agent(pages.app);
      await agent.get('/v2/web/login');
      const res = await agent.post('/v2/web/login').type('form').send({ _csrf: 'forged', username: 'alice', password: PASSWORD });
      expect(res.status).toBe(403);
      expect(res.text).toContain('Form expired');
      const noCookie = await pages.http.post('/v2/web/login').type('form').send({ username: 'alice', password: PASSWORD });
      expect(noCookie.status).toBe(403);
    });

    it.each(['https://evil.example.org/', '//evil.example.org/', '/v2/web/../../x', '/other', '/v2/web/login?next=x'])(
      'never sends the browser to next=%s after sign-in',
      async (next) => {
        await pages.userWithPassword('alice');
        const agent = supertest.agent(pages.app);
        const csrf = /name="_csrf" value="([^"]+)"/.exec((await agent.get('/v2/web/login')).text)?.[1];
        const res = await agent.post('/v2/web/login').type('form').send({ _csrf: csrf, username: 'alice', password: PASSWORD, next });
        expect(res.status).toBe(303);
        expect(res.headers.location).toBe('/v2/web/identities');
      },
    );

    it('sets an HttpOnly, SameSite=Lax session cookie, Secure behind https', async () => {
      await pages.userWithPassword('alice');
      const secure = await startPages(backend, { trustProxy: true });
      try {
        await secure.userWithPassword('alice');
        for (const [app, proto, expectSecure] of [[pages.app, 'http', false], [secure.app, 'https', true]] as const) {
          // cookies are carried by hand: a cookie jar would not send Secure cookies over plain http
          const form = await supertest(app).get('/v2/web/login').set('X-Forwarded-Proto', proto);
          const formCookies = (form.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]);
          expect(formCookies.length).toBe(2);
          const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1];
          const res = await supertest(app)
            .post('/v2/web/login')
            .set('X-Forwarded-Proto', proto)
            .set('Cookie', formCookies.join('; '))
            .type('form')
            .send({ _csrf: csrf, username: 'alice', password: PASSWORD });
          const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('xfer_session='))!;
          expect(cookie).toMatch(/HttpOnly/);
          expect(cookie).toMatch(/SameSite=Lax/);
          expect(/;\s*Secure/.test(cookie)).toBe(expectSecure);
        }
      } finally {
        await secure.close();
      }
    });
  });

  describe('security headers', () => {
    it('sends a CSP without inline script, frame-ancestors none and nosniff', async () => {
      const res = await pages.http.get('/v2/web/logout');
      const csp = res.headers['content-security-policy'];
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    it('answers unknown pages with an HTML 404', async () => {
      const res = await pages.http.get('/v2/web/nothing');
      expect(res.status).toBe(404);
      expect(res.text).toContain('<h1>Not found</h1>');
    });
  });
});
