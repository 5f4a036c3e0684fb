import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transfer } from '@globus/sdk';
import { testBackends } from '@xfer/persistence/testing';
import { startApiAndNodes, type ApiAndNodes } from './apiAndNodes';
import { accountName, addAccount, homeOf, ownerOf, passable, removeAccounts, type TestAccount } from './localAccounts';

/** alice maps to `ann`, bob to `ben`, carol to an account no machine has, dave to root. */
const mappingOf = (ann: string, ben: string) => [
  {
    DATA_TYPE: 'expression_identity_mapping#1.0.0',
    mappings: [
      { source: '{username}', match: 'alice', output: ann },
      { source: '{username}', match: 'bob', output: ben },
      { source: '{username}', match: 'carol', output: 'xfer-no-such-account' },
      { source: '{username}', match: 'dave', output: 'root' },
    ],
  },
];

describe.each(testBackends())('Mapped collections: each user acts as their own local account on the node ($name)', (backend) => {
  let world: ApiAndNodes;
  let ann: TestAccount;
  let ben: TestAccount;
  let annDir: string;
  let benDir: string;
  const made: TestAccount[] = [];

  beforeAll(() => {
    ann = addAccount(accountName('xfa'), accountName('xfg'));
    ben = addAccount(accountName('xfb'));
    made.push(ann, ben);
  });
  afterAll(() => removeAccounts(made));

  /** Maps the endpoint `id` on `node`'s `root`, with `policies` beside the mapping. */
  const map = (id: string, node: string, root: string, policies: Record<string, unknown> = {}) =>
    world.runtime.services.admin.endpoints.setStorage(id, { type: 'node', node, root }, { identity_mappings: mappingOf(ann.name, ben.name), ...policies });

  beforeEach(async () => {
    world = await startApiAndNodes(backend, {});
    for (const node of world.nodes) passable(node.root);
    annDir = homeOf(ann, join(world.lab.root, 'ann'), { 'notes.txt': "ann's notes" });
    benDir = homeOf(ben, join(world.lab.root, 'ben'), { 'secret.txt': "ben's secret" });
    await map(world.lab.id, 'node-one', world.lab.root);
    // a public mapped collection: a role-less identity that maps uses the files as its account
    expect((await world.as(world.alice.token).put(`/endpoint/${world.lab.id}`, { DATA_TYPE: 'endpoint', public: true })).status).toBe(200);
    await world.world.user('carol');
    await world.world.user('dave');
  });
  afterEach(() => world.close());

  const ls = (token: string, path: string, id = world.lab.id) => world.as(token).get(`/operation/endpoint/${id}/ls?path=${encodeURIComponent(path)}`);
  const names = (answer: { body: { DATA?: { name: string }[] } }) => (answer.body.DATA ?? []).map((entry) => entry.name).sort();

  it("lets each user reach their own files through @globus/sdk and refuses the other's, although xfer's roles would allow it", async () => {
    const server = world.apiUrl;
    process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER = `${server}/`;
    try {
      const as = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
      const own = await transfer.fileOperations.ls(world.lab.id, { query: { path: '/ann/' }, ...as(world.alice.token) });
      expect(own.status).toBe(200);
      expect(((await own.json()) as { DATA: { name: string }[] }).DATA.map((entry) => entry.name)).toEqual(['notes.txt']);
      // alice administers the endpoint; as ann she may not read ben's directory
      const other = await transfer.fileOperations.ls(world.lab.id, { query: { path: '/ben/' }, ...as(world.alice.token) });
      expect(other.status).toBe(403);
      expect(((await other.json()) as { code: string }).code).toBe('EndpointPermissionDenied');
    } finally {
      delete process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER;
    }
    // bob has no role on the endpoint: his mapping lets him use his own files, not ann's
    expect(names(await ls(world.bob.token, '/ben/'))).toEqual(['secret.txt']);
    expect((await ls(world.bob.token, '/ann/')).status).toBe(403);
    expect((await world.as(world.bob.token).get(`/operation/endpoint/${world.lab.id}/stat?path=/ann/notes.txt`)).status).toBe(403);
  });

  it('makes what each user mkdirs, renames and PUTs over HTTPS their account\'s, and reads and deletes as it', async () => {
    expect((await world.as(world.alice.token).post(`/operation/endpoint/${world.lab.id}/mkdir`, { DATA_TYPE: 'mkdir', path: '/ann/made' })).status).toBe(200);
    expect(ownerOf(join(annDir, 'made'))).toEqual({ uid: ann.uid, gid: ann.gid });
    expect((await world.as(world.bob.token).post(`/operation/endpoint/${world.lab.id}/mkdir`, { DATA_TYPE: 'mkdir', path: '/ann/bobs' })).status).toBe(403);
    expect(existsSync(join(annDir, 'bobs'))).toBe(false);
    expect((await world.as(world.alice.token).post(`/operation/endpoint/${world.lab.id}/rename`, { DATA_TYPE: 'rename', old_path: '/ann/made', new_path: '/ann/renamed' })).status).toBe(200);

    const https = await world.httpsServer(world.lab.id);
    const aliceHttps = await world.httpsToken('alice', world.lab.id);
    const put = await world.fetch(`${https}/ann/renamed/put.txt`, { method: 'PUT', token: aliceHttps, body: 'uploaded by alice' });
    expect(put.statusCode).toBe(200);
    expect(ownerOf(join(annDir, 'renamed', 'put.txt'))).toEqual({ uid: ann.uid, gid: ann.gid });
    expect(await (await world.fetch(`${https}/ann/notes.txt`, { token: aliceHttps })).body.text()).toBe("ann's notes");
    expect((await world.fetch(`${https}/ben/secret.txt`, { token: aliceHttps })).statusCode).toBe(403);
    const bobHttps = await world.httpsToken('bob', world.lab.id);
    expect((await world.fetch(`${https}/ann/notes.txt`, { method: 'DELETE', token: bobHttps })).statusCode).toBe(403);
    expect(existsSync(join(annDir, 'notes.txt'))).toBe(true);
    expect((await world.fetch(`${https}/ben/secret.txt`, { method: 'DELETE', token: bobHttps })).statusCode).toBe(204);
    expect(existsSync(join(benDir, 'secret.txt'))).toBe(false);
  });

  it('refuses in the hosted words an identity that maps to no account on the node, to root, or to none at all, and does nothing', async () => {
    const carol = await world.runtime.services.admin.tokens.issueToken('carol');
    const refused = await ls(carol.token, '/');
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('ExternalError.DirListingFailed.LoginFailed');
    expect(refused.body.message).toContain('530-GlobusError: v=1 c=LOGIN_DENIED');
    expect(refused.body.message).toContain('local user does not exist. Local user name: xfer-no-such-account');

    const dave = await world.runtime.services.admin.tokens.issueToken('dave');
    const asRoot = await world.as(dave.token).post(`/operation/endpoint/${world.lab.id}/mkdir`, { DATA_TYPE: 'mkdir', path: '/made-by-root' });
    expect(asRoot.status).toBe(409);
    expect(asRoot.body.code).toBe('ExternalError.MkdirFailed.LoginFailed');
    expect(asRoot.body.message).toContain('root (uid 0)');
    expect(existsSync(join(world.lab.root, 'made-by-root'))).toBe(false);

    await world.world.user('erin');
    const erin = await world.runtime.services.admin.tokens.issueToken('erin');
    const unmapped = await ls(erin.token, '/');
    expect(unmapped.status).toBe(409);
    expect(unmapped.body.message).toContain('does not map to a valid username');
  });

  it("refuses the accounts and groups its gateway denies, and admits only those its allow lists name", async () => {
    await map(world.lab.id, 'node-one', world.lab.root, { users_deny: [ben.name] });
    const denied = await ls(world.bob.token, '/ben/');
    expect(denied.status).toBe(409);
    expect(denied.body.message).toContain(`the account '${ben.name}' is denied access (users_deny)`);
    expect((await ls(world.alice.token, '/ann/')).status).toBe(200);

    await map(world.lab.id, 'node-one', world.lab.root, { users_deny: [], groups_deny: [ann.group!] });
    expect((await ls(world.alice.token, '/ann/')).body.message).toContain('groups_deny');
    expect((await ls(world.bob.token, '/ben/')).status).toBe(200);

    await map(world.lab.id, 'node-one', world.lab.root, { groups_deny: [], groups_allow: [ann.group!] });
    expect((await ls(world.alice.token, '/ann/')).status).toBe(200);
    expect((await ls(world.bob.token, '/ben/')).body.message).toContain('users_allow, groups_allow');
  });

  it('holds each account to the path restrictions: a read-only path refuses changes, a hidden one is not there', async () => {
    homeOf(ann, join(annDir, 'hidden'), { 'x.txt': 'x' });
    await map(world.lab.id, 'node-one', world.lab.root, {
      restrict_paths: { DATA_TYPE: 'path_restrictions#1.0.0', read_write: ['/ann/rw', '/ben'], read: ['/ann'], none: ['/ann/hidden'] },
    });
    homeOf(ann, join(annDir, 'rw'));
    expect(names(await ls(world.alice.token, '/ann/'))).toEqual(['notes.txt', 'rw']);
    expect((await ls(world.alice.token, '/ann/hidden/')).status).toBe(404);
    const readOnly = await world.as(world.alice.token).post(`/operation/endpoint/${world.lab.id}/mkdir`, { DATA_TYPE: 'mkdir', path: '/ann/new' });
    expect(readOnly.status).toBe(403);
    expect(existsSync(join(annDir, 'new'))).toBe(false);
    expect((await world.as(world.alice.token).post(`/operation/endpoint/${world.lab.id}/mkdir`, { DATA_TYPE: 'mkdir', path: '/ann/rw/new' })).status).toBe(200);
    expect(ownerOf(join(annDir, 'rw', 'new')).uid).toBe(ann.uid);
  });

  it("lets a share of a mapped collection act as its creator's account for every reader, within its access rules", async () => {
    const alice = world.as(world.alice.token);
    const share = (await alice.post('/shared_endpoint', { DATA_TYPE: 'shared_endpoint', display_name: "Ann's notes", host_endpoint: world.lab.id, host_path: '/ann/' })).body.id as string;
    expect((await alice.post(`/endpoint/${share}/access`, { DATA_TYPE: 'access', principal_type: 'identity', principal: world.bob.id, path: '/', permissions: 'r' })).status).toBe(201);
    // bob reads ann's notes through the share: the share reads as ann
    expect(names(await ls(world.bob.token, '/', share))).toEqual(['notes.txt']);
    const write = await world.as(world.bob.token).post(`/operation/endpoint/${share}/mkdir`, { DATA_TYPE: 'mkdir', path: '/bobs' });
    expect(write.status).toBe(403);
  });

  it("copies between two mapped collections on two nodes as the submitter's account on each side; the task names both", async () => {
    const archiveDir = homeOf(ann, join(world.archive.root, 'ann-archive'));
    homeOf(ben, join(world.archive.root, 'ben-archive'));
    await map(world.archive.id, 'node-two', world.archive.root);
    expect((await world.as(world.alice.token).put(`/endpoint/${world.archive.id}`, { DATA_TYPE: 'endpoint', public: true })).status).toBe(200);
    writeFileSync(join(annDir, 'big.bin'), Buffer.alloc(3 * 1024 * 1024, 7));
    const workers = await world.runtime.startTaskWorkers({ concurrency: 2, pollMs: 20, retryMs: 200, sweepMs: 50 });
    try {
      const submitted = await world.transfer({ source_endpoint: world.lab.id, destination_endpoint: world.archive.id, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/ann/', destination_path: '/ann-archive/copy/', recursive: true }] });
      expect(submitted.status).toBe(202);
      const task = await world.until(submitted.body.task_id as string, (t) => t.status !== 'ACTIVE');
      expect(task.status).toBe('SUCCEEDED');
      expect(task).toMatchObject({ source_local_user: ann.name, destination_local_user: ann.name });
      expect(readFileSync(join(archiveDir, 'copy', 'notes.txt'), 'utf8')).toBe("ann's notes");
      expect(ownerOf(join(archiveDir, 'copy', 'big.bin'))).toEqual({ uid: ann.uid, gid: ann.gid });
      expect(ownerOf(join(archiveDir, 'copy'))).toEqual({ uid: ann.uid, gid: ann.gid });

      // bob cannot copy ann's files out, nor write into ann's directory
      const bobs = await world.transfer({ source_endpoint: world.lab.id, destination_endpoint: world.archive.id, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/ann/notes.txt', destination_path: '/ben-archive/notes.txt' }], deadline: new Date(Date.now() + 3_000).toISOString() }, world.bob.token);
      expect(bobs.status).toBe(202);
      const refused = await world.until(bobs.body.task_id as string, (t) => t.status !== 'ACTIVE', world.bob.token);
      expect(refused.status).toBe('FAILED');
      expect(existsSync(join(world.archive.root, 'ben-archive', 'notes.txt'))).toBe(false);
    } finally {
      await workers.stop();
    }
  });

  it("copies between two mapped collections of one node that map the submitter to two accounts, reading as one and writing as the other", async () => {
    // a second collection on node one whose gateway maps alice to ben's account
    const other = await world.endpoint('Other', world.nodes[0]!);
    const benOther = homeOf(ben, join(other.root, 'in'));
    await world.runtime.services.admin.endpoints.setStorage(other.id, { type: 'node', node: 'node-one', root: other.root }, { identity_mappings: [{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [{ source: '{username}', match: 'alice', output: ben.name }] }] });
    const workers = await world.runtime.startTaskWorkers({ concurrency: 2, pollMs: 20, retryMs: 200, sweepMs: 50 });
    try {
      const submitted = await world.transfer({ source_endpoint: world.lab.id, destination_endpoint: other.id, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/ann/notes.txt', destination_path: '/in/notes.txt' }] });
      const task = await world.until(submitted.body.task_id as string, (t) => t.status !== 'ACTIVE');
      expect(task).toMatchObject({ status: 'SUCCEEDED', source_local_user: ann.name, destination_local_user: ben.name });
      expect(readFileSync(join(benOther, 'notes.txt'), 'utf8')).toBe("ann's notes");
      expect(ownerOf(join(benOther, 'notes.txt'))).toEqual({ uid: ben.uid, gid: ben.gid });
    } finally {
      await workers.stop();
    }
  });

  it('leaves an endpoint without a mapping as it was: the node acts as itself there', async () => {
    const plain = await world.endpoint('Plain', world.nodes[0]!);
    expect(names(await ls(world.alice.token, '/', plain.id))).toEqual([]);
    expect((await world.as(world.alice.token).post(`/operation/endpoint/${plain.id}/mkdir`, { DATA_TYPE: 'mkdir', path: '/made' })).status).toBe(200);
    expect(ownerOf(join(plain.root, 'made')).uid).toBe(process.getuid!());
  });
});
