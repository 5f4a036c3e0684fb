import { CONSOLE_CLIENT } from '@xfer/core';
import supertest from 'supertest';
import { CONSOLE_SESSION_COOKIE, safeConsolePath } from '../http/app';
import { hidden, signInOverHttp, startConsoleWorld, type ConsoleWorld } from './harness';

/** The console over HTTP, as a browser without JavaScript: sign-in, sessions, forms and their protection. */
describe('the web console over HTTP', () => {
  let world: ConsoleWorld;

  beforeAll(async () => {
    world = await startConsoleWorld();
  });
  afterAll(() => world.close());

  const signedIn = (username: string) => signInOverHttp(world, username);

  it('sends a browser without a session to sign in, and back to the page it asked for', async () => {
    const res = await supertest(world.url).get('/console/endpoints/new');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/console/login?next=%2Fconsole%2Fendpoints%2Fnew');
  });

  it('answers with strict security headers and a policy that allows no script', async () => {
    const res = await supertest(world.url).get('/console/');
    expect(res.headers['content-security-policy']).toContain("script-src 'none'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).not.toMatch(/<script/i);
  });

  it('keeps the tokens on the server: the browser holds a random session cookie, and signing out revokes the tokens', async () => {
    const alice = (await world.services.admin.identities.listIdentities()).find((i) => i.username === 'alice')!;
    const { agent, cookies } = await signedIn('alice');
    const session = cookies.find((c) => c.startsWith(`${CONSOLE_SESSION_COOKIE}=`))!;
    expect(session).toMatch(new RegExp(`^${CONSOLE_SESSION_COOKIE}=[A-Za-z0-9_-]{43}; Path=/console; HttpOnly; SameSite=Lax$`));
    const live = async () => (await world.repositories.accessTokens.listForIdentity(alice.id)).filter((t) => t.client_id === CONSOLE_CLIENT.id && t.revoked_at === null);
    expect((await live()).map((t) => t.resource_server).sort()).toEqual(['auth.globus.org', 'transfer.api.globus.org']);
    const search = await agent.get('/console/search');
    expect(search.status).toBe(200);
    const out = await agent.post('/console/logout').type('form').send({ _csrf: hidden(search.text, '_csrf') });
    expect(out.status).toBe(303);
    expect(new URL(out.headers.location).pathname).toBe('/v2/web/logout');
    expect(await live()).toEqual([]);
    expect((await agent.get('/console/search')).status).toBe(303);
  });

  it('refuses a form without its CSRF token, or with another session\'s', async () => {
    const { agent } = await signedIn('alice');
    const other = await signedIn('bob');
    const bobsToken = hidden((await other.agent.get('/console/endpoints/new')).text, '_csrf');
    for (const form of [{ display_name: 'Forged' }, { display_name: 'Forged', _csrf: bobsToken }]) {
      const res = await agent.post('/console/endpoints').type('form').send(form);
      expect(res.status).toBe(403);
      expect(res.text).toContain('Form expired');
    }
    const search = await agent.get('/console/search?scope=my-endpoints');
    expect(search.text).not.toContain('Forged');
  });

  it('refuses a callback that no sign-in of this browser started', async () => {
    const res = await supertest(world.url).get('/console/callback?code=abc&state=forged');
    expect(res.status).toBe(400);
    expect(res.text).toContain('Sign-in failed');
  });

  it('answers an endpoint it cannot find, or may not show, with that page', async () => {
    const { agent } = await signedIn('bob');
    const missing = await agent.get('/console/endpoints/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('No such endpoint');
    const { token } = await world.services.admin.tokens.issueToken('alice');
    const created = await fetch(`${world.url}/v0.10/endpoint`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ display_name: 'Private', public: false }) });
    const { id } = (await created.json()) as { id: string };
    const hidden = await agent.get(`/console/endpoints/${id}`);
    expect(hidden.status).toBe(403);
    expect(hidden.text).not.toContain('Private');
  });

  it('shows an endpoint\'s fields grouped, with the pause rules that affect the person', async () => {
    const { token } = await world.services.admin.tokens.issueToken('alice');
    const created = await fetch(`${world.url}/v0.10/endpoint`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ display_name: 'Paused DTN', organization: 'Example Lab' }) });
    const { id } = (await created.json()) as { id: string };
    await world.services.admin.endpoints.addPauseRule(id, { message: 'Maintenance until Friday' });
    const { agent } = await signedIn('alice');
    const page = await agent.get(`/console/endpoints/${id}`);
    expect(page.status).toBe(200);
    for (const group of ['About', 'Connection', 'Management', 'Status', 'Pause rules']) expect(page.text).toContain(`>${group}</h3>`);
    expect(page.text).toMatch(/<dt>Organization<\/dt><dd>Example Lab<\/dd>/);
    expect(page.text).toContain('<strong>Maintenance until Friday</strong>');
  });

  it("lists the data nodes of the person's endpoints with their last contact, and shows an endpoint's node on its overview", async () => {
    const { token } = await world.services.admin.tokens.issueToken('alice');
    const created = await fetch(`${world.url}/v0.10/endpoint`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ display_name: 'Cluster scratch' }) });
    const { id } = (await created.json()) as { id: string };
    const { node, secret } = await world.services.admin.nodes.addNode({ name: 'cluster-node', url: 'https://dtn.cluster.example.org:8443' });
    await world.services.admin.endpoints.setStorage(id, { type: 'node', node: node.id, root: '/scratch' });
    const { agent } = await signedIn('alice');
    const nodes = await agent.get('/console/nodes');
    expect(nodes.status).toBe(200);
    expect(nodes.text).toContain('<h2>cluster-node</h2>');
    expect(nodes.text).toContain('<dt>Last contact</dt><dd>Never: the node has not reached the service yet</dd>');
    expect(nodes.text).toContain(`<a href="/console/endpoints/${id}">Cluster scratch</a>`);
    await world.services.admin.nodes.authenticate(node.id, secret);
    expect((await agent.get('/console/nodes')).text).toMatch(/<dt>Last contact<\/dt><dd>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+00:00<\/dd>/);
    const overview = await agent.get(`/console/endpoints/${id}`);
    expect(overview.text).toContain('>Data node</h3>');
    expect(overview.text).toContain('<dt>Served by</dt><dd><a href="/console/nodes">cluster-node</a> (https://dtn.cluster.example.org:8443)</dd>');
    // nobody else's nodes
    const bob = await signedIn('bob');
    const none = await bob.agent.get('/console/nodes');
    expect(none.text).not.toContain('cluster-node');
    expect(none.text).toContain('No endpoint you administer is served by a data node.');
  });

  it("shows the administrator of a node's GCS endpoint its storage gateways and their collections, and nobody else", async () => {
    const { node } = await world.services.admin.nodes.addNode({ name: 'gcs-node', url: 'https://gcs.example.org', owner: 'alice' });
    const { agent } = await signedIn('alice');
    expect((await agent.get('/console/nodes')).text).toContain('No storage gateway yet: its administrators make them through its GCS Manager API (<code>https://gcs.example.org/api/</code>).');
    const { token } = await world.services.admin.tokens.issueToken('alice');
    const created = await fetch(`${world.url}/v0.10/endpoint`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ display_name: 'Microscope <raw>' }) });
    const { id } = (await created.json()) as { id: string };
    // bound by the operator: a mapped collection of a gateway for its directory
    await world.services.admin.endpoints.setStorage(id, { type: 'node', node: node.id, root: '/srv/microscope' });
    const page = await agent.get('/console/nodes');
    expect(page.text).toContain('<h2>gcs-node</h2>');
    expect(page.text).toContain('<td>POSIX /srv/microscope</td>');
    expect(page.text).toContain('<td><code>/srv/microscope</code></td>');
    expect(page.text).toContain(`<a href="/console/endpoints/${id}">Microscope &lt;raw&gt;</a> (Mapped)`);
    const bob = await signedIn('bob');
    expect((await bob.agent.get('/console/nodes')).text).not.toContain('gcs-node');
  });

  it('asks for a username before it looks anyone up, and says when nobody has it', async () => {
    const { token } = await world.services.admin.tokens.issueToken('alice');
    const created = await fetch(`${world.url}/v0.10/endpoint`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ display_name: 'Roles DTN' }) });
    const { id } = (await created.json()) as { id: string };
    const { agent } = await signedIn('alice');
    const csrf = hidden((await agent.get(`/console/endpoints/${id}/roles`)).text, '_csrf');
    const empty = await agent.post(`/console/endpoints/${id}/roles`).type('form').send({ _csrf: csrf, username: '', role: 'activity_monitor' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('<p class="field-error" id="e-username">Give the username of the person to grant the role to.</p>');
    const nobody = await agent.post(`/console/endpoints/${id}/roles`).type('form').send({ _csrf: csrf, username: 'nobody@example.org', role: 'activity_monitor' });
    expect(nobody.text).toContain('No identity with the username &#39;nobody@example.org&#39;.');
    expect((await world.services.admin.endpoints.listRoles(id)).map((r) => r.principal)).toEqual(['alice']);
  });

  it('sends people back only to pages of the console', () => {
    expect(safeConsolePath('/console/endpoints/x?tab=1')).toBe('/console/endpoints/x?tab=1');
    for (const hostile of ['//evil.example.org/console/', 'https://evil.example.org/console/', '/console/../v2/web/consents', '/console/login', '/console\\evil', undefined, ['/console/search']]) {
      expect(safeConsolePath(hostile)).toBe('/console/search');
    }
  });
});
