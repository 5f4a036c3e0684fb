import { createServer, type Server } from 'node:http';
import { Runtime } from '@xfer/runtime';
import { createLogger, freePort } from '@xfer/server-kit';
import { closeBrowserSuite, launchTestBrowser, testChromium } from '@xfer/server-kit/testing';
import { generators, Issuer, type BaseClient } from 'openid-client';
import type { Browser } from 'playwright-core';
import { pagesCoreSettings } from '../coreSettings';
import { createApp } from '../http/app';

/**
 * A relying party that knows only xfer's discovery URL signs a user in with a standard OpenID
 * Connect client library (openid-client), which verifies the id_token with the published keys.
 */
const CHROMIUM = testChromium();
const PASSWORD = 'a long demo password';

const listenOn = (server: Server, port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

/** The relying party: /login starts the flow (PKCE, nonce, state), /callback verifies and shows who signed in. */
function relyingParty(client: () => BaseClient, redirectUri: string) {
  const pending = new Map<string, { verifier: string; nonce: string }>();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', redirectUri);
    if (url.pathname === '/login') {
      const [state, nonce, verifier] = [generators.state(), generators.nonce(), generators.codeVerifier()];
      pending.set(state, { verifier, nonce });
      const location = client().authorizationUrl({ scope: 'openid profile email', state, nonce, code_challenge: generators.codeChallenge(verifier), code_challenge_method: 'S256' });
      res.writeHead(302, { location }).end();
      return;
    }
    if (url.pathname === '/callback') {
      const params = client().callbackParams(req);
      const checks = pending.get(String(params.state));
      try {
        const tokens = await client().callback(redirectUri, params, { state: String(params.state), nonce: checks?.nonce, code_verifier: checks?.verifier });
        const claims = tokens.claims();
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Signed in</h1><p id="who">${claims.preferred_username} ${claims.email}</p><p id="sub">${claims.sub}</p>`);
      } catch (error) {
        res.writeHead(400, { 'content-type': 'text/html' }).end(`<h1>Refused</h1><p id="why">${(error as Error).message}</p>`);
      }
      return;
    }
    res.writeHead(404).end();
  });
  return server;
}

(CHROMIUM ? describe : describe.skip)('OpenID Connect sign-in of a relying party that uses only the discovery document, in a real browser', () => {
  let browser: Browser;
  let runtime: Runtime;
  const servers: Server[] = [];
  let rpUrl: string;
  let aliceId: string;

  beforeAll(async () => {
    const authPort = await freePort();
    const issuer = `http://127.0.0.1:${authPort}`;
    runtime = await Runtime.open({ kind: 'server', databaseUrl: 'sqlite::memory:', core: pagesCoreSettings({ issuer }) });
    const authServer = createServer(createApp(runtime.appServices, { logger: createLogger({ level: 'silent' }), issuer }));
    servers.push(authServer);
    await listenOn(authServer, authPort);

    const { admin } = runtime.services;
    aliceId = (await admin.identities.addIdentity({ username: 'alice', name: 'Alice Example', email: 'alice@example.org' })).id;
    await admin.identities.setPassword('alice', PASSWORD);
    for (const scope of ['openid', 'profile', 'email']) await admin.clients.addScope(scope, `Know your ${scope === 'openid' ? 'identity' : scope}`);

    const rpPort = await freePort();
    rpUrl = `http://127.0.0.1:${rpPort}`;
    const registered = await admin.clients.addClient({ display_name: 'OIDC Portal', redirect_uris: [`${rpUrl}/callback`], public_client: false });
    // the relying party learns everything else from the discovery document
    const discovered = await Issuer.discover(issuer);
    const client = new discovered.Client({
      client_id: registered.client.id,
      client_secret: registered.secret!,
      redirect_uris: [`${rpUrl}/callback`],
      response_types: ['code'],
      id_token_signed_response_alg: 'RS512',
    });
    const rp = relyingParty(() => client, `${rpUrl}/callback`);
    servers.push(rp);
    await listenOn(rp, rpPort);

    browser = await launchTestBrowser();
  }, 60_000);

  afterAll(async () => {
    await closeBrowserSuite(browser, servers);
    await runtime?.close();
  });

  it('signs in, consents, and the relying party verifies the id_token with the published keys', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${rpUrl}/login`);
    await page.waitForURL(/\/v2\/web\/login\?next=/);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/v2\/web\/authorize\?/);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${rpUrl}/callback?**`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Signed in');
    expect(await page.locator('#who').textContent()).toBe('alice alice@example.org');
    expect(await page.locator('#sub').textContent()).toBe(aliceId);
  });
});
