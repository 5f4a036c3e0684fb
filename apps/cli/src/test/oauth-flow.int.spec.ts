import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createApp as createApiApp } from '@xfer/api';
import { TRANSFER_SCOPE } from '@xfer/core';
import { createApp as createPagesApp, pagesCoreSettings } from '@xfer/helper-pages';
import { Runtime } from '@xfer/runtime';
import { createLogger } from '@xfer/server-kit';
import { closeBrowserSuite, launchTestBrowser, screenshotFolder, testChromium } from '@xfer/server-kit/testing';
import type { Browser } from 'playwright-core';

/**
 * The whole OAuth 2.0 flow in Debian's Chromium, as a user of a web application sees it: a tiny
 * relying party served by this test signs the user in through xfer (authorize, sign-in, consent),
 * exchanges the code with PKCE, calls the API with the token; then the user rescinds on the
 * consents page, the same token is refused, and the user logs out.
 */
const CHROMIUM = testChromium();
const screenshots = screenshotFolder(join(__dirname, '..', '..', '..', '..', 'docs', 'screenshots'));
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const PASSWORD = 'a long demo password';

const listen = async (server: Server) => {
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A web application that signs its users in with xfer: public client, PKCE, code exchange on its server. */
function relyingParty(authUrl: string, apiUrl: string, registration: { clientId: string; redirectUri: string }) {
  const pending = new Map<string, string>();
  const issued: { accessToken?: string } = {};
  const server = createServer(async (req, res) => {
    const { clientId, redirectUri } = registration;
    const url = new URL(req.url ?? '/', 'http://portal.invalid');
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Tiny Portal</title>${body}`);
    if (url.pathname === '/') {
      const state = randomBytes(12).toString('base64url');
      const verifier = randomBytes(32).toString('base64url');
      pending.set(state, verifier);
      const authorize = new URL('/v2/oauth2/authorize', authUrl);
      authorize.search = new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: `${TRANSFER_SCOPE} openid`,
        state,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      return html(`<h1>Tiny Portal</h1><a href="${escapeHtml(authorize.href)}">Sign in with xfer</a>`);
    }
    if (url.pathname === '/callback') {
      const state = url.searchParams.get('state') ?? '';
      const verifier = pending.get(state);
      pending.delete(state);
      if (!verifier) return html(`<h1>Unknown state</h1><p>${escapeHtml(url.searchParams.get('error') ?? '')}</p>`);
      const token = await fetch(`${authUrl}/v2/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: url.searchParams.get('code') ?? '', redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }),
      });
      const tokens = (await token.json()) as { access_token: string; resource_server: string };
      issued.accessToken = tokens.access_token;
      const created = await fetch(`${apiUrl}/v0.10/endpoint`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ display_name: 'Made by Tiny Portal' }),
      });
      const result = (await created.json()) as { code: string; canonical_name?: string };
      return html(`<h1>Signed in</h1><p id="token-for">${escapeHtml(tokens.resource_server)}</p><p id="api">${created.status} ${escapeHtml(result.code)} ${escapeHtml(result.canonical_name ?? '')}</p>`);
    }
    res.writeHead(404).end();
  });
  return { server, issued };
}

// without a Chromium the run fails in jest.global-setup.js, unless the user skipped the browser suites
(CHROMIUM ? describe : describe.skip)('OAuth 2.0 sign-in of a web application, in a real browser', () => {
  let browser: Browser;
  let runtime: Runtime;
  const servers: Server[] = [];
  let authUrl: string;
  let apiUrl: string;
  let portal: ReturnType<typeof relyingParty>;
  let portalUrl: string;

  beforeAll(async () => {
    runtime = await Runtime.open({ kind: 'server', databaseUrl: 'sqlite::memory:', core: pagesCoreSettings({}) });
    const logger = createLogger({ level: 'silent' });
    const pagesServer = createServer(createPagesApp(runtime.appServices, { logger }));
    const apiServer = createServer(createApiApp(runtime.appServices, { logger }));
    servers.push(pagesServer, apiServer);
    authUrl = await listen(pagesServer);
    apiUrl = await listen(apiServer);

    const { admin } = runtime.services;
    await admin.identities.addIdentity({ username: 'alice', name: 'Alice Example' });
    await admin.identities.setPassword('alice', PASSWORD);
    await admin.clients.addScope('urn:xfer:scope:storage.example.org:data_access', 'Read and write files on your lab storage');
    await admin.clients.addScope(TRANSFER_SCOPE, 'Manage your endpoints and file transfers', { dependsOn: ['urn:xfer:scope:storage.example.org:data_access'] });
    await admin.clients.addScope('openid', 'Know who you are');
    // the portal's address is known once it listens; its client is registered for exactly that callback
    const registration = { clientId: '', redirectUri: '' };
    portal = relyingParty(authUrl, apiUrl, registration);
    servers.push(portal.server);
    portalUrl = await listen(portal.server);
    registration.redirectUri = `${portalUrl}/callback`;
    const { client } = await admin.clients.addClient({ display_name: 'Tiny Portal', redirect_uris: [registration.redirectUri], branding: { primary_color: '#5a2d82' } });
    registration.clientId = client.id;

    browser = await launchTestBrowser();
  }, 60_000);

  afterAll(async () => {
    await closeBrowserSuite(browser, servers);
    await runtime?.close();
    screenshots.cleanup();
  });

  it('authorize, sign in, consent, code exchange with PKCE, API call, consent shown, Rescind, token refused, logout', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
    const page = await context.newPage();

    await page.goto(portalUrl);
    await page.getByRole('link', { name: 'Sign in with xfer' }).click();
    await page.waitForURL(/\/v2\/web\/login\?next=/);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.waitForURL(/\/v2\/web\/authorize\?/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Allow Tiny Portal to act for you?');
    const activities = await page.locator('.activity').allTextContents();
    expect(activities).toEqual(['Manage your endpoints and file transfers', 'Read and write files on your lab storage', 'Know who you are']);
    expect(await page.locator('ul.consents ul.consents .activity').textContent()).toBe('Read and write files on your lab storage');
    expect(await page.locator('header.site').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(90, 45, 130)');
    await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: { id: string }[] }> } }).axe;
      return (await axe.run(document)).violations.map((v) => v.id);
    });
    expect(violations).toEqual([]);
    await page.screenshot({ path: join(screenshots.dir, 'consent.png'), fullPage: true });

    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${portalUrl}/callback?**`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Signed in');
    expect(await page.locator('#token-for').textContent()).toBe('transfer.api.globus.org');
    expect(await page.locator('#api').textContent()).toMatch(/^201 Created alice#[0-9a-f-]{36}$/);
    const token = portal.issued.accessToken!;
    expect((await fetch(`${apiUrl}/v0.10/endpoint/11111111-2222-4333-8444-555555555555`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);

    await page.goto(`${authUrl}/v2/web/consents`);
    const application = page.locator('section.application');
    expect(await application.getByRole('heading', { level: 2 }).textContent()).toBe('Tiny Portal');
    expect(await application.locator('.activity').allTextContents()).toEqual(['Manage your endpoints and file transfers', 'Read and write files on your lab storage', 'Know who you are']);
    await page.screenshot({ path: join(screenshots.dir, 'consents-with-rescind.png'), fullPage: true });

    await application.getByRole('button', { name: /Rescind/ }).click();
    await page.waitForURL(/\/v2\/web\/consents\?rescinded=/);
    expect(await page.getByRole('status').textContent()).toContain('You rescinded your consents to Tiny Portal');
    expect(await page.locator('section.application').count()).toBe(0);
    const refused = await fetch(`${apiUrl}/v0.10/endpoint/11111111-2222-4333-8444-555555555555`, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe('ClientError.AuthenticationFailed');

    await page.goto(`${authUrl}/v2/web/logout`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Logged out');
    expect((await context.cookies()).map((c) => c.name)).not.toContain('xfer_session');
    // signing in with the portal again starts over: sign-in, then the consent screen
    await page.goto(portalUrl);
    await page.getByRole('link', { name: 'Sign in with xfer' }).click();
    await page.waitForURL(/\/v2\/web\/login\?next=/);
    await context.close();
  });
});
