import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { transferRequest } from '@xfer/core/testing';
import { launchTestBrowser, screenshotFolder, testChromium } from '@xfer/server-kit/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PASSWORD, startConsoleWorld, type ConsoleWorld } from './harness';

/**
 * The console in Chromium, as two people: alice creates an endpoint and a share, grants bob a role
 * and a read permission; bob finds the share and cannot edit it. Every page is checked with axe-core
 * and at a phone's width.
 */
const CHROMIUM = testChromium();
const screenshots = screenshotFolder(join(__dirname, '..', '..', '..', '..', 'docs', 'screenshots'));
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

(CHROMIUM ? describe : describe.skip)('the web console in a real browser', () => {
  let browser: Browser;
  let world: ConsoleWorld;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    world = await startConsoleWorld();
    browser = await launchTestBrowser();
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await world?.close();
    screenshots.cleanup();
  });

  async function newPage(width = 1000): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    contexts.push(context);
    return context.newPage();
  }

  /** axe-core's serious and critical violations on the page as it is now. */
  async function seriousViolations(page: Page): Promise<string[]> {
    await page.evaluate(AXE_SOURCE);
    const result = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }).axe;
      return axe.run(document);
    });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.length})`);
  }

  /** Every page a test visits: no serious accessibility violation, and nothing wider than the window. */
  const checked: string[] = [];
  async function check(page: Page, name: string) {
    expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
    const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
    expect({ page: name, overflow: scrollWidth > innerWidth }).toEqual({ page: name, overflow: false });
    checked.push(name);
  }

  async function signIn(page: Page, username: string) {
    await page.goto(`${world.url}/console/`);
    await check(page, 'home');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Username', { exact: true }).fill(username);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/v2\/web\/authorize\?|\/console\/search/);
    // the first time, the consent page names the console
    if (page.url().includes('/v2/web/authorize')) {
      expect(await page.textContent('main')).toContain('xfer console');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(/\/console\/search/);
    }
    expect(await page.textContent('footer')).toContain(`Signed in as ${username}`);
  }

  const fieldError = (page: Page, label: string) => page.locator(`#${`e-${label}`}`);

  it('alice creates an endpoint and a share, grants bob a role and a permission; bob finds the share and cannot edit it', async () => {
    const alice = await newPage(375);
    await signIn(alice, 'alice');
    await check(alice, 'search (empty)');
    expect(await alice.textContent('main')).toContain('No endpoints found');

    // create: the API's refusal appears beside its field
    await alice.getByRole('link', { name: 'Create endpoint' }).click();
    await check(alice, 'create endpoint');
    await alice.getByLabel('Display name', { exact: true }).fill('x'.repeat(200));
    await alice.getByRole('button', { name: 'Create endpoint' }).click();
    await expect(fieldError(alice, 'display_name').textContent()).resolves.toContain('at most 128 characters');
    expect(await alice.getByLabel('Display name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await check(alice, 'create endpoint with an error');
    await alice.getByLabel('Display name', { exact: true }).fill('Lab DTN');
    await alice.getByLabel('Description', { exact: true }).fill('The lab\'s data transfer node');
    await alice.getByLabel('Organization', { exact: true }).fill('Example Lab');
    await alice.getByLabel('Keywords', { exact: true }).fill('genomics, imaging');
    await alice.getByLabel('Contact email', { exact: true }).fill('lab@example.org');
    await alice.getByLabel('Managed by my subscription', { exact: true }).check();
    await alice.getByLabel('Server hostname', { exact: true }).fill('dtn.example.org');
    await alice.getByRole('button', { name: 'Create endpoint' }).click();
    await alice.getByRole('heading', { name: 'Endpoint created' }).waitFor();
    await check(alice, 'endpoint created');
    await alice.getByRole('link', { name: 'Open the endpoint' }).click();
    const hostUrl = alice.url();
    await check(alice, 'overview');
    const overview = await alice.textContent('main');
    for (const text of ['Lab DTN', 'Example Lab', 'genomics, imaging', 'lab@example.org', 'Subscription', world.subscriptionId, 'Pause rules']) expect(overview).toContain(text);

    // edit: saved, and a refusal beside its field
    await alice.getByRole('link', { name: 'Edit' }).click();
    await check(alice, 'edit');
    await alice.getByLabel('Contact email', { exact: true }).fill('not an address');
    await alice.getByRole('button', { name: 'Save' }).click();
    await expect(fieldError(alice, 'contact_email').textContent()).resolves.toContain("'not an address' is not an e-mail address");
    await alice.getByLabel('Contact email', { exact: true }).fill('dtn@example.org');
    await alice.getByRole('button', { name: 'Save' }).click();
    await alice.waitForURL(hostUrl);
    expect(await alice.textContent('main')).toContain('dtn@example.org');

    // servers: add, edit, remove
    await alice.getByRole('link', { name: 'Servers' }).click();
    await check(alice, 'servers');
    expect(await alice.textContent('main')).toContain('gsiftp://dtn.example.org:2811');
    await alice.getByLabel('Hostname', { exact: true }).fill('dtn2.example.org');
    await alice.getByRole('button', { name: 'Add server' }).click();
    expect(await alice.textContent('main')).toContain('gsiftp://dtn2.example.org:2811');
    await alice.getByRole('link', { name: 'Edit dtn2.example.org' }).click();
    await check(alice, 'edit server');
    await alice.getByLabel('Port', { exact: true }).fill('2812');
    await alice.getByRole('button', { name: 'Save' }).click();
    expect(await alice.textContent('main')).toContain('gsiftp://dtn2.example.org:2812');
    await alice.getByRole('button', { name: 'Remove server dtn2.example.org' }).click();
    expect(await alice.textContent('main')).not.toContain('dtn2.example.org');

    // roles: grant bob a role by username
    await alice.getByRole('link', { name: 'Roles' }).click();
    await alice.getByLabel('Username', { exact: true }).fill('nobody-here');
    await alice.getByRole('button', { name: 'Grant role' }).click();
    await expect(fieldError(alice, 'username').textContent()).resolves.toContain("No identity with the username 'nobody-here'");
    await alice.getByLabel('Username', { exact: true }).fill('bob');
    await alice.getByLabel('Role', { exact: true }).selectOption({ label: 'Activity monitor' });
    await alice.getByRole('button', { name: 'Grant role' }).click();
    const roles = await alice.textContent('main');
    expect(roles).toContain('Granted Activity monitor to bob');
    expect(roles).toMatch(/alice\s*Administrator/);
    expect(roles).toMatch(/bob\s*Activity monitor/);
    await check(alice, 'roles');
    await alice.setViewportSize({ width: 1000, height: 700 });
    await alice.screenshot({ path: join(screenshots.dir, 'console-roles.png') });
    await alice.setViewportSize({ width: 375, height: 900 });

    // a share of a folder, with a read permission for bob
    await alice.getByRole('link', { name: 'Shares' }).click();
    await check(alice, 'shares');
    await alice.getByLabel('Path', { exact: true }).fill('/~/project/');
    await alice.getByLabel('Display name', { exact: true }).fill('Project share');
    await alice.getByRole('button', { name: 'Create share' }).click();
    await alice.waitForURL(/\/permissions$/);
    const shareUrl = alice.url().replace(/\/permissions$/, '');
    await check(alice, 'permissions (empty)');
    await alice.getByLabel('Username', { exact: true }).fill('bob');
    await alice.getByLabel('Path', { exact: true }).fill('/');
    await alice.getByLabel('Permissions', { exact: true }).selectOption({ label: 'Read' });
    await alice.getByRole('button', { name: 'Add permission' }).click();
    expect(await alice.textContent('main')).toContain('Permission added');
    // the same principal and path twice: the API's refusal beside the path
    await alice.getByLabel('Username', { exact: true }).fill('bob');
    await alice.getByLabel('Path', { exact: true }).fill('/');
    await alice.getByRole('button', { name: 'Add permission' }).click();
    await expect(fieldError(alice, 'path').textContent()).resolves.toContain('exists already');
    await check(alice, 'permissions with an error');
    await alice.getByRole('link', { name: 'Edit the permission of bob on /' }).click();
    await check(alice, 'edit permission');
    await alice.getByLabel('Permissions', { exact: true }).selectOption({ label: 'Read and write' });
    await alice.getByRole('button', { name: 'Save' }).click();
    expect(await alice.textContent('main')).toMatch(/bob\s*Path\s*\/\s*Access\s*Read and write/);
    await alice.getByRole('link', { name: 'Edit the permission of bob on /' }).click();
    await alice.getByLabel('Permissions', { exact: true }).selectOption({ label: 'Read' });
    await alice.getByRole('button', { name: 'Save' }).click();
    await alice.getByLabel('Share with', { exact: true }).selectOption({ label: 'All signed-in users' });
    await alice.getByLabel('Path', { exact: true }).fill('/public/');
    await alice.getByRole('button', { name: 'Add permission' }).click();
    const permissions = await alice.textContent('main');
    expect(permissions).toMatch(/bob\s*Path\s*\/\s*Access\s*Read\b/);
    expect(permissions).toContain('All signed-in users');
    await alice.setViewportSize({ width: 1000, height: 900 });
    await alice.screenshot({ path: join(screenshots.dir, 'console-permissions.png'), fullPage: true });
    await alice.setViewportSize({ width: 375, height: 900 });
    await alice.getByRole('button', { name: 'Delete the permission of All signed-in users on /public/' }).click();
    expect(await alice.textContent('main')).toContain('Permission deleted');
    expect(await alice.locator('main ul.cards').textContent()).not.toContain('All signed-in users');

    // bob: the share under "Shared with me", readable, not editable
    const bob = await newPage(375);
    await signIn(bob, 'bob');
    await bob.getByRole('link', { name: 'Shared with me' }).click();
    await check(bob, 'search: shared with me');
    await bob.getByRole('link', { name: 'Project share' }).click();
    expect(bob.url()).toBe(shareUrl);
    await check(bob, 'share overview as bob');
    expect(await bob.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    await bob.goto(`${shareUrl}/edit`);
    expect(await bob.textContent('main')).toContain('Only an administrator of this endpoint may edit it');
    expect(await bob.getByRole('button', { name: 'Save' }).count()).toBe(0);
    await check(bob, 'edit refused');
    // the host, where bob monitors activity: he sees it under "Administered by me"? no: he is a monitor, it is not his
    await bob.goto(`${world.url}/console/search?scope=administered-by-me`);
    expect(await bob.textContent('main')).not.toContain('Lab DTN');
  });

  it('creates a personal endpoint whose setup key is shown once, and deletes it after a confirmation that names it', async () => {
    const page = await newPage();
    await signIn(page, 'alice');
    await page.getByRole('link', { name: 'Create endpoint' }).click();
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Personal endpoint (Globus Connect Personal)' });
    await page.getByLabel('Display name', { exact: true }).fill('Alice laptop');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const key = await page.locator('#setup-key').textContent();
    expect(key).toMatch(/^[A-Za-z0-9-]{20,}$/);
    await page.getByRole('link', { name: 'Open the endpoint' }).click();
    expect(await page.textContent('main')).not.toContain(key!);
    await page.getByRole('link', { name: 'Delete' }).click();
    await check(page, 'delete');
    expect(await page.textContent('main')).toContain('Delete the endpoint Alice laptop and every share it hosts?');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/console\/search/);
    expect(await page.textContent('main')).toContain("Endpoint 'Alice laptop' deleted.");
  });

  it('lands every form on a page after reload, back and forward, and makes nothing twice', async () => {
    const page = await newPage();
    await signIn(page, 'alice');
    const ERROR_TITLES = ['Request refused', 'Form expired', 'Something went wrong', 'Bad request', 'Not found', 'Not allowed', 'Service unavailable'];
    /** After a form: reload, back and forward each land on a page of the console that is no error. */
    async function movesLandOnPages(form: string) {
      for (const move of ['reload', 'back', 'forward'] as const) {
        const response = move === 'reload' ? await page.reload() : move === 'back' ? await page.goBack() : await page.goForward();
        const heading = (await page.locator('h1').first().textContent())?.trim();
        expect({ form, move, status: response?.status(), error: ERROR_TITLES.includes(heading ?? '') }).toEqual({ form, move, status: expect.any(Number), error: false });
        expect({ form, move, status: response!.status() < 400 || response!.status() === 410 }).toEqual({ form, move, status: true });
      }
    }
    await page.goto(`${world.url}/console/endpoints/new`);
    await page.getByLabel('Display name', { exact: true }).fill('Reload DTN');
    await page.getByLabel('Managed by my subscription', { exact: true }).check();
    await page.getByLabel('Server hostname', { exact: true }).fill('reload.example.org');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('heading', { name: 'Endpoint created' }).waitFor();
    const hostUrl = page.url().replace(/\/created$/, '');
    await movesLandOnPages('create endpoint');
    await page.goto(`${hostUrl}/edit`);
    await page.getByLabel('Description', { exact: true }).fill('Reloaded');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(hostUrl);
    await movesLandOnPages('edit');
    await page.goto(`${hostUrl}/servers`);
    await page.getByLabel('Hostname', { exact: true }).fill('reload2.example.org');
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByText('Server added.').waitFor();
    await movesLandOnPages('add server');
    await page.goto(`${hostUrl}/servers`);
    await page.getByRole('button', { name: 'Remove server reload2.example.org' }).click();
    await page.getByText('Server removed.').waitFor();
    await movesLandOnPages('remove server');
    await page.goto(`${hostUrl}/roles`);
    await page.getByLabel('Username', { exact: true }).fill('bob');
    await page.getByRole('button', { name: 'Grant role' }).click();
    await page.getByText('Granted').first().waitFor();
    await movesLandOnPages('grant role');
    await page.goto(`${hostUrl}/shares`);
    await page.getByLabel('Path', { exact: true }).fill('/reload/');
    await page.getByLabel('Display name', { exact: true }).fill('Reload share');
    await page.getByRole('button', { name: 'Create share' }).click();
    await page.waitForURL(/\/permissions$/);
    const shareUrl = page.url().replace(/\/permissions$/, '');
    await movesLandOnPages('create share');
    await page.goto(`${shareUrl}/permissions`);
    await page.getByLabel('Username', { exact: true }).fill('bob');
    await page.getByLabel('Path', { exact: true }).fill('/');
    await page.getByRole('button', { name: 'Add permission' }).click();
    await page.getByText('Permission added').waitFor();
    await movesLandOnPages('add permission');
    await page.goto(`${shareUrl}/delete`);
    await page.getByRole('button', { name: /Delete/ }).last().click();
    await page.waitForURL(/\/console\/search/);
    await movesLandOnPages('delete share');
    // nothing made twice
    const { token } = await world.services.admin.tokens.issueToken('alice');
    const mine = await (await fetch(`${world.url}/v0.10/endpoint_search?filter_scope=my-endpoints&filter_fulltext=reload`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect((mine.DATA as { display_name: string }[]).map((e) => e.display_name)).toEqual(['Reload DTN']);
    const hostId = hostUrl.split('/').pop()!;
    expect((await world.services.admin.endpoints.listRoles(hostId)).filter((r) => r.principal === 'bob')).toHaveLength(1);
    const servers = await (await fetch(`${world.url}/v0.10/endpoint/${hostId}/server_list`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect((servers.DATA as { hostname: string }[]).map((x) => x.hostname)).toEqual(['reload.example.org']);
  });

  it('searches and pages through results with the keyboard only, and signs out', async () => {
    const { token } = await world.services.admin.tokens.issueToken('alice');
    for (let i = 1; i <= 30; i++) {
      const created = await fetch(`${world.url}/v0.10/endpoint`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ display_name: `Microscope ${String(i).padStart(2, '0')}`, description: 'Imaging data' }),
      });
      expect(created.status).toBe(201);
    }
    const page = await newPage();
    await signIn(page, 'alice');
    // Tab to the search box, type, Enter
    for (let i = 0; i < 10 && (await page.evaluate(() => document.activeElement?.id)) !== 'q'; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('q');
    await page.keyboard.type('microscope');
    await page.keyboard.press('Enter');
    await page.waitForURL(/q=microscope/);
    await check(page, 'search results');
    expect(await page.locator('ul.results > li').count()).toBe(25);
    await page.setViewportSize({ width: 1000, height: 800 });
    await page.screenshot({ path: join(screenshots.dir, 'console-search.png') });
    const next = page.getByRole('link', { name: 'Next page' });
    await next.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/page=2/);
    expect(await page.locator('ul.results > li').count()).toBe(5);
    expect(await page.getByRole('link', { name: 'Previous page' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/v2\/web\/logout/);
    await page.getByRole('link', { name: /xfer console/ }).first().click();
    await page.goto(`${world.url}/console/search`);
    await page.waitForURL(/\/v2\/web\/login/);
  });

  it("browses an endpoint's files on a narrow screen: opens a folder, makes one, renames a file into it", async () => {
    const page = await newPage(375);
    await signIn(page, 'alice');
    await page.getByRole('link', { name: 'Create endpoint' }).click();
    await page.getByLabel('Display name', { exact: true }).fill('Microscope storage');
    await page.getByLabel('Server hostname', { exact: true }).fill('scope.example.org');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('link', { name: 'Open the endpoint' }).click();
    const id = page.url().split('/').pop()!;
    await world.services.admin.endpoints.setStorage(id, { type: 'memory' });
    world.storages.treeOf(id).replace({ '/home/alice/session-2026-11-25-with-a-rather-long-name/image-0001.tiff': 'x'.repeat(3000), '/home/alice/notes.txt': 'focus 4.2' });

    await page.getByRole('link', { name: 'Files' }).click();
    await check(page, 'files');
    await page.getByRole('link', { name: 'session-2026-11-25-with-a-rather-long-name/' }).click();
    expect(await page.textContent('table')).toContain('2.9 KB');
    await page.getByRole('link', { name: 'Up to the parent folder' }).click();
    await page.getByLabel('Folder name', { exact: true }).fill('plots');
    await page.getByRole('button', { name: 'Make folder' }).click();
    await page.getByRole('status').filter({ hasText: "Folder 'plots' made." }).waitFor();
    await page.getByLabel('Folder name', { exact: true }).fill('plots');
    await page.getByRole('button', { name: 'Make folder' }).click();
    await expect(fieldError(page, 'name').textContent()).resolves.toContain("A file or folder named 'plots' is already here.");
    await check(page, 'files with an error');

    await page.getByRole('link', { name: 'Rename notes.txt' }).click();
    await check(page, 'rename');
    await page.getByLabel('New path', { exact: true }).fill('/home/alice/plots/notes-1.txt');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('status').filter({ hasText: "Renamed 'notes.txt'." }).waitFor();
    expect(await page.textContent('table')).toContain('notes-1.txt');
    expect(world.storages.treeOf(id).files()).toMatchObject({ '/home/alice/plots/notes-1.txt': 'focus 4.2' });
  });

  it('shows the activity of a person on a narrow screen: the task list and a task with its events', async () => {
    const alice = await world.services.authentication.principalOf((await world.services.admin.identities.listIdentities()).find((i) => i.username === 'alice')!.id);
    const lab = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Activity lab', personal: false })).id;
    await world.services.admin.endpoints.setStorage(lab, { type: 'memory' });
    world.storages.treeOf(lab).replace({ '/data/a-file-with-a-rather-long-name-for-a-narrow-screen.csv': 'x'.repeat(100), '/in/': null });
    const { task } = await world.services.tasks.submit(alice, transferRequest({ submission_id: world.services.tasks.submissionId(), source_endpoint: lab, destination_endpoint: lab, label: 'Nightly copy', items: [{ source_path: '/data/', destination_path: '/in/copy/', recursive: true }] }));
    await world.services.taskRunner.run(task.id);
    const page = await newPage(375);
    await signIn(page, 'alice');
    await page.getByRole('link', { name: 'Activity', exact: true }).click();
    await check(page, 'activity');
    await page.getByRole('link', { name: 'Nightly copy' }).click();
    expect(await page.textContent('main')).toContain('a-file-with-a-rather-long-name-for-a-narrow-screen.csv');
    await check(page, 'task');
  });

  it('checked every page of the walk', () => {
    expect(checked.length).toBeGreaterThanOrEqual(26);
  });
});
