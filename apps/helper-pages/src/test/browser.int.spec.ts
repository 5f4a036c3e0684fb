import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { bootstrapDemo } from '@xfer/core';
import { Runtime } from '@xfer/runtime';
import { createLogger } from '@xfer/server-kit';
import { launchTestBrowser, screenshotFolder, testChromium } from '@xfer/server-kit/testing';
import type { Browser, Page } from 'playwright-core';
import { pagesCoreSettings } from '../coreSettings';
import { createApp } from '../http/app';

/**
 * The helper pages in Debian's Chromium, driven by playwright-core: what a user sees and does.
 * Screenshots are taken of every page.
 */
const CHROMIUM = testChromium();
const screenshots = screenshotFolder(join(__dirname, '..', '..', '..', '..', 'docs', 'screenshots'));
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const PORTAL = 'https://portal.example.org/';

// without a Chromium the run fails in jest.global-setup.js, unless the user skipped the browser suites
(CHROMIUM ? describe : describe.skip)('helper pages in a real browser', () => {
  let browser: Browser;
  let server: Server;
  let runtime: Runtime;
  let base: string;
  let demo: { password: string; query: string };

  beforeAll(async () => {
    runtime = await Runtime.open({ kind: 'server', databaseUrl: 'sqlite::memory:', core: pagesCoreSettings({}) });
    server = createApp(runtime.appServices, { logger: createLogger({ level: 'silent' }) }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const lines = (await bootstrapDemo(runtime.services, 'http://127.0.0.1:8080', base)).join('\n');
    demo = { password: /with password (\S+)/.exec(lines)![1], query: /identities\?(\S+)/.exec(lines)![1] };
    browser = await launchTestBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server.close(resolve));
    await runtime?.close();
    screenshots.cleanup();
  });

  async function newPage(): Promise<{ page: Page; dialogs: string[] }> {
    const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    // the demo portal is not on this machine: answer for it so following the link can be checked
    await context.route(`${PORTAL}**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Portal</title><h1>Portal</h1>' }));
    return { page, dialogs };
  }

  async function axeViolations(page: Page): Promise<string[]> {
    await page.evaluate(AXE_SOURCE);
    const result = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }).axe;
      return axe.run(document);
    });
    return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
  }

  async function signIn(page: Page) {
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(demo.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('signs in, shows identities and consents, follows "Return to", logs out and asks to sign in again', async () => {
    const { page, dialogs } = await newPage();
    await page.goto(`${base}/v2/web/identities?${demo.query}`);
    await page.waitForURL(/\/v2\/web\/login\?next=/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots.dir, 'login.png'), fullPage: true });

    await signIn(page);
    await page.waitForURL(/\/v2\/web\/identities\?/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your identities');
    const cards = page.locator('li.card');
    expect(await cards.count()).toBe(2);
    expect(await cards.nth(0).textContent()).toContain('Primary');
    expect(await cards.nth(1).textContent()).toContain('alice@orcid.example.org');
    expect(await page.locator('header.site').textContent()).toContain('Example Research Portal');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots.dir, 'identities.png'), fullPage: true });

    await page.goto(`${base}/v2/web/consents?${demo.query}`);
    expect(await page.getByRole('heading', { level: 2 }).first().textContent()).toBe('Example Research Portal');
    const nested = page.locator('ul.consents ul.consents li .activity');
    expect(await nested.textContent()).toBe('Read and write files on your lab storage');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots.dir, 'consents.png'), fullPage: true });

    await page.getByRole('link', { name: 'Return to Example Research Portal' }).click();
    await page.waitForURL(PORTAL);

    await page.goto(`${base}/v2/web/logout?${demo.query}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Logged out of Example Research Portal');
    expect(await page.getByRole('link', { name: 'Continue to Example Research Portal' }).getAttribute('href')).toBe(PORTAL);
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('xfer_session');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots.dir, 'logout.png'), fullPage: true });

    await page.goto(`${base}/v2/web/identities`);
    await page.waitForURL(/\/v2\/web\/login\?next=/);
    expect(dialogs).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('never runs script from any parameter or a client display name', async () => {
    const { page, dialogs } = await newPage();
    await page.goto(`${base}/v2/web/login`);
    await signIn(page);
    await page.waitForURL(/identities/);
    const payloads = [
      `"><script>alert('name')</script>`,
      `<img src=x onerror="alert('img')">`,
      `javascript:alert('uri')`,
      `'><svg onload=alert('svg')>`,
    ];
    const { admin } = runtime.services;
    const { client } = await admin.clients.addClient({ display_name: `<script>alert('client')</script>` });
    for (const pagePath of ['logout', 'identities', 'consents']) {
      await page.goto(`${base}/v2/web/${pagePath}`);
      const heading = await page.getByRole('heading', { level: 1 }).textContent();
      for (const payload of payloads) {
        const params = new URLSearchParams({ client_id: client.id, redirect_uri: payload, redirect_name: payload });
        await page.goto(`${base}/v2/web/${pagePath}?${params}`);
        expect(await page.evaluate(() => document.scripts.length)).toBe(0);
        const hrefs = await page.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
        expect(hrefs.filter((h) => !/^(https?:\/\/|\/)/i.test(h))).toEqual([]);
        expect(await page.locator('main').textContent()).not.toContain('Return to');
      }
      // a hostile client_id names no client: the page is the plain one, and nothing runs
      const evilClient = new URLSearchParams({ client_id: payloads[0] });
      const response = await page.goto(`${base}/v2/web/${pagePath}?${evilClient}`);
      expect(response?.status()).toBe(200);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(heading);
      expect(await page.evaluate(() => document.scripts.length)).toBe(0);
      expect(await page.locator('main').textContent()).not.toContain('<script>');
    }
    await page.goto(`${base}/v2/web/logout?client_id=${client.id}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Logged out of <script>alert('client')</script>`);
    expect(dialogs).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('reads well on a phone', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${base}/v2/web/login`);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(demo.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/identities/);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(screenshots.dir, 'identities-phone.png'), fullPage: true });
    await context.close();
  }, 60_000);
});
