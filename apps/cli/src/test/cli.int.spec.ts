import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCoreServices, randomIdGenerator, systemClock } from '@xfer/core';
import { openEngine, TypeormUnitOfWork } from '@xfer/persistence';
import { USAGE_ERROR } from '../program';

/** The real `xfer` binary (as `npx xfer` runs it) against a temporary SQLite database. */
const BIN = join(__dirname, '..', '..', 'bin', 'xfer.js');

// each command is a new process (about 0.3 s): a test of several commands needs more than the default 5 s
jest.setTimeout(60_000);

describe('xfer admin command', () => {
  let dir: string;
  let databaseUrl: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-cli-'));
    databaseUrl = `sqlite:${join(dir, 'xfer.sqlite')}`;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function xferWithInput(stdin: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
    return new Promise((resolve) => {
      const child = execFile(process.execPath, [BIN, ...argv], { env: { ...process.env, DATABASE_URL: databaseUrl }, timeout: 30_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: stdout.trim(), err: stderr.trim() }),
      );
      child.stdin?.end(stdin);
    });
  }
  const xfer = (...argv: string[]) => xferWithInput('', ...argv);
  const json = async (...argv: string[]) => {
    const res = await xfer('--json', ...argv);
    expect({ argv, code: res.code, err: res.err }).toEqual({ argv, code: 0, err: '' });
    return JSON.parse(res.out);
  };

  async function inspect<T>(look: (uow: TypeormUnitOfWork, services: ReturnType<typeof createCoreServices>) => Promise<T>): Promise<T> {
    const engine = await openEngine(databaseUrl);
    try {
      const uow = new TypeormUnitOfWork(engine);
      return await look(uow, createCoreServices(uow, systemClock, randomIdGenerator));
    } finally {
      await engine.close();
    }
  }

  it('adds an identity, printing its id, and refuses a duplicate with exit code 2', async () => {
    const added = await xfer('identity', 'add', 'carol', '--name', 'Carol C', '--email', 'carol@example.org', '--organization', 'Uni');
    expect(added.code).toBe(0);
    expect(added.out).toMatch(/^[0-9a-f-]{36}$/);
    expect(await inspect((u) => u.repositories.identities.findByUsername('carol'))).toMatchObject({ id: added.out, name: 'Carol C', organization: 'Uni' });
    expect(await xfer('identity', 'add', 'carol')).toMatchObject({ code: USAGE_ERROR, err: "xfer: Identity 'carol' already exists" });
    const bad = await xfer('identity', 'add', 'dave', '--email', 'nope');
    expect(bad).toMatchObject({ code: USAGE_ERROR, err: expect.stringContaining('not an e-mail address') });
    expect(await inspect((u) => u.repositories.identities.findByUsername('dave'))).toBeNull();
  });

  it('sets sign-in passwords from standard input', async () => {
    expect((await xferWithInput('first password\n', 'identity', 'add', 'erin', '--password-stdin')).code).toBe(0);
    const signIn = (password: string) => inspect((_u, s) => s.helperPages.signIn('erin', password));
    await expect(signIn('first password')).resolves.toHaveProperty('secret');
    expect((await xferWithInput('second password', 'identity', 'set-password', 'erin')).out).toBe('password set for erin');
    await expect(signIn('first password')).rejects.toThrow('Wrong username or password');
    expect(await xferWithInput('short\n', 'identity', 'add', 'frank', '--password-stdin')).toMatchObject({ code: USAGE_ERROR, err: 'xfer: Invalid password: at least 8 characters' });
    expect(await inspect((u) => u.repositories.identities.findByUsername('frank'))).toBeNull();
  });

  it('links, lists and unlinks identities', async () => {
    await xfer('identity', 'add', 'carol');
    await xfer('identity', 'add', 'carol@work.example.org');
    expect((await xfer('identity', 'link', 'carol', 'carol@work.example.org')).out).toBe('linked carol@work.example.org to carol');
    const listed = await json('identity', 'list');
    expect(listed.map((i: { username: string; linked_to: string | null }) => [i.username, i.linked_to])).toEqual([['carol', null], ['carol@work.example.org', 'carol']]);
    expect((await xfer('identity', 'list')).out).toMatch(/USERNAME\s+NAME\s+LINKED TO/);
    expect((await xfer('identity', 'unlink', 'carol@work.example.org')).code).toBe(0);
    expect((await json('identity', 'list')).every((i: { linked_to: string | null }) => i.linked_to === null)).toBe(true);
    expect((await xfer('identity', 'unlink', 'carol')).err).toContain('not linked');
  });

  it('manages groups and their members', async () => {
    await xfer('identity', 'add', 'carol');
    const group = await json('group', 'add', 'lab');
    expect((await xfer('group', 'add-member', 'lab', 'carol')).code).toBe(0);
    expect(await json('group', 'list')).toEqual([{ id: group.id, name: 'lab', members: ['carol'] }]);
    expect((await xfer('group', 'remove-member', 'lab', 'carol')).code).toBe(0);
    expect((await json('group', 'list'))[0].members).toEqual([]);
    expect((await xfer('group', 'add-member', 'nolab', 'carol')).err).toContain("No such group 'nolab'");
  });

  it('issues, lists without secrets, and revokes tokens', async () => {
    const id = (await xfer('identity', 'add', 'carol')).out;
    const issued = await xfer('token', 'issue', 'carol', '--expires-in', '3600');
    expect(issued.out).toMatch(/^xfer_[A-Za-z0-9_-]{43}$/);
    expect((await inspect((_u, s) => s.authentication.authenticate(issued.out))).primary.id).toBe(id);
    const tokens = await json('token', 'list', 'carol');
    expect(tokens).toEqual([expect.objectContaining({ id: expect.stringMatching(/^[0-9a-f]{16}$/), usable: true, revoked_at: null })]);
    expect(JSON.stringify(tokens)).not.toContain(issued.out);
    expect((await xfer('token', 'revoke', tokens[0].id)).out).toBe(`revoked token ${tokens[0].id}`);
    await expect(inspect((_u, s) => s.authentication.authenticate(issued.out))).rejects.toThrow(/revoked/);
    const openid = (await xfer('token', 'issue', 'carol', '--scope', 'openid')).out;
    await expect(inspect((_u, s) => s.authentication.authenticate(openid))).rejects.toThrow(/lacks the scope/);
    expect((await xfer('token', 'issue', 'carol', '--expires-in', 'soon')).code).toBe(USAGE_ERROR);
    expect((await xfer('token', 'revoke', 'ffffffffffffffff')).err).toContain('No such token');
  });

  it('registers data nodes: id and secret once (a hash kept), listed with their last contact, a new secret, removed', async () => {
    const lab = await json('node', 'add', 'lab-1', '--url', 'https://lab.example.org:8443/xfer/');
    expect(lab).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), secret: expect.stringMatching(/^xfer_/) });
    const text = await xfer('node', 'add', 'archive', '--url', 'https://archive.example.org');
    expect(text.out.split('\n')).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), expect.stringMatching(/^secret \(shown once\): xfer_/)]);
    const listed = await json('node', 'list');
    expect(listed).toEqual([
      expect.objectContaining({ name: 'archive', url: 'https://archive.example.org', lastContact: null }),
      { id: lab.id, name: 'lab-1', url: 'https://lab.example.org:8443/xfer', createdAt: expect.any(String), lastContact: null },
    ]);
    expect(JSON.stringify(listed)).not.toContain('secret');
    expect((await xfer('node', 'list')).out).toMatch(/lab-1\s+https:\/\/lab.example.org:8443\/xfer\s+never/);
    // only the hash is stored: the secret printed is its preimage
    const stored = await inspect((uow) => uow.repositories.nodes.findById(lab.id));
    expect(stored?.secretHash).toBe(createHash('sha256').update(lab.secret).digest('hex'));
    const renewed = await json('node', 'new-secret', 'LAB-1');
    expect(renewed.id).toBe(lab.id);
    expect(renewed.secret).not.toBe(lab.secret);
    expect((await inspect((uow) => uow.repositories.nodes.findById(lab.id)))?.secretHash).toBe(createHash('sha256').update(renewed.secret).digest('hex'));
    // refused with the field named: a name taken (case ignored), plain http, a bad name, an unknown node
    for (const [argv, message] of [
      [['node', 'add', 'LAB-1', '--url', 'https://other.example.org'], "a node is named 'LAB-1' already"],
      [['node', 'add', 'plain', '--url', 'http://lab.example.org'], 'Invalid url: an https:// URL'],
      [['node', 'add', 'bad name', '--url', 'https://lab.example.org'], 'Invalid name: a node name'],
      [['node', 'add', 'query', '--url', 'https://lab.example.org/?a=1'], 'Invalid url: a scheme, a host, a port and a path prefix only'],
      [['node', 'remove', 'nowhere'], "No such node 'nowhere'"],
    ] as const) {
      const refused = await xfer(...argv);
      expect([refused.code, refused.err]).toEqual([USAGE_ERROR, expect.stringContaining(message)]);
    }
    expect(await json('node', 'remove', lab.id)).toEqual({ removed: lab.id });
    expect((await json('node', 'list')).map((n: { name: string }) => n.name)).toEqual(['archive']);
    // a node is a GCS endpoint its owner administers; an owner who does not exist makes no node
    await xfer('identity', 'add', 'dana');
    const owned = await json('node', 'add', 'dtn', '--url', 'https://dtn.example.org', '--owner', 'dana');
    expect(await inspect(async (uow) => (await uow.repositories.endpoints.findById(owned.id))?.snapshot)).toMatchObject({ kind: 'gcs_endpoint', owner_id: owned.id, gcs_manager_url: 'https://dtn.example.org' });
    expect(await inspect(async (uow) => (await uow.repositories.roles.listForEndpoint(owned.id)).map((role) => role.role))).toEqual(['administrator']);
    const unowned = await xfer('node', 'add', 'dtn-2', '--url', 'https://dtn-2.example.org', '--owner', 'nobody');
    expect([unowned.code, unowned.err]).toEqual([USAGE_ERROR, expect.stringContaining("No identity or group named 'nobody'")]);
    expect((await json('node', 'list')).map((n: { name: string }) => n.name)).toEqual(['archive', 'dtn']);
  });

  it('manages clients, scopes and consents', async () => {
    await xfer('identity', 'add', 'carol');
    const client = await json('client', 'add', 'Portal', '--redirect-uri', 'https://portal.example.org/back', '--primary-color', '#112233', '--confidential');
    expect(client.secret).toMatch(/^xfer_/);
    const clients = await json('client', 'list');
    expect(clients).toEqual([expect.objectContaining({ id: client.id, display_name: 'Portal', public_client: false, redirect_uris: ['https://portal.example.org/back'] })]);
    expect(JSON.stringify(clients)).not.toContain('secret');
    expect((await xfer('client', 'add', 'Bad', '--primary-color', 'red')).err).toContain('#1a2b3c');
    const resourceServer = await json('client', 'add', 'Storage', '--confidential', '--resource-server', 'storage.example.org');
    expect((await json('client', 'list')).find((c: { id: string }) => c.id === resourceServer.id).resource_server).toBe('storage.example.org');
    expect((await xfer('client', 'add', 'Public RS', '--resource-server', 'x.example.org')).err).toContain('confidential');
    const data = await json('scope', 'add', 'urn:xfer:data', '--description', 'Read your data', '--resource-server', 'storage.example.org');
    await json('scope', 'add', 'urn:xfer:transfer', '--description', 'Move your files', '--depends-on', 'urn:xfer:data');
    expect((await xfer('scope', 'add', 'urn:xfer:other', '--description', 'x', '--depends-on', 'urn:nope')).err).toContain("No such scope 'urn:nope'");
    expect(await json('scope', 'list')).toEqual([
      expect.objectContaining({ name: 'urn:xfer:data', resource_server: 'storage.example.org', dependent_scope_ids: [] }),
      expect.objectContaining({ name: 'urn:xfer:transfer', dependent_scope_ids: [data.id] }),
    ]);
    const root = await json('consent', 'grant', 'carol', client.id, 'urn:xfer:transfer');
    const child = await json('consent', 'grant', 'carol', client.id, 'urn:xfer:data', '--parent', String(root.id));
    expect((await json('consent', 'list', 'carol')).map((c: { dependency_path: number[] }) => c.dependency_path)).toEqual([[root.id], [root.id, child.id]]);
    expect((await xfer('consent', 'revoke', String(root.id))).code).toBe(0);
    expect((await json('consent', 'list', 'carol')).map((c: { status: string }) => c.status)).toEqual(['revoked', 'revoked']);
    expect((await xfer('consent', 'revoke', 'x')).code).toBe(USAGE_ERROR);
    const listed = await xfer('consent', 'list', 'carol');
    expect(listed.out).toMatch(/ urn:xfer:transfer /);
    expect(listed.out).toMatch(/ urn:xfer:data /);
    expect(listed.out).not.toContain(data.id);
  });

  it('rotates the id_token signing keys: the new one signs, the old one stays listed as retired', async () => {
    const first = await json('keys', 'list');
    expect(first).toEqual([{ kid: expect.any(String), alg: 'RS512', state: 'signing' }]);
    const rotated = await json('keys', 'rotate');
    expect(rotated).toMatchObject({ retired: [first[0].kid], deleted: [] });
    expect(await json('keys', 'list')).toEqual([
      { kid: rotated.kid, alg: 'RS512', state: 'signing' },
      { kid: first[0].kid, alg: 'RS512', state: 'retired' },
    ]);
  });

  it('reports errors as JSON on stderr with --json, as text without it', async () => {
    const plain = await xfer('consent', 'list', 'nobody-here');
    expect(plain).toMatchObject({ code: USAGE_ERROR, err: "xfer: No such identity 'nobody-here'" });
    const scripted = await xfer('--json', 'consent', 'list', 'nobody-here');
    expect(scripted.code).toBe(USAGE_ERROR);
    expect(JSON.parse(scripted.err)).toEqual({ error: "No such identity 'nobody-here'" });
  });

  it('manages subscriptions, roles and pause rules', async () => {
    await xfer('identity', 'add', 'carol');
    await xfer('group', 'add', 'lab');
    const sub = await json('subscription', 'add', 'Lab subscription', '--member', 'carol');
    expect((await xfer('subscription', 'add-member', 'Lab subscription', 'lab')).code).toBe(0);
    expect((await json('subscription', 'list'))[0].member_ids).toHaveLength(2);
    expect((await xfer('subscription', 'add', 'Other', '--member', 'ghost')).err).toContain("No identity or group named 'ghost'");
    const endpointId = await inspect(async (u, s) => {
      const carol = await s.authentication.principalOf((await u.repositories.identities.findByUsername('carol'))!.id);
      return (await s.endpoints.createEndpoint(carol, { display_name: 'E', subscription_id: sub.id })).id;
    });
    // the API's rule of kinds holds for the operator too: access_manager only on shares
    expect((await xfer('role', 'grant', endpointId, 'access_manager', 'lab')).err).toContain("The role 'access_manager' exists only on shared endpoints");
    const role = await json('role', 'grant', endpointId, 'activity_manager', 'lab');
    expect((await xfer('role', 'grant', endpointId, 'activity_manager', 'lab')).err).toContain('already exists');
    expect((await xfer('role', 'grant', endpointId, 'superuser', 'lab')).err).toContain("Invalid role 'superuser'");
    expect((await xfer('role', 'grant', '11111111-2222-4333-8444-555555555555', 'administrator', 'carol')).err).toContain('No such endpoint');
    expect((await json('role', 'list', endpointId)).map((r: { role: string; principal: string }) => `${r.role}:${r.principal}`).sort()).toEqual(['activity_manager:lab', 'administrator:carol']);
    expect((await xfer('role', 'revoke', role.id)).code).toBe(0);
    expect(await json('role', 'list', endpointId)).toHaveLength(1);
    const rule = await json('pause-rule', 'add', endpointId, '--message', 'Disk swap', '--identity', 'carol');
    expect(await json('pause-rule', 'list', endpointId)).toEqual([expect.objectContaining({ id: rule.id, message: 'Disk swap' })]);
    expect((await xfer('pause-rule', 'remove', rule.id)).code).toBe(0);
    expect(await json('pause-rule', 'list', endpointId)).toEqual([]);
    expect((await xfer('pause-rule', 'add', endpointId)).code).toBe(USAGE_ERROR);
  });

  it('attaches storage to an endpoint, shows it and detaches it; refuses a share, a missing directory and a choice of neither or both', async () => {
    await xfer('identity', 'add', 'carol');
    const sub = await json('subscription', 'add', 'Lab subscription', '--member', 'carol');
    const { hostId, shareId } = await inspect(async (u, s) => {
      const carol = await s.authentication.principalOf((await u.repositories.identities.findByUsername('carol'))!.id);
      const host = (await s.endpoints.createEndpoint(carol, { display_name: 'Host', subscription_id: sub.id })).id;
      const share = (await s.endpoints.createSharedEndpoint(carol, { display_name: 'Share', host_endpoint_id: host, host_path: '/' })).id;
      return { hostId: host, shareId: share };
    });
    expect(await json('endpoint', 'storage', 'show', hostId)).toBeNull();
    const set = await xfer('endpoint', 'storage', 'set', hostId, '--posix', dir);
    expect(set).toMatchObject({ code: 0, out: `${hostId}: posix directory ${dir}` });
    expect(await json('endpoint', 'storage', 'show', hostId)).toEqual({ type: 'posix', root: dir });
    expect(await inspect((u) => u.repositories.endpoints.findById(hostId))).toMatchObject({ snapshot: expect.objectContaining({ storage: { type: 'posix', root: dir } }) });
    expect(await json('endpoint', 'storage', 'set', hostId, '--memory')).toEqual({ type: 'memory' });
    expect((await xfer('endpoint', 'storage', 'show', hostId)).out).toBe(`${hostId}: a memory tree (held by the server process; empty when it starts)`);
    expect((await xfer('endpoint', 'storage', 'remove', hostId)).out).toBe(`${hostId}: no storage`);
    expect(await json('endpoint', 'storage', 'show', hostId)).toBeNull();
    expect(await xfer('endpoint', 'storage', 'set', hostId, '--posix', join(dir, 'missing'))).toMatchObject({ code: USAGE_ERROR, err: `xfer: '${join(dir, 'missing')}' is not a directory of this host` });
    for (const argv of [[], ['--memory', '--posix', dir]]) {
      expect(await xfer('endpoint', 'storage', 'set', hostId, ...argv)).toMatchObject({ code: USAGE_ERROR, err: 'xfer: give one of --posix <directory> or --memory' });
    }
    expect((await xfer('endpoint', 'storage', 'set', shareId, '--memory')).err).toContain('not to a shared endpoint');
    // a directory of a data node (named by name, kept by id; not looked for on this host): the endpoint's https_server names the node
    const node = await json('node', 'add', 'lab-node', '--url', 'https://node.example.org:8443/');
    // a mapped collection of the node, on a storage gateway for that directory
    const onNode = await json('endpoint', 'storage', 'set', hostId, '--node', 'lab-node', '--posix', '/srv/on-the-node');
    expect(onNode).toEqual({ type: 'node', node: node.id, root: '/srv/on-the-node', storage_gateway: { id: expect.any(String), root: '/srv/on-the-node', identity_mappings: [], restrict_paths: null, users_allow: [], users_deny: [], groups_allow: [], groups_deny: [] } });
    expect((await xfer('endpoint', 'storage', 'show', hostId)).out).toBe(`${hostId}: directory /srv/on-the-node of node ${node.id}, storage gateway ${onNode.storage_gateway.id}`);
    expect((await inspect((u) => u.repositories.endpoints.findById(hostId)))?.snapshot.https_server).toBe(`https://node.example.org:8443/${hostId}`);
    expect(await xfer('endpoint', 'storage', 'set', hostId, '--node', 'nowhere', '--posix', '/srv')).toMatchObject({ code: USAGE_ERROR, err: "xfer: No such node 'nowhere'" });
    expect(await xfer('endpoint', 'storage', 'set', hostId, '--node', 'lab-node', '--posix', 'relative')).toMatchObject({ code: USAGE_ERROR, err: expect.stringContaining('an absolute directory of the node') });
    expect(await xfer('endpoint', 'storage', 'set', hostId, '--node', 'lab-node', '--memory')).toMatchObject({ code: USAGE_ERROR, err: 'xfer: give --posix <directory on the node> with --node' });
    // detached, the node's address goes with it
    await xfer('endpoint', 'storage', 'remove', hostId);
    expect((await inspect((u) => u.repositories.endpoints.findById(hostId)))?.snapshot.https_server).toBeNull();
  });

  it("sets a node storage's identity mapping, allow and deny lists and path restrictions on its storage gateway; refuses a bad document naming the field, the storage unchanged", async () => {
    await xfer('identity', 'add', 'carol');
    const hostId = await inspect(async (u, s) => (await s.endpoints.createEndpoint(await s.authentication.principalOf((await u.repositories.identities.findByUsername('carol'))!.id), { display_name: 'Homes' })).id);
    await json('node', 'add', 'homes-node', '--url', 'https://homes.example.org');
    const mapping = [{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [{ source: '{username}', match: '(.*)@example\\.org', output: '{0}' }] }];
    const restrictions = { DATA_TYPE: 'path_restrictions#1.0.0', read_write: ['/'], none: ['/private'] };
    const write = (name: string, value: unknown) => {
      writeFileSync(join(dir, name), JSON.stringify(value));
      return join(dir, name);
    };
    const set = await json('endpoint', 'storage', 'set', hostId, '--node', 'homes-node', '--posix', '/home', '--identity-mapping', write('map.json', mapping), '--restrict-paths', write('paths.json', restrictions), '--users-deny', 'root', '--users-deny', 'nobody', '--groups-allow', 'lab');
    const stored = { identity_mappings: [{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [{ source: '{username}', match: '(.*)@example\\.org', output: '{0}', ignore_case: false, literal: false }] }], restrict_paths: { DATA_TYPE: 'path_restrictions#1.0.0', read_write: ['/'], read: [], none: ['/private'] }, users_allow: [], users_deny: ['root', 'nobody'], groups_allow: ['lab'], groups_deny: [] };
    expect(set.storage_gateway).toEqual({ id: expect.any(String), root: '/home', ...stored });
    expect((await json('endpoint', 'storage', 'show', hostId)).storage_gateway).toEqual(set.storage_gateway);
    expect((await xfer('endpoint', 'storage', 'show', hostId)).out).toContain('mapping identities by 1 document(s)');
    // bad documents: exit 2 naming the field, nothing changed
    for (const [file, field] of [
      [write('bad-match.json', [{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [{ source: '{username}', match: '\\w+', output: '{0}' }] }]), 'identity_mappings[0].mappings[0].match'],
      [write('bad-type.json', [{ DATA_TYPE: 'identity_mapping#1.0.0', mappings: [] }]), 'identity_mappings[0].DATA_TYPE'],
      [write('bad-key.json', [{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [{ source: '{username}', match: 'x', output: 'y', read_only: true }] }]), 'identity_mappings[0].mappings[0].read_only'],
      [write('bad-output.json', [{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [{ source: '{username}', match: 'x' }] }]), 'identity_mappings[0].mappings[0].output'],
    ] as const) {
      expect(await xfer('endpoint', 'storage', 'set', hostId, '--node', 'homes-node', '--posix', '/home', '--identity-mapping', file)).toMatchObject({ code: USAGE_ERROR, err: expect.stringContaining(`Invalid ${field}`) });
    }
    expect(await xfer('endpoint', 'storage', 'set', hostId, '--node', 'homes-node', '--posix', '/home', '--restrict-paths', write('bad-paths.json', { read_only: ['/'] }))).toMatchObject({ code: USAGE_ERROR, err: expect.stringContaining('Invalid restrict_paths.read_only') });
    expect(await xfer('endpoint', 'storage', 'set', hostId, '--node', 'homes-node', '--posix', '/home', '--identity-mapping', join(dir, 'missing.json'))).toMatchObject({ code: USAGE_ERROR, err: expect.stringContaining('--identity-mapping: cannot read') });
    expect(await xfer('endpoint', 'storage', 'set', hostId, '--memory', '--users-deny', 'root')).toMatchObject({ code: USAGE_ERROR, err: expect.stringContaining("Invalid users_deny: applies to a data node's storage") });
    expect((await json('endpoint', 'storage', 'show', hostId)).storage_gateway).toEqual(set.storage_gateway);
    // an export carries them, as a seed's storage entry loads them
    expect((await xfer('export', join(dir, 'state.json'))).code).toBe(0);
    const exported = (JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { endpoints: { id: string; storage?: Record<string, unknown> }[] }).endpoints.find((e) => e.id === hostId);
    const { id: _id, root: _root, ...policies } = set.storage_gateway;
    expect(exported?.storage).toEqual({ type: 'node', node: expect.any(String), root: '/home', ...policies, users_allow: undefined, groups_deny: undefined });
  });

  it('lists the access rules the API made on a share', async () => {
    await xfer('identity', 'add', 'carol');
    await xfer('identity', 'add', 'dave');
    const sub = await json('subscription', 'add', 'Lab subscription', '--member', 'carol');
    const { shareId, daveId } = await inspect(async (u, s) => {
      const carol = await s.authentication.principalOf((await u.repositories.identities.findByUsername('carol'))!.id);
      const host = (await s.endpoints.createEndpoint(carol, { display_name: 'Host', subscription_id: sub.id, servers: [{ hostname: 'h.example.org' }] })).id;
      const share = (await s.endpoints.createSharedEndpoint(carol, { display_name: 'Share', host_endpoint_id: host, host_path: '/~/' })).id;
      const dave = (await u.repositories.identities.findByUsername('dave'))!.id;
      await s.accessRules.add(carol, share, { principal_type: 'identity', principal: dave, path: '/results', permissions: 'r' });
      return { shareId: share, daveId: dave };
    });
    expect(await json('access', 'list', shareId)).toEqual([expect.objectContaining({ principal: daveId, path: '/results/', permissions: 'r' })]);
    expect((await xfer('access', 'list', shareId)).out).toContain('/results/');
  });

  it('switches maintenance mode on and off', async () => {
    expect((await xfer('maintenance', 'status')).out).toBe('off');
    expect((await xfer('maintenance', 'on', '--message', 'Upgrading storage', '--retry-after', '120')).out).toBe('maintenance mode on: Upgrading storage');
    expect(await json('maintenance', 'status')).toMatchObject({ message: 'Upgrading storage', retry_after_seconds: 120 });
    expect((await xfer('maintenance', 'off')).out).toBe('maintenance mode off');
    expect(await json('maintenance', 'status')).toBeNull();
  });

  it('seeds realistic data with a working token', async () => {
    const result = await json('seed', '--endpoints', '1200', '--shares-per-host', '50');
    expect(result).toMatchObject({ endpoints: 1200, shares: 50, owners: 2 });
    await inspect(async (u, s) => {
      const principal = await s.authentication.authenticate(result.token);
      const shares = await s.endpoints.mySharedEndpoints(principal, result.host_endpoint_id);
      expect(shares).toHaveLength(25);
      expect(result.managed_shares).toBe(25);
      const sample = await u.repositories.endpoints.findById(result.sample_endpoint_ids[1]);
      expect(sample).not.toBeNull();
    });
  });

  it('migrates, and says so when there is nothing to do', async () => {
    expect((await xfer('migrate')).out).toContain('applied InitialSchema');
    expect((await xfer('migrate')).out).toBe('database is up to date');
    // the web console's client, registered at its configured address
    const clients = JSON.parse((await xfer('--json', 'client', 'list')).out) as { id: string; display_name: string; redirect_uris: string[] }[];
    const console = clients.find((c) => c.display_name === 'xfer console')!;
    expect(console.redirect_uris).toEqual(['http://127.0.0.1:8082/console/callback', 'http://127.0.0.1:8082/console/']);
    // a later migrate leaves the secret of a console that may be running alone
    const secretOf = () => inspect(async (u) => (await u.repositories.clients.findById(console.id))!.secret_hash);
    const before = await secretOf();
    expect((await xfer('migrate')).out).toBe('database is up to date');
    expect(await secretOf()).toBe(before);
  });

  it('answers unknown commands, missing arguments and bad settings with exit code 2, and has help', async () => {
    expect((await xfer('frobnicate')).code).toBe(USAGE_ERROR);
    expect((await xfer('identity', 'add')).err).toContain("missing required argument 'username'");
    expect((await xfer('--database', 'mysql://x', 'migrate')).err).toContain('is not supported');
    const help = await xfer('--help');
    expect(help.code).toBe(0);
    for (const command of ['identity', 'group', 'client', 'scope', 'consent', 'token', 'subscription', 'role', 'pause-rule', 'maintenance', 'migrate', 'seed', 'serve']) {
      expect(help.out).toContain(command);
    }
    expect((await xfer('token', '--help')).out).toContain('revoke');
  });
});
