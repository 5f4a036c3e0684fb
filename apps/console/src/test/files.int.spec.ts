import { hidden, signInOverHttp, startConsoleWorld, type ConsoleWorld } from './harness';

/** The Files tab: an endpoint's storage through the API, with the API's rules. */
describe("the web console's Files tab", () => {
  let world: ConsoleWorld;
  let host: string;
  let share: string;
  beforeAll(async () => {
    world = await startConsoleWorld();
    const alice = await signInOverHttp(world, 'alice');
    const csrf = hidden((await alice.agent.get('/console/endpoints/new')).text, '_csrf');
    host = (await alice.agent.post('/console/endpoints').type('form').send({ _csrf: csrf, kind: 'server', display_name: 'Lab files', hostname: 'files.example.org', public: 'true', managed: 'true' })).headers.location.split('/')[3] as string;
    await world.services.admin.endpoints.setStorage(host, { type: 'memory' });
    const files: Record<string, string | null> = { '/data/run1.csv': 't,v\n0,1\n', '/data/raw/': null, '/data/<img src=x onerror=alert(1)> name.txt': 'x', '/big/': null };
    for (let i = 0; i < 130; i += 1) files[`/big/f${String(i).padStart(3, '0')}`] = '';
    world.storages.treeOf(host).replace(files);
    const shareForm = await alice.agent.get(`/console/endpoints/${host}/shares`);
    const created = await alice.agent.post(`/console/endpoints/${host}/shares`).type('form').send({ _csrf: hidden(shareForm.text, '_csrf'), display_name: 'Lab data share', host_path: '/data/' });
    share = created.headers.location.split('/')[3] as string;
  });
  afterAll(() => world.close());

  it('lists a folder, folders first, with the way in and out of each and names as text', async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    const page = await agent.get(`/console/endpoints/${host}/files?path=/data/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="/console/endpoints/${host}/files"`); // the tab
    const names = [...page.text.matchAll(/<tr>\s*<td>(.*?)<\/td>/g)].map((m) => m[1].replace(/<[^>]+>/g, ''));
    expect(names).toEqual(['raw/', '&lt;img src=x onerror=alert(1)&gt; name.txt', 'run1.csv']);
    expect(page.text).toContain(`href="/console/endpoints/${host}/files?path=%2Fdata%2Fraw%2F"`);
    expect(page.text).toContain(`href="/console/endpoints/${host}/files?path=%2F"`); // up
    expect(page.text).toContain('8 B');
    expect(page.text).not.toContain('<img');
  });

  it('pages through a folder of 130 entries, 100 at a time', async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    const first = await agent.get(`/console/endpoints/${host}/files?path=/big/`);
    expect(first.text).toContain('1–100 of 130');
    const next = /href="([^"]+)" rel="next"/.exec(first.text)![1].replace(/&amp;/g, '&');
    const second = await agent.get(next);
    expect(second.text).toContain('101–130 of 130');
    expect(second.text).toContain('f129');
    expect(second.text).not.toContain('rel="next"');
    expect(second.text).toContain('rel="prev"');
  });

  it('makes a folder (once: a second time names the refusal beside the field) and renames into another folder', async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    const page = await agent.get(`/console/endpoints/${host}/files?path=/data/`);
    const made = await agent.post(`/console/endpoints/${host}/files/mkdir`).type('form').send({ _csrf: hidden(page.text, '_csrf'), path: '/data/', name: 'plots' });
    expect({ status: made.status, location: made.headers.location }).toEqual({ status: 303, location: `/console/endpoints/${host}/files?path=%2Fdata%2F` });
    const after = await agent.get(made.headers.location);
    expect(after.text).toContain("Folder &#39;plots&#39; made.");
    expect(after.text).toContain('plots/');
    const again = await agent.post(`/console/endpoints/${host}/files/mkdir`).type('form').send({ _csrf: hidden(page.text, '_csrf'), path: '/data/', name: 'plots' });
    expect(again.status).toBe(400);
    expect(again.text).toContain('id="e-name">A file or folder named &#39;plots&#39; is already here.');
    const slash = await agent.post(`/console/endpoints/${host}/files/mkdir`).type('form').send({ _csrf: hidden(page.text, '_csrf'), path: '/data/', name: 'a/b' });
    expect(slash.text).toContain('A name cannot contain /.');

    const form = await agent.get(`/console/endpoints/${host}/files/rename?path=%2Fdata%2F&name=run1.csv`);
    expect(form.text).toContain('value="/data/run1.csv"');
    const renamed = await agent.post(`/console/endpoints/${host}/files/rename`).type('form').send({ _csrf: hidden(form.text, '_csrf'), path: '/data/', name: 'run1.csv', new_path: '/data/plots/run-1.csv' });
    expect({ status: renamed.status, location: renamed.headers.location }).toEqual({ status: 303, location: `/console/endpoints/${host}/files?path=%2Fdata%2Fplots%2F` });
    expect((await agent.get(renamed.headers.location)).text).toContain('run-1.csv');
    expect(world.storages.treeOf(host).files()).toMatchObject({ '/data/plots/run-1.csv': 't,v\n0,1\n' });
    const missing = await agent.post(`/console/endpoints/${host}/files/rename`).type('form').send({ _csrf: hidden(form.text, '_csrf'), path: '/data/', name: 'run1.csv', new_path: 'again.csv' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Path not found');
    const gone = await agent.get(`/console/endpoints/${host}/files?path=/data/nowhere/`);
    expect(gone.status).toBe(200);
    expect(gone.text).toMatch(/class="error" role="alert">Path not found/);
  });

  it('submits a transfer of a file to a path of another endpoint, and says what the API refused beside the field', async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    await world.storages.treeOf(host).storage.write('/data/run1.csv', (async function* () {
      yield Buffer.from('t,v\n0,1\n');
    })());
    const listing = await agent.get(`/console/endpoints/${host}/files?path=/data/`);
    expect(listing.text).toContain(`href="/console/endpoints/${host}/files/transfer?path=%2Fdata%2F&amp;name=run1.csv"`);
    const form = await agent.get(`/console/endpoints/${host}/files/transfer?path=%2Fdata%2F&name=run1.csv`);
    expect(form.text).toContain(`value="${host}"`);
    const fields = { _csrf: hidden(form.text, '_csrf'), path: '/data/', name: 'run1.csv', destination_endpoint: host, destination_path: '/data/run1-copy.csv', label: 'From the console', sync_level: 'size', verify_checksum: 'true' };
    const submitted = await agent.post(`/console/endpoints/${host}/files/transfer`).type('form').send(fields);
    expect(submitted.status).toBe(303);
    const taskId = /\/console\/activity\/([0-9a-f-]{36})$/.exec(submitted.headers.location)![1]!;
    await world.services.taskRunner.run(taskId);
    const page = await agent.get(submitted.headers.location);
    expect(page.text).toContain('Transfer submitted.');
    expect(page.text).toContain('From the console');
    expect(page.text).toContain('SUCCEEDED');
    expect(world.storages.treeOf(host).files()['/data/run1-copy.csv']).toBe('t,v\n0,1\n');
    const task = await agent.get(`/console/activity/${taskId}`);
    expect(task.text).toContain('/data/run1.csv → /data/run1-copy.csv');
    const notAnId = await agent.post(`/console/endpoints/${host}/files/transfer`).type('form').send({ ...fields, destination_endpoint: 'archive' });
    expect(notAnId.status).toBe(400);
    expect(notAnId.text).toMatch(/id="e-destination_endpoint">Invalid destination_endpoint: an endpoint id/);
    const unknown = await agent.post(`/console/endpoints/${host}/files/transfer`).type('form').send({ ...fields, destination_endpoint: '99999999-9999-4999-8999-999999999999' });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toMatch(/id="e-destination_endpoint">No such endpoint/);
    const noPath = await agent.post(`/console/endpoints/${host}/files/transfer`).type('form').send({ ...fields, destination_path: '' });
    expect(noPath.text).toContain('Give the path to transfer to.');
  });

  it("shows the API's refusal to someone the storage is not open to, and no form", async () => {
    const { agent } = await signInOverHttp(world, 'bob');
    const page = await agent.get(`/console/endpoints/${host}/files?path=/data/`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/class="error" role="alert">Denied by endpoint/);
    expect(page.text).not.toContain('run1.csv');
    expect(page.text).not.toContain('Make folder');
    const csrf = hidden(page.text, '_csrf') ?? hidden((await agent.get('/console/endpoints/new')).text, '_csrf');
    const refused = await agent.post(`/console/endpoints/${host}/files/mkdir`).type('form').send({ _csrf: csrf, path: '/data/', name: 'mine' });
    expect(refused.status).toBe(400);
    expect(world.storages.treeOf(host).files()).not.toHaveProperty(['/data/mine/']);
  });

  it("lets a share's reader list from its host_path and refuses their folder", async () => {
    const alice = await signInOverHttp(world, 'alice');
    const permissions = await alice.agent.get(`/console/endpoints/${share}/permissions`);
    expect((await alice.agent.post(`/console/endpoints/${share}/permissions`).type('form').send({ _csrf: hidden(permissions.text, '_csrf'), principal_type: 'identity', username: 'bob', path: '/', permissions: 'r' })).status).toBe(303);
    const { agent } = await signInOverHttp(world, 'bob');
    const page = await agent.get(`/console/endpoints/${share}/files?path=/`);
    expect(page.text).toContain('raw/');
    expect(page.text).not.toContain('/data/');
    const refused = await agent.post(`/console/endpoints/${share}/files/mkdir`).type('form').send({ _csrf: hidden(page.text, '_csrf'), path: '/', name: 'mine' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('you may not write');
  });

  it('says when an endpoint has no storage', async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    const csrf = hidden((await agent.get('/console/endpoints/new')).text, '_csrf');
    const bare = (await agent.post('/console/endpoints').type('form').send({ _csrf: csrf, kind: 'server', display_name: 'No storage', hostname: 'bare.example.org' })).headers.location.split('/')[3] as string;
    const page = await agent.get(`/console/endpoints/${bare}/files`);
    expect(page.text).toMatch(/class="error" role="alert">[^<]*storage/i);
  });
});
