import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONSOLE_CLIENT } from '@xfer/core';
import supertest from 'supertest';
import { CONSOLE_SESSION_COOKIE, CONSOLE_SIGN_IN_COOKIE } from '../http/app';
import { hidden, signInOverHttp, startConsoleWorld, type ConsoleWorld } from './harness';

/** The console's forms under reload and back, and the third security review's findings on it. */
describe('the web console: reloads, back, and security review three', () => {
  let world: ConsoleWorld;
  beforeAll(async () => (world = await startConsoleWorld()));
  afterAll(() => world.close());

  const identityId = async (username: string) => (await world.services.admin.identities.listIdentities()).find((i) => i.username === username)!.id;
  /** The console's live tokens of a person, access and refresh. */
  async function liveTokens(username: string) {
    const access = (await world.repositories.accessTokens.listForIdentity(await identityId(username))).filter((t) => t.client_id === CONSOLE_CLIENT.id);
    const refresh = await Promise.all([...new Set(access.map((t) => t.refresh_token_hash).filter((h): h is string => h !== null))].map((h) => world.repositories.refreshTokens.findByHash(h)));
    return { access: access.filter((t) => t.revoked_at === null).length, refresh: refresh.filter((t) => t !== null && t.revoked_at === null).length, refreshIssued: refresh.length };
  }
  const sessionCookie = (cookies: string[]) => cookies.find((c) => c.startsWith(`${CONSOLE_SESSION_COOKIE}=`))?.split(';')[0].split('=')[1];

  it('redirects after creating an endpoint: the setup key shows once, and a reload creates nothing again', async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    const csrf = hidden((await agent.get('/console/endpoints/new')).text, '_csrf');
    const posted = await agent.post('/console/endpoints').type('form').send({ _csrf: csrf, kind: 'personal', display_name: 'Reloaded laptop' });
    expect(posted.status).toBe(303);
    const createdPage = posted.headers.location as string;
    expect(createdPage).toMatch(/^\/console\/endpoints\/[0-9a-f-]{36}\/created$/);
    const shown = await agent.get(createdPage);
    expect(shown.status).toBe(200);
    expect(shown.text).toMatch(/<p class="auth-code" id="setup-key">[0-9a-f-]{36}<\/p>/);
    // a reload of the page after the form: the overview, without the key
    const again = await agent.get(createdPage);
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe(createdPage.replace(/\/created$/, ''));
    const overview = await agent.get(again.headers.location);
    expect(overview.status).toBe(200);
    expect(overview.text).not.toContain('setup-key');
    const search = await agent.get('/console/search?scope=my-endpoints&q=reloaded');
    expect(search.text.match(/Reloaded laptop<\/a>/g)).toHaveLength(1);
  });

  it('answers back to the pages of a deleted endpoint or a removed server with a page, never an error', async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    const csrf = hidden((await agent.get('/console/endpoints/new')).text, '_csrf');
    const id = (await agent.post('/console/endpoints').type('form').send({ _csrf: csrf, kind: 'server', display_name: 'Short-lived', hostname: 'short.example.org' })).headers.location.split('/')[3] as string;
    const servers = await agent.get(`/console/endpoints/${id}/servers`);
    const serverId = /servers\/(\d+)\/delete/.exec(servers.text)![1];
    expect((await agent.post(`/console/endpoints/${id}/servers/${serverId}/delete`).type('form').send({ _csrf: hidden(servers.text, '_csrf') })).status).toBe(303);
    const removed = await agent.get(`/console/endpoints/${id}/servers/${serverId}/edit`);
    expect({ status: removed.status, location: removed.headers.location }).toEqual({ status: 303, location: `/console/endpoints/${id}/servers` });
    expect((await agent.get(removed.headers.location)).text).toContain('That server was removed.');
    const confirm = await agent.get(`/console/endpoints/${id}/delete`);
    expect((await agent.post(`/console/endpoints/${id}/delete`).type('form').send({ _csrf: hidden(confirm.text, '_csrf') })).status).toBe(303);
    const gone = await agent.get(`/console/endpoints/${id}/delete`);
    expect(gone.status).toBe(410);
    expect(gone.text).toContain('<h1>Endpoint deleted</h1>');
    expect(gone.text).not.toContain('class="error"');
  });

  it('F2: a new session id at sign-in: an id planted in the browser before names nothing afterwards', async () => {
    const planted = 'planted-by-someone-else-0123456789abcdefghi';
    const browser = supertest.agent(world.url);
    browser.jar.setCookie(`${CONSOLE_SESSION_COOKIE}=${planted}; Path=/console`);
    const { cookies } = await signInOverHttp(world, 'alice', browser);
    const issued = sessionCookie(cookies)!;
    expect(issued).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(issued).not.toBe(planted);
    expect((await browser.get('/console/search')).status).toBe(200);
    // whoever kept the planted id has nothing
    expect((await supertest(world.url).get('/console/search').set('Cookie', `${CONSOLE_SESSION_COOKIE}=${planted}`)).status).toBe(303);
  });

  it("F3: anonymous sign-ins keep nothing on the server and cannot end anyone's session", async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    for (let i = 0; i < 2_000; i++) {
      const res = await supertest(world.url).get('/console/login');
      expect(res.status).toBe(303);
      const cookies = (res.headers['set-cookie'] as unknown as string[]).map((c) => c.split('=')[0]);
      expect(cookies).toEqual([CONSOLE_SIGN_IN_COOKIE]);
    }
    expect((await agent.get('/console/search')).status).toBe(200);
    // a sealed sign-in cookie that was tampered with opens to nothing
    const forged = await supertest(world.url).get('/console/callback?code=x&state=y').set('Cookie', `${CONSOLE_SIGN_IN_COOKIE}=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..AAAA.BBBB.CCCC`);
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('did not start in this browser');
  });

  it('F5: signing out revokes the refresh tokens of the sign-in too, and so does any other end of a session', async () => {
    const { agent } = await signInOverHttp(world, 'bob');
    const live = await liveTokens('bob');
    expect(live.refreshIssued).toBeGreaterThan(0);
    expect(live.refresh).toBe(live.refreshIssued);
    const search = await agent.get('/console/search');
    await agent.post('/console/logout').type('form').send({ _csrf: hidden(search.text, '_csrf') });
    expect(await liveTokens('bob')).toMatchObject({ access: 0, refresh: 0 });
    // a session that ends because the process stops
    await signInOverHttp(world, 'bob');
    expect((await liveTokens('bob')).access).toBeGreaterThan(0);
    await world.endConsoleSessions();
    expect(await liveTokens('bob')).toMatchObject({ access: 0, refresh: 0 });
  });

  it('F6: ids in a console path are checked before any call: `..` never reaches the API as a path', async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    const csrf = hidden((await agent.get('/console/endpoints/new')).text, '_csrf');
    const id = (await agent.post('/console/endpoints').type('form').send({ _csrf: csrf, kind: 'server', display_name: 'Kept' })).headers.location.split('/')[3] as string;
    for (const tab of ['servers', 'roles', 'permissions']) {
      for (const item of ['%2e%2e', '..', '%2E%2E%2F', '1%2F..']) {
        const res = await agent.post(`/console/endpoints/${id}/${tab}/${item}/delete`).type('form').send({ _csrf: csrf });
        expect({ tab, item, status: res.status }).toEqual({ tab, item, status: 404 });
      }
    }
    expect((await agent.get(`/console/endpoints/..%2F..%2Fendpoint_search`)).status).toBe(404);
    expect((await agent.get(`/console/endpoints/${id}`)).status).toBe(200);
  });
});

describe('the web console when its API answers something other than JSON', () => {
  let world: ConsoleWorld;
  let impostor: Server;
  beforeAll(async () => {
    // a proxy's page where the API should be: 200, HTML
    impostor = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Welcome to nginx</html>'));
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    world = await startConsoleWorld({ apiUrl: `http://127.0.0.1:${(impostor.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    await world.close();
    await new Promise((resolve) => impostor.close(resolve));
  });

  it('F8: says the service is unavailable (502), and never claims a creation it did not see', async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    const search = await agent.get('/console/search?scope=my-endpoints');
    expect(search.status).toBe(502);
    expect(search.text).toContain('<h1>Service unavailable</h1>');
    const csrf = hidden((await agent.get('/console/endpoints/new')).text, '_csrf');
    const created = await agent.post('/console/endpoints').type('form').send({ _csrf: csrf, kind: 'server', display_name: 'Nowhere' });
    expect(created.status).toBe(502);
    expect(created.text).not.toContain('undefined');
    expect(created.text).toContain('answered with something other than the API&#39;s JSON');
  });
});
