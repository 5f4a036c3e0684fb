import { hashSessionSecret } from '@xfer/core';
import supertest from 'supertest';
import { BACKENDS, PASSWORD, sharedDatabase, startPages, type Pages } from './harness';

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

/** A browser with the sign-in form loaded: `attempt` posts it with a valid CSRF token. */
async function browser(app: Pages['app'], address?: string) {
  const agent = supertest.agent(app);
  const get = agent.get('/v2/web/login');
  const csrf = csrfOf((await (address ? get.set('X-Forwarded-For', address) : get)).text);
  const attempt = (username: string, password: string) => {
    const post = agent.post('/v2/web/login').type('form');
    return (address ? post.set('X-Forwarded-For', address) : post).send({ _csrf: csrf, username, password });
  };
  return { agent, attempt };
}

describe.each(BACKENDS)('auth app security on $name', (backend) => {
  describe('sign-in throttle', () => {
    it('does not count forged sign-ins from another site: the form check refuses them first', async () => {
      const pages = await startPages(backend, {}, { signInThrottle: { attemptsPerAddress: 3, attemptsPerAccount: 3 } });
      try {
        await pages.userWithPassword('alice');
        for (let i = 0; i < 11; i++) {
          const forged = await pages.http.post('/v2/web/login').type('form').send({ username: 'alice', password: 'guess' });
          expect(forged.status).toBe(403);
        }
        expect((await (await browser(pages.app)).attempt('alice', PASSWORD)).status).toBe(303);
      } finally {
        await pages.close();
      }
    });

    it('refuses an address after its failed sign-ins, even with the right password, and says when to retry', async () => {
      const pages = await startPages(backend, {}, { signInThrottle: { attemptsPerAddress: 3, attemptsPerAccount: 100, windowSeconds: 600 } });
      try {
        await pages.userWithPassword('alice');
        await pages.userWithPassword('bob');
        const { attempt } = await browser(pages.app);
        for (let i = 0; i < 3; i++) expect((await attempt('alice', 'wrong')).status).toBe(401);
        const blocked = await attempt('bob', PASSWORD);
        expect(blocked.status).toBe(429);
        expect(blocked.headers['retry-after']).toBe('600');
        expect(blocked.text).toContain('Too many failed sign-ins. Try again in 10 minutes.');
      } finally {
        await pages.close();
      }
    });

    it('counts failures on one account across addresses, and a success from another address is not held against it', async () => {
      const pages = await startPages(backend, { trustProxy: true }, { signInThrottle: { attemptsPerAddress: 100, attemptsPerAccount: 3 } });
      try {
        await pages.userWithPassword('alice');
        await pages.userWithPassword('bob');
        for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) expect((await (await browser(pages.app, address)).attempt('alice', 'wrong')).status).toBe(401);
        expect((await (await browser(pages.app, '203.0.113.4')).attempt('alice', PASSWORD)).status).toBe(429);
        expect((await (await browser(pages.app, '203.0.113.4')).attempt('bob', PASSWORD)).status).toBe(303);
      } finally {
        await pages.close();
      }
    });

    it('is shared by two instances on one database: failures on either count for both', async () => {
      const database = await sharedDatabase(backend);
      const throttle = { signInThrottle: { attemptsPerAddress: 4, attemptsPerAccount: 100 } };
      const first = await startPages(backend, {}, throttle, database);
      const second = await startPages(backend, {}, throttle, database);
      try {
        await first.userWithPassword('alice');
        const one = await browser(first.app);
        const two = await browser(second.app);
        expect((await one.attempt('alice', 'wrong')).status).toBe(401);
        expect((await two.attempt('alice', 'wrong')).status).toBe(401);
        expect((await one.attempt('alice', 'wrong')).status).toBe(401);
        expect((await two.attempt('alice', 'wrong')).status).toBe(401);
        expect((await one.attempt('alice', PASSWORD)).status).toBe(429);
        expect((await two.attempt('alice', PASSWORD)).status).toBe(429);
      } finally {
        await first.close();
        await second.close();
        await database.drop();
      }
    });
  });

  describe('sessions', () => {
    let pages: Pages;
    beforeEach(async () => {
      pages = await startPages(backend);
      await pages.userWithPassword('alice');
      await pages.userWithPassword('bob');
    });
    afterEach(() => pages.close());

    const sessionCookie = (res: supertest.Response) => /xfer_session=([^;]+)/.exec(([] as string[]).concat(res.headers['set-cookie'] ?? []).join('\n'))?.[1];

    it('signing in again ends the browser\'s previous session: its cookie no longer signs anyone in', async () => {
      const { agent, attempt } = await browser(pages.app);
      const first = sessionCookie(await attempt('alice', PASSWORD))!;
      expect(first).toMatch(/^[A-Za-z0-9_%-]{20,}$/);
      await attempt('bob', PASSWORD);
      expect((await agent.get('/v2/web/identities')).text).toContain('bob');
      const replay = await pages.http.get('/v2/web/identities').set('Cookie', `xfer_session=${first}`);
      expect(replay.status).toBe(303);
      expect(await pages.world.uow.repositories.sessions.findByHash(hashSessionSecret(decodeURIComponent(first)))).toBeNull();
    });

    it('a password change signs the identity out everywhere', async () => {
      const agent = await pages.signedInAgent('alice');
      expect((await agent.get('/v2/web/identities')).status).toBe(200);
      await pages.admin.identities.setPassword('alice', 'a new password entirely');
      expect((await agent.get('/v2/web/identities')).status).toBe(303);
    });

    it('purges expired sessions, a bounded number per run', async () => {
      for (const name of ['alice', 'alice', 'bob']) await pages.signedInAgent(name);
      // the app signs in on the real clock; the world's clock goes past those sessions' expiry
      pages.world.clock.advance((Date.now() - pages.world.clock.now().getTime()) / 1000 + 9 * 60 * 60);
      expect((await pages.world.services.housekeeping.purgeExpired(2)).sessions).toBe(2);
      expect((await pages.world.services.housekeeping.purgeExpired(2)).sessions).toBe(1);
    });
  });

  describe('hostile cookies and caching', () => {
    let pages: Pages;
    beforeEach(async () => {
      pages = await startPages(backend);
    });
    afterEach(() => pages.close());

    it.each(['/v2/web/logout', '/v2/web/identities', '/v2/web/consents', '/v2/web/login'])('answers %s without a 5xx to JSON-looking cookies', async (path) => {
      for (const cookie of ['xfer_session=j:{"a":1}', 'xfer_csrf=j:{"a":1}', 'xfer_browser=j:[1,2]', `xfer_session=${encodeURIComponent('j:{"a":1}')}`]) {
        const res = await pages.http.get(path).set('Cookie', cookie);
        expect(res.status).toBeLessThan(500);
      }
    });

    it('keeps a refused revocation out of caches too (no-store on the OAuth 400)', async () => {
      const { client, secret } = await pages.admin.clients.addClient({ display_name: 'Worker', public_client: false });
      const res = await pages.http.post('/v2/oauth2/token/revoke').auth(client.id, secret!).type('form').send({});
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('keeps signed-in pages and forms out of caches, and logout deletes every cookie the service set', async () => {
      await pages.userWithPassword('alice');
      const agent = await pages.signedInAgent('alice');
      for (const path of ['/v2/web/identities', '/v2/web/consents', '/v2/web/login', '/v2/web/logout']) {
        expect((await agent.get(path)).headers['cache-control']).toBe('no-store');
      }
      const logout = await (await pages.signedInAgent('alice')).get('/v2/web/logout');
      const cleared = ([] as string[]).concat(logout.headers['set-cookie'] ?? []).filter((c) => /Expires=Thu, 01 Jan 1970/.test(c)).map((c) => c.split('=')[0]);
      expect(cleared.sort()).toEqual(['xfer_browser', 'xfer_csrf', 'xfer_session']);
    });
  });
});
