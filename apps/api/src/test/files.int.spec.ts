import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { transfer } from '@globus/sdk';
import { BACKENDS, startApi, type Api } from './harness';

/** The tree each test starts from, as files (content) and directories (null). */
const TREE: Record<string, string | null> = {
  '/data/b.txt': 'bee',
  '/data/a.png': 'png!png!',
  '/data/.hidden': 'h',
  '/data/sub/deep.txt': 'deep',
  '/home/alice/notes.md': 'notes',
  '/empty/': null,
};

type Adapter = { name: string; attach: (api: Api, endpointId: string) => Promise<{ root: string | null; cleanUp: () => void }> };

const ADAPTERS: Adapter[] = [
  {
    name: 'posix',
    attach: async (api, endpointId) => {
      const base = mkdtempSync(`${tmpdir()}/xfer-files-`);
      const root = `${base}/root`;
      for (const [path, content] of Object.entries(TREE)) {
        if (content === null) mkdirSync(`${root}${path}`, { recursive: true });
        else {
          mkdirSync(`${root}${path.slice(0, path.lastIndexOf('/'))}`, { recursive: true });
          writeFileSync(`${root}${path}`, content);
        }
      }
      mkdirSync(`${base}/outside`);
      writeFileSync(`${base}/outside/secret.txt`, 'secret');
      await api.world.services.admin.endpoints.setStorage(endpointId, { type: 'posix', root });
      return { root, cleanUp: () => rmSync(base, { recursive: true, force: true }) };
    },
  },
  {
    name: 'memory',
    attach: async (api, endpointId) => {
      await api.world.services.admin.endpoints.setStorage(endpointId, { type: 'memory' });
      api.runtime.storages.treeOf(endpointId).replace(TREE);
      return { root: null, cleanUp: () => undefined };
    },
  },
];

const CASES = BACKENDS.flatMap((backend) => ADAPTERS.map((adapter) => ({ backend, adapter, name: `${backend.name}, ${adapter.name} storage` })));

describe.each(CASES)('files on endpoints ($name)', ({ backend, adapter }) => {
  let api: Api;
  let server: Server;
  let alice: string;
  let bob: string;
  let bobId: string;
  let carol: string;
  let host: string;
  let root: string | null;
  let cleanUp: () => void;
  const ls = (token: string, id: string, query: string) => api.as(token).get(`/operation/endpoint/${id}/ls?${query}`);
  const names = (body: { DATA: { name: string }[] }) => body.DATA.map((f) => f.name);
  const as = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

  beforeEach(async () => {
    api = await startApi(backend);
    alice = (await api.world.user('alice')).token;
    ({ token: bob, id: bobId } = await api.world.user('bob'));
    carol = (await api.world.user('carol')).token;
    await api.world.subscriptionFor('alice');
    host = (await api.as(alice).post('/endpoint', { display_name: 'Host', subscription_id: 'DEFAULT', public: true, DATA: [{ hostname: 'h.example.org' }] })).body.id;
    ({ root, cleanUp } = await adapter.attach(api, host));
    server = api.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    delete process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER;
    await api.close();
    cleanUp();
  });

  it('lists through the SDK with every field of the hosted file_list and file documents', async () => {
    const response = await transfer.fileOperations.ls(host, { query: { path: '/data/' }, ...as(alice) });
    expect(response.status).toBe(200);
    const listing = (await response.json()) as { DATA: { name: string; last_modified: string }[] };
    expect(listing).toMatchObject({ DATA_TYPE: 'file_list', endpoint: host, path: '/data/', absolute_path: null, rename_supported: true, symlink_supported: false, length: 4, total: 4, offset: 0, limit: 100000 });
    expect(names(listing)).toEqual(['.hidden', 'a.png', 'b.txt', 'sub']);
    const png = listing.DATA[1]!;
    expect(Object.keys(png).sort()).toEqual(['DATA_TYPE', 'group', 'last_modified', 'link_group', 'link_last_modified', 'link_size', 'link_target', 'link_user', 'name', 'permissions', 'size', 'type', 'user']);
    expect(png).toMatchObject({ DATA_TYPE: 'file', name: 'a.png', type: 'file', size: 8, permissions: expect.stringMatching(/^0[0-7]{3}$/), link_target: null, link_size: null });
    expect(png.last_modified).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+00:00$/);
    expect(Math.abs(Date.parse(png.last_modified.replace(' ', 'T')) - Date.now())).toBeLessThan(10 * 60_000);
    const stat = await (await transfer.fileOperations.stat(host, { query: { path: '/data/sub' }, ...as(alice) })).json();
    expect(stat).toMatchObject({ DATA_TYPE: 'file', name: 'sub', type: 'dir' });
  });

  it('pages, orders and filters as the hosted ls does', async () => {
    const page = (await ls(alice, host, 'path=/data&limit=2&offset=1&show_hidden=false')).body;
    expect([names(page), page.total, page.length, page.limit, page.offset]).toEqual([['b.txt', 'sub'], 3, 2, 2, 1]);
    expect(names((await ls(alice, host, 'path=/data&orderby=size%20DESC,name&filter=type:file')).body)).toEqual(['a.png', 'b.txt', '.hidden']);
    expect(names((await ls(alice, host, 'path=/data&orderby=type%20ASC&orderby=name%20DESC')).body)).toEqual(['sub', 'b.txt', 'a.png', '.hidden']);
    expect(names((await ls(alice, host, 'path=/data&filter=name:~*.png')).body)).toEqual(['a.png']);
    // the SDK's list form of filter (globus ls -r --filter): one parameter each, any of them
    expect(names((await ls(alice, host, 'path=/data&filter=type:dir&filter=name:b.txt')).body)).toEqual(['b.txt', 'sub']);
    const bad: [string, string][] = [
      ['limit=0', "Invalid limit: a whole number from 1 to 100000"],
      ['limit=lots', "Invalid limit 'lots': a whole number"],
      ['offset=-1', "Invalid offset '-1': a whole number"],
      ['show_hidden=maybe', "Invalid show_hidden 'maybe': true, false, 1 or 0"],
      ['orderby=colour', "Invalid orderby 'colour': a field (name, type, size, last_modified, permissions, user, group) and ASC or DESC"],
      ['filter=colour:red', "Invalid filter clause 'colour:red': <field>:<value>, the field one of name, type, size, last_modified, permissions, user, group"],
    ];
    for (const [query, message] of bad) {
      const response = await ls(alice, host, `path=/data&${query}`);
      expect([response.status, response.body.code, response.body.message]).toEqual([400, 'BadRequest', message]);
    }
  });

  it("makes directories (the second time the hosted Exists error), renames across folders, and resolves /~/ to the caller's home", async () => {
    const mkdir = await transfer.fileOperations.mkdir(host, { payload: { path: '/data/new' }, ...as(alice) });
    expect(mkdir.status).toBe(200);
    expect(await mkdir.json()).toMatchObject({ DATA_TYPE: 'mkdir_result', code: 'DirectoryCreated', message: 'The directory was created successfully', request_id: expect.any(String) });
    const again = await api.as(alice).post(`/operation/endpoint/${host}/mkdir`, { DATA_TYPE: 'mkdir', path: '/data/new/' });
    expect([again.status, again.body.code]).toEqual([409, 'ExternalError.MkdirFailed.Exists']);
    const rename = await transfer.fileOperations.rename(host, { payload: { old_path: '/data/b.txt', new_path: '/data/new/b2.txt' }, ...as(alice) });
    expect(await rename.json()).toMatchObject({ DATA_TYPE: 'result', code: 'FileRenamed', message: 'File or directory renamed successfully' });
    expect(names((await ls(alice, host, 'path=/data/new')).body)).toEqual(['b2.txt']);
    const home = (await ls(alice, host, 'path=/~/')).body;
    expect([home.path, home.absolute_path, names(home)]).toEqual(['/home/alice/', '/home/alice/', ['notes.md']]);
    expect((await ls(alice, host, '')).body.path).toBe('/home/alice/');
    expect((await api.as(alice).post(`/operation/endpoint/${host}/mkdir`, { path: '/~/made' })).status).toBe(200);
    expect(names((await ls(alice, host, 'path=~')).body)).toEqual(['made', 'notes.md']);
    const missing = await api.as(alice).get(`/operation/endpoint/${host}/stat?path=/data/none`);
    expect([missing.status, missing.body.code]).toEqual([404, 'NotFound']);
    const noParent = await api.as(alice).post(`/operation/endpoint/${host}/rename`, { DATA_TYPE: 'rename', old_path: '/data/a.png', new_path: '/none/a.png' });
    expect([noParent.status, noParent.body.code]).toEqual([404, 'NotFound']);
    for (const body of [{}, { path: 5 }, { DATA_TYPE: 'rename', path: '/x' }]) expect((await api.as(alice).post(`/operation/endpoint/${host}/mkdir`, body)).status).toBe(400);
    expect((await api.as(alice).post(`/operation/endpoint/${host}/rename`, { old_path: '/data/a.png' })).status).toBe(400);
  });

  it("shows a share its host's storage from host_path, to readers and writers as its access rules say", async () => {
    const share = (await api.as(alice).post('/shared_endpoint', { display_name: 'Share', host_endpoint: host, host_path: '/data/' })).body.id;
    expect(names((await ls(alice, share, 'path=/')).body)).toEqual(['.hidden', 'a.png', 'b.txt', 'sub']);
    await api.as(alice).post(`/endpoint/${share}/access`, { principal_type: 'identity', principal: bobId, path: '/sub/', permissions: 'r' });
    expect(names((await ls(bob, share, 'path=/sub/')).body)).toEqual(['deep.txt']);
    const readerMkdir = await api.as(bob).post(`/operation/endpoint/${share}/mkdir`, { path: '/sub/x' });
    expect([readerMkdir.status, readerMkdir.body.code]).toEqual([403, 'EndpointPermissionDenied']);
    const readerOutside = await ls(bob, share, 'path=/');
    expect([readerOutside.status, readerOutside.body.code]).toEqual([403, 'EndpointPermissionDenied']);
    const stranger = await ls(carol, share, 'path=/sub/');
    expect([stranger.status, stranger.body.code]).toEqual([403, 'EndpointPermissionDenied']);
    const strangerOnHost = await ls(bob, host, 'path=/');
    expect([strangerOnHost.status, strangerOnHost.body.code]).toEqual([403, 'EndpointPermissionDenied']);
    await api.as(alice).post(`/endpoint/${share}/access`, { principal_type: 'identity', principal: bobId, path: '/sub/rw/', permissions: 'rw' });
    await api.as(alice).post(`/operation/endpoint/${share}/mkdir`, { path: '/sub/rw' });
    expect((await api.as(bob).post(`/operation/endpoint/${share}/mkdir`, { path: '/sub/rw/by-bob' })).status).toBe(200);
    expect(names((await ls(alice, host, 'path=/data/sub/rw')).body)).toEqual(['by-bob']);
    // the share's root is host_path: nothing above it can be named
    const climb = await ls(alice, share, 'path=/../home');
    expect([climb.status, climb.body.code]).toEqual([400, 'InvalidPath']);
  });

  it('refuses paths that climb out, new lines, and names percent-encoding twice', async () => {
    for (const path of ['/../etc', '/data/../../etc', '%2F..%2F..', 'relative']) {
      const response = await ls(alice, host, `path=${path}`);
      expect([response.status, response.body.code]).toEqual([400, 'InvalidPath']);
    }
    for (const path of ['/data/%0A', '/data/a%0Db', '/data/%00']) {
      const response = await api.as(alice).get(`/operation/endpoint/${host}/stat?path=${path}`);
      expect([response.status, response.body.code]).toEqual([400, 'InvalidPath']);
    }
    const mkdir = await api.as(alice).post(`/operation/endpoint/${host}/mkdir`, { path: '/data/line\nbreak' });
    expect([mkdir.status, mkdir.body.code]).toEqual([400, 'InvalidPath']);
    // decoded once: '%2e%2e' is a name like any other
    const encoded = await ls(alice, host, 'path=/data/%252e%252e');
    expect([encoded.status, encoded.body.code]).toEqual([404, 'NotFound']);
    expect((await api.as(alice).post(`/operation/endpoint/${host}/mkdir`, { path: '/data/%2e%2e' })).status).toBe(200);
    expect(names((await ls(alice, host, 'path=/data&filter=name:%252e%252e')).body)).toEqual(['%2e%2e']);
  });

  it('refuses a paused operation (OperationPaused) and an endpoint without storage (EndpointNotConnected)', async () => {
    await api.as(alice).post('/endpoint_manager/pause_rule', { DATA_TYPE: 'pause_rule', endpoint_id: host, message: 'Disk swap', pause_ls: false, pause_mkdir: true, pause_rename: false, pause_task_delete: false, pause_task_transfer_write: false, pause_task_transfer_read: false });
    const paused = await api.as(alice).post(`/operation/endpoint/${host}/mkdir`, { path: '/data/x' });
    expect([paused.status, paused.body.code, paused.body.message]).toEqual([409, 'OperationPaused', `Paused by endpoint '${host}': Disk swap`]);
    expect((await ls(alice, host, 'path=/data')).status).toBe(200);
    const bare = (await api.as(alice).post('/endpoint', { display_name: 'Bare', subscription_id: 'DEFAULT' })).body.id;
    const unconnected = await ls(alice, bare, 'path=/');
    expect([unconnected.status, unconnected.body.code]).toEqual([409, 'EndpointNotConnected']);
    // served by a data node this server cannot reach: a 4xx naming the endpoint and the node, the ExternalError the SDK does not retry
    const { node } = await api.world.services.admin.nodes.addNode({ name: 'lab-node', url: 'https://lab-node.example.org:8443' });
    await api.world.services.admin.endpoints.setStorage(bare, { type: 'node', node: 'lab-node', root: '/srv/data' });
    expect((await api.as(alice).get(`/endpoint/${bare}`)).body.https_server).toBe(`https://lab-node.example.org:8443/${bare}`);
    const unreachable = await ls(alice, bare, 'path=/');
    expect([unreachable.status, unreachable.body.code]).toEqual([409, 'ExternalError.NodeNotReachable']);
    // the endpoint, the node, and why (its name does not resolve)
    expect(unreachable.body.message).toMatch(new RegExp(`^Endpoint '${bare}' is served by data node '${node.id}', which this server cannot reach \\(.*ENOTFOUND lab-node\\.example\\.org\\)$`));
    const hidden = (await api.as(alice).post('/endpoint', { display_name: 'Hidden', subscription_id: 'DEFAULT', public: false })).body.id;
    const unseen = await ls(bob, hidden, 'path=/');
    expect([unseen.status, unseen.body.code]).toEqual([403, 'PermissionDenied']);
    expect((await ls(bob, '00000000-0000-4000-8000-00000000dead', 'path=/')).status).toBe(404);
  });

  if (adapter.name === 'posix') {
    it('shows links out of the root as invalid_symlink and refuses every path through them', async () => {
      symlinkSync(`${root}/../outside`, `${root}/data/out`);
      symlinkSync('../../outside/secret.txt', `${root}/data/secret`);
      symlinkSync('b.txt', `${root}/data/bee`);
      const listing = (await ls(alice, host, 'path=/data&filter=name:out,secret,bee')).body;
      expect(listing.DATA.map((f: { name: string; type: string; link_target: string | null }) => [f.name, f.type, f.link_target])).toEqual([
        ['bee', 'file', '/data/b.txt'],
        ['out', 'invalid_symlink', null],
        ['secret', 'invalid_symlink', null],
      ]);
      for (const path of ['/data/out', '/data/out/secret.txt']) {
        const response = await api.as(alice).get(`/operation/endpoint/${host}/${path.endsWith('.txt') ? 'stat' : 'ls'}?path=${path}`);
        expect([response.status, response.body.code]).toEqual([403, 'EndpointPermissionDenied']);
      }
      const planted = await api.as(alice).post(`/operation/endpoint/${host}/mkdir`, { path: '/data/out/planted' });
      expect([planted.status, planted.body.code]).toEqual([403, 'EndpointPermissionDenied']);
    });
  }
});

describe('a directory of 100,000 entries', () => {
  it('answers one page within the limit, with the total, without the whole directory in the document', async () => {
    const api = await startApi(BACKENDS[0]!);
    const base = mkdtempSync(`${tmpdir()}/xfer-files-many-`);
    try {
      const alice = (await api.world.user('alice')).token;
      await api.world.subscriptionFor('alice');
      const host = (await api.as(alice).post('/endpoint', { display_name: 'Host', subscription_id: 'DEFAULT' })).body.id;
      for (let i = 0; i < 100_000; i += 1) writeFileSync(`${base}/f${String(i).padStart(6, '0')}`, '');
      await api.world.services.admin.endpoints.setStorage(host, { type: 'posix', root: base });
      const response = await api.as(alice).get(`/operation/endpoint/${host}/ls?path=/&limit=1000&offset=99500`);
      expect([response.status, response.body.total, response.body.length]).toEqual([200, 100_000, 500]);
      expect(response.body.DATA[0].name).toBe('f099500');
      expect(response.text.length).toBeLessThan(500 * 400);
    } finally {
      rmSync(base, { recursive: true, force: true });
      await api.close();
    }
  });
});
