import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { transfer } from '@globus/sdk';
import { freePort } from '@xfer/server-kit';

const BIN = join(__dirname, '..', '..', 'bin', 'xfer.js');
const LAB = '2f7c5d4e-1b8a-4c3d-9e6f-0a1b2c3d4e5f';
const RESULTS = '3a8d6e5f-2c9b-4d4e-8f70-1b2c3d4e5f60';
const SEED = {
  identities: [{ username: 'alice@example.org', name: 'Alice', password: 'pw-for-alice' }, { username: 'bob@example.org' }],
  subscriptions: [{ name: 'Lab', members: ['alice@example.org'] }],
  tokens: [
    { identity: 'alice@example.org', value: 'alice-token', scopes: ['urn:globus:auth:scope:transfer.api.globus.org:all'] },
    { identity: 'bob@example.org', value: 'bob-token-1' },
  ],
  endpoints: [
    {
      id: LAB,
      owner: 'alice@example.org',
      display_name: 'Lab DTN',
      subscription_id: 'DEFAULT',
      servers: [{ hostname: 'dtn.example.org' }],
      roles: [{ principal: 'bob@example.org', role: 'activity_monitor' }],
      shares: [{ display_name: 'Results', host_path: '/results/', access: [{ principal_type: 'identity', principal: 'bob@example.org', path: '/', permissions: 'r' }] }],
    },
  ],
};

/** `xfer serve --ephemeral`: the stand-in a test suite starts, seeds, resets and injects faults into. */
describe('the local stand-in for tests (xfer serve --ephemeral)', () => {
  let dir: string;
  let child: ChildProcess;
  let url: string;

  /** Starts the stand-in; resolves with the one line it prints once it answers. */
  async function start(args: string[]): Promise<string> {
    child = spawn(process.execPath, [BIN, 'serve', '--ephemeral', '--port', '0', ...args], { cwd: dir, env: { ...process.env, HOST: '127.0.0.1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    return line;
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-stand-in-'));
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(SEED));
    url = await start(['--seed', 'seed.json', '--exit-on-stdin-close']);
    process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER = `${url}/`;
  });
  afterEach(async () => {
    delete process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER;
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const as = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
  const control = (path: string, init?: RequestInit) => fetch(`${url}/_xfer${path}`, init);
  const post = (path: string, body: unknown) => control(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  it('prints one line with its URL, serves both APIs on it with the seed loaded, and leaves no file behind when stdin closes', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const lab = await (await transfer.endpoint.get(LAB, as('alice-token'))).json();
    expect(lab).toMatchObject({ display_name: 'Lab DTN', subscription_id: expect.any(String), DATA: [expect.objectContaining({ hostname: 'dtn.example.org' })] });
    const shared = await (await transfer.endpointSearch({ query: { filter_scope: 'shared-with-me' }, ...as('bob-token-1') })).json();
    expect(shared.DATA.map((e: { display_name: string }) => e.display_name)).toEqual(['Results']);
    expect((await fetch(`${url}/.well-known/openid-configuration`)).status).toBe(200);
    expect((await fetch(`${url}/v0.10/nowhere`, as('alice-token'))).headers.get('content-type')).toContain('application/json');
    expect((await control('/health')).status).toBe(200);
    child.stdin!.end();
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(readdirSync(dir)).toEqual(['seed.json']);
  });

  it('goes back to the seed on reset, and keeps a journal of requests until then', async () => {
    await fetch(`${url}/v0.10/endpoint`, { method: 'POST', headers: { ...as('alice-token').headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ display_name: 'Made in a test' }) });
    await transfer.endpoint.get(LAB, as('bob-token-1'));
    const journal = (await (await control('/requests')).json()).requests as { method: string; path: string; status: number; identity_id: string | null }[];
    expect(journal.map((r) => [r.method, r.path, r.status])).toEqual([
      ['POST', '/v0.10/endpoint', 201],
      ['GET', `/v0.10/endpoint/${LAB}`, 200],
    ]);
    expect(journal.every((r) => typeof r.identity_id === 'string')).toBe(true);
    expect(((await (await control(`/requests?path=/v0.10/endpoint/${LAB}`)).json()).requests as unknown[]).length).toBe(1);
    const reset = await (await post('/reset', {})).json();
    expect(reset).toMatchObject({ reset: true, duration_ms: expect.any(Number) });
    const mine = await (await transfer.endpointSearch({ query: { filter_scope: 'my-endpoints' }, ...as('alice-token') })).json();
    expect(mine.DATA.map((e: { display_name: string }) => e.display_name).sort()).toEqual(['Lab DTN', 'Results']);
    expect(((await (await control('/requests')).json()).requests as unknown[]).length).toBe(1);
  });

  it('publishes one signing key, made when first asked for, which a reset keeps: what it signed before still verifies', async () => {
    const publishedKeys = async () => ((await (await fetch(`${url}/jwk.json`)).json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
    const keys = await publishedKeys();
    expect(keys).toEqual([expect.any(String)]);
    expect((await post('/reset', {})).status).toBe(200);
    expect(await publishedKeys()).toEqual(keys);
  });

  it('answers the next requests of a method and path with an injected fault, or delays them, until cleared', async () => {
    const fault = await post('/faults', { method: 'GET', path: '/v0.10/endpoint/', status: 503, count: 2, retry_after: 1 });
    expect(fault.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const res = await transfer.endpoint.get(LAB, as('alice-token'));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toMatchObject({ code: 'ServiceUnavailable', request_id: expect.any(String), resource: `/endpoint/${LAB}` });
    }
    expect((await transfer.endpoint.get(LAB, as('alice-token'))).status).toBe(200);
    await post('/faults', { method: 'GET', path: '/v0.10/endpoint/', delay_ms: 300, count: 5 });
    const started = Date.now();
    expect((await transfer.endpoint.get(LAB, as('alice-token'))).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(((await (await control('/faults')).json()).faults as { count: number }[])[0].count).toBe(4);
    await control('/faults', { method: 'DELETE' });
    expect((await (await control('/faults')).json()).faults).toEqual([]);
    for (const bad of [{ path: 'no-slash', status: 503 }, { path: '/x', status: 200 }, { path: '/x' }, { path: '/x', status: 503, extra: 1 }]) expect((await post('/faults', bad)).status).toBe(400);
    const unreadable = await control('/faults', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{ not json' });
    expect({ status: unreadable.status, type: unreadable.headers.get('content-type') }).toEqual({ status: 400, type: expect.stringContaining('application/json') });
  });

  it('F10: a page of another site cannot drive the control routes (no form bodies, no foreign origin); a plain POST still resets', async () => {
    const made = async () => (await (await control('/requests?path=/v0.10/endpoint')).json()).requests.length as number;
    await transfer.endpoint.get(LAB, as('alice-token'));
    const attempts: [string, RequestInit][] = [
      ['form', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1' }],
      ['text', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' }],
      ['multipart', { method: 'POST', headers: { 'Content-Type': 'multipart/form-data; boundary=x' }, body: '--x--' }],
      ['origin', { method: 'POST', headers: { Origin: 'https://attacker.example' } }],
      ['fetch metadata', { method: 'POST', headers: { 'Sec-Fetch-Site': 'cross-site' } }],
    ];
    for (const [name, init] of attempts) {
      const res = await control('/reset', init);
      expect({ name, status: res.status, code: (await res.json()).code }).toEqual({ name, status: name === 'origin' || name === 'fetch metadata' ? 403 : 415, code: expect.any(String) });
      expect(await made()).toBe(1);
    }
    expect((await control('/faults', { method: 'DELETE', headers: { Origin: 'https://attacker.example' } })).status).toBe(403);
    expect((await control('/reset', { method: 'POST', headers: { Origin: url } })).status).toBe(200);
    expect(await made()).toBe(0);
  });

  it('answers a request without a body whatever its Content-Type (clients that send application/json on every request), and still refuses a body that is not JSON', async () => {
    const json = { 'Content-Type': 'application/json' };
    expect((await control('/health', { headers: json })).status).toBe(200);
    expect((await control('/requests', { headers: json })).status).toBe(200);
    expect((await control('/faults', { headers: json })).status).toBe(200);
    expect((await control('/tasks/progress', { headers: json })).status).toBe(200);
    expect((await control('/faults', { method: 'DELETE', headers: json })).status).toBe(200);
    // a form with an empty body still has one
    expect((await control('/reset', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' })).status).toBe(415);
    expect((await control('/reset', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'reset' })).status).toBe(415);
  });

  it('F11: at most 100 faults pending, and a journal bounded in bytes as well as in entries (long queries cut, and marked)', async () => {
    for (let i = 0; i < 100; i++) expect((await post('/faults', { path: `/v0.10/nothing-${i}`, status: 503 })).status).toBe(201);
    const over = await post('/faults', { path: '/v0.10/one-more', status: 503 });
    expect(over.status).toBe(409);
    expect((await over.json()).message).toContain('At most 100 faults');
    expect((await post('/faults', { path: `/${'p'.repeat(3000)}`, status: 503 })).status).toBe(409);
    await control('/faults', { method: 'DELETE' });
    expect((await post('/faults', { path: `/${'p'.repeat(3000)}`, status: 503 })).status).toBe(400);
    // a query of 15 KB is kept as its first 2 KB, marked
    await fetch(`${url}/v0.10/endpoint_search?filter_fulltext=${'x'.repeat(15_000)}`, as('alice-token'));
    const cut = (JSON.parse(await (await control('/requests')).text()).requests as { query: Record<string, string> }[]).at(-1)!.query;
    expect(cut._truncated).toMatch(/^\{"filter_fulltext":"x+\.\.\.$/);
    expect(cut._truncated.length).toBeLessThanOrEqual(2051);
    // 2,200 entries of 2 KB each would be 4.8 MB: the oldest go, the journal stays within 4 MB
    const near = 'y'.repeat(1_950);
    for (let i = 0; i < 2_200; i++) await fetch(`${url}/v0.10/endpoint/${i}?q=${near}`);
    const journal = await (await control('/requests')).text();
    expect(journal.length).toBeLessThan(4.1 * 1024 * 1024);
    const requests = JSON.parse(journal).requests as { path: string; query: Record<string, string> }[];
    expect(requests.length).toBeLessThan(2_200);
    expect(requests.at(-1)).toMatchObject({ path: '/v0.10/endpoint/2199', query: { q: near } });
  });

  it('exports its state in the seed format when it stops; loading the export and exporting again gives the same file', async () => {
    // this test starts its own stand-ins: the one of beforeEach goes
    child.stdin!.end();
    await once(child, 'exit');
    url = await start(['--seed', 'seed.json', '--export-on-exit', 'first.json']);
    const headers = { Authorization: 'Bearer alice-token', 'Content-Type': 'application/json' };
    const made = await (await fetch(`${url}/v0.10/endpoint`, { method: 'POST', headers, body: JSON.stringify({ display_name: 'Made later', description: 'After the seed', keywords: 'a,b', public: true, DATA: [{ hostname: 'later.example.org', port: 2812 }] }) })).json();
    expect(made.code).toBe('Created');
    child.kill('SIGTERM');
    await once(child, 'exit');
    const first = JSON.parse(readFileSync(join(dir, 'first.json'), 'utf8'));
    expect(first.endpoints.map((e: { display_name: string }) => e.display_name)).toEqual(['Lab DTN', 'Made later']);
    expect(first.tokens).toEqual(expect.arrayContaining([expect.objectContaining({ identity: 'alice@example.org', value_hash: expect.stringMatching(/^[0-9a-f]{64}$/) })]));
    expect(JSON.stringify(first)).not.toContain('alice-token');

    url = await start(['--seed', 'first.json', '--export-on-exit', 'second.json']);
    // the seeded token still works: its hash came back
    expect((await fetch(`${url}/v0.10/endpoint/${made.id}`, { headers })).status).toBe(200);
    child.kill('SIGTERM');
    await once(child, 'exit');
    expect(JSON.parse(readFileSync(join(dir, 'second.json'), 'utf8'))).toEqual(first);
    // readable by its owner only: it holds hashes of passwords and tokens
    expect(statSync(join(dir, 'second.json')).mode & 0o777).toBe(0o600);
  });

  it("F13: an export where a client has its own identity loads back; an export is never written through a symbolic link", async () => {
    child.stdin!.end();
    await once(child, 'exit');
    const robot = '6b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e';
    writeFileSync(join(dir, 'robot.json'), JSON.stringify({ ...SEED, clients: [{ id: robot, name: 'Robot', secret: 'robot-secret-1', confidential: true }], tokens: [...SEED.tokens, { client: 'Robot', value: 'robot-token' }] }));
    url = await start(['--seed', 'robot.json', '--export-on-exit', 'first.json']);
    expect((await fetch(`${url}/v0.10/endpoint_search?filter_scope=my-endpoints`, as('robot-token'))).status).toBe(200);
    child.kill('SIGTERM');
    await once(child, 'exit');
    const first = JSON.parse(readFileSync(join(dir, 'first.json'), 'utf8'));
    expect(first.identities).toContainEqual({ username: `${robot}@clients.auth.globus.org`, name: 'Robot' });
    url = await start(['--seed', 'first.json', '--export-on-exit', 'second.json']);
    expect((await fetch(`${url}/v0.10/endpoint_search?filter_scope=my-endpoints`, as('robot-token'))).status).toBe(200);
    child.kill('SIGTERM');
    await once(child, 'exit');
    expect(JSON.parse(readFileSync(join(dir, 'second.json'), 'utf8'))).toEqual(first);
    // a link planted where the export goes is refused, and what it points at is untouched
    writeFileSync(join(dir, 'precious.txt'), 'keep me');
    symlinkSync(join(dir, 'precious.txt'), join(dir, 'linked.json'));
    const refused = await new Promise<{ code: number; err: string }>((resolve) =>
      execFile(process.execPath, [BIN, 'export', 'linked.json', '--database', 'sqlite::memory:'], { cwd: dir }, (error, _out, err) => resolve({ code: error ? Number((error as { code?: number }).code) : 0, err })),
    );
    expect(refused).toEqual({ code: 2, err: expect.stringContaining('linked.json is a symbolic link') });
    expect(readFileSync(join(dir, 'precious.txt'), 'utf8')).toBe('keep me');
  });

  it("serves a seed's memory tree through the SDK, an empty tree behind every other endpoint; a reset and an export keep the seeded files", async () => {
    child.stdin!.end();
    await once(child, 'exit');
    const files = { '/data/run1/out.csv': 'a,b\n1,2\n', '/data/README': 'read me', '/scratch/': null };
    const [lab] = SEED.endpoints;
    writeFileSync(join(dir, 'files.json'), JSON.stringify({ ...SEED, endpoints: [{ ...lab, storage: { type: 'memory', files }, shares: [{ ...lab!.shares[0], id: RESULTS }] }] }));
    url = await start(['--seed', 'files.json', '--export-on-exit', 'exported.json']);
    process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER = `${url}/`;
    const listing = await (await transfer.fileOperations.ls(LAB, { query: { path: '/data/' }, ...as('alice-token') })).json();
    expect(listing).toMatchObject({ DATA_TYPE: 'file_list', total: 2 });
    expect((listing as { DATA: { name: string; type: string; size: number }[] }).DATA.map((f) => [f.name, f.type, f.size])).toEqual([['README', 'file', 7], ['run1', 'dir', expect.any(Number)]]);
    // the share of the seed sees /results/ of the tree: not there yet
    const share = RESULTS;
    expect((await transfer.fileOperations.ls(share, { query: { path: '/' }, ...as('bob-token-1') })).status).toBe(404);
    expect((await transfer.fileOperations.mkdir(LAB, { payload: { path: '/results' }, ...as('alice-token') })).status).toBe(200);
    expect((await (await transfer.fileOperations.ls(share, { query: { path: '/' }, ...as('bob-token-1') })).json())).toMatchObject({ total: 0 });
    expect((await transfer.fileOperations.mkdir(share, { payload: { path: '/by-bob' }, ...as('bob-token-1') })).status).toBe(403);
    // reset: the tree as seeded
    expect((await post('/reset', {})).status).toBe(200);
    expect((await transfer.fileOperations.ls(LAB, { query: { path: '/results' }, ...as('alice-token') })).status).toBe(404);
    // an endpoint made through the API has an empty tree of its own
    const made = await (await fetch(`${url}/v0.10/endpoint`, { method: 'POST', headers: { Authorization: 'Bearer alice-token', 'Content-Type': 'application/json' }, body: JSON.stringify({ display_name: 'Made later' }) })).json();
    expect(await (await transfer.fileOperations.ls(made.id, { query: { path: '/' }, ...as('alice-token') })).json()).toMatchObject({ total: 0, DATA: [] });
    await transfer.fileOperations.mkdir(made.id, { payload: { path: '/new' }, ...as('alice-token') });
    child.kill('SIGTERM');
    await once(child, 'exit');
    const exported = JSON.parse(readFileSync(join(dir, 'exported.json'), 'utf8'));
    expect(exported.endpoints.map((e: { display_name: string; storage?: unknown }) => [e.display_name, e.storage])).toEqual([
      ['Lab DTN', { type: 'memory', files }],
      ['Made later', { type: 'memory', files: { '/new/': null } }],
    ]);
  });

  it('moves tasks as a test says: in the background, before the submit answers, or one attempt when told; a reset goes back to the background', async () => {
    child.stdin!.end();
    await once(child, 'exit');
    const [lab] = SEED.endpoints;
    writeFileSync(join(dir, 'files.json'), JSON.stringify({ ...SEED, endpoints: [{ ...lab, storage: { type: 'memory', files: { '/data/a.csv': 'a,b\n', '/in/': null } } }] }));
    url = await start(['--seed', 'files.json']);
    const submit = async (source: string, destination: string) => {
      const submission = (await (await transfer.taskSubmission.submissionId(as('alice-token'))).json()) as { value: string };
      const payload = { submission_id: submission.value, source_endpoint: LAB, destination_endpoint: LAB, DATA: [{ DATA_TYPE: 'transfer_item' as const, source_path: source, destination_path: destination }] };
      return ((await (await transfer.taskSubmission.submitTransfer({ payload, ...as('alice-token') })).json()) as unknown as { task_id: string }).task_id;
    };
    const status = async (id: string) => ((await (await transfer.task.get(id, as('alice-token'))).json()) as unknown as { status: string; nice_status: string | null });
    process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER = `${url}/`;
    expect(await (await control('/tasks/progress')).json()).toEqual({ mode: 'background' });

    expect(await (await post('/tasks/progress', { mode: 'immediate' })).json()).toEqual({ mode: 'immediate' });
    const immediate = await submit('/data/a.csv', '/in/b.csv');
    expect(await status(immediate)).toMatchObject({ status: 'SUCCEEDED' });

    expect((await post('/tasks/progress', { mode: 'manual' })).status).toBe(200);
    const waiting = await submit('/data/a.csv', '/in/c.csv');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await status(waiting)).toMatchObject({ status: 'ACTIVE', nice_status: 'Queued' });
    expect(await (await post(`/tasks/${waiting}/run`, {})).json()).toEqual({ task_id: waiting, status: 'SUCCEEDED', nice_status: null });
    const missing = await submit('/data/none.csv', '/in/d.csv');
    expect(await (await post(`/tasks/${missing}/run`, {})).json()).toEqual({ task_id: missing, status: 'ACTIVE', nice_status: 'FILE_NOT_FOUND' });
    expect((await post('/tasks/00000000-0000-4000-8000-000000000000/run', {})).status).toBe(404);
    expect((await post('/tasks/progress', { mode: 'fast' })).status).toBe(400);

    expect((await post('/reset', {})).status).toBe(200);
    expect(await (await control('/tasks/progress')).json()).toEqual({ mode: 'background' });
    expect((await post(`/tasks/${waiting}/run`, {})).status).toBe(409);
    const background = await submit('/data/a.csv', '/in/e.csv');
    let seen = await status(background);
    for (let i = 0; i < 100 && seen.status === 'ACTIVE'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = await status(background);
    }
    expect(seen.status).toBe('SUCCEEDED');
    expect((await (await transfer.fileOperations.ls(LAB, { query: { path: '/in/' }, ...as('alice-token') })).json()) as { DATA: { name: string }[] }).toMatchObject({ DATA: [{ name: 'e.csv' }] });
  });

  it("fails an endpoint's storage where a test says: a task waits out a missing file, a full disk, a checksum mismatch; a reset clears them", async () => {
    child.stdin!.end();
    await once(child, 'exit');
    const [lab] = SEED.endpoints;
    writeFileSync(join(dir, 'files.json'), JSON.stringify({ ...SEED, endpoints: [{ ...lab, storage: { type: 'memory', files: { '/data/a.csv': 'a,b\n', '/in/': null } } }] }));
    url = await start(['--seed', 'files.json']);
    process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER = `${url}/`;
    const api = async (method: string, path: string, body?: unknown) => (await fetch(`${url}/v0.10${path}`, { method, headers: { Authorization: 'Bearer alice-token', 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })).json();
    const submit = async (destination: string, extra: Record<string, unknown> = {}) =>
      (await api('POST', '/transfer', { submission_id: (await api('GET', '/submission_id')).value, source_endpoint: LAB, destination_endpoint: LAB, ...extra, DATA: [{ source_path: '/data/a.csv', destination_path: destination }] })).task_id as string;
    const run = async (id: string) => (await post(`/tasks/${id}/run`, {})).json();
    expect((await post('/tasks/progress', { mode: 'manual' })).status).toBe(200);

    const missing = await post('/faults', { endpoint: LAB, path: '/data', error: 'FILE_NOT_FOUND', count: 1 });
    expect([missing.status, (await missing.json()).count]).toEqual([201, 1]);
    const first = await submit('/in/1.csv');
    expect(await run(first)).toMatchObject({ status: 'ACTIVE', nice_status: 'FILE_NOT_FOUND' });
    expect(await run(first)).toMatchObject({ status: 'SUCCEEDED' });

    await post('/faults', { endpoint: LAB, path: '/in/2.csv', error: 'QUOTA_EXCEEDED', count: 2 });
    const full = await submit('/in/2.csv');
    expect(await run(full)).toMatchObject({ nice_status: 'QUOTA_EXCEEDED' });
    expect(((await (await control('/faults')).json()) as { storage_faults: { count: number }[] }).storage_faults).toEqual([expect.objectContaining({ error: 'QUOTA_EXCEEDED', count: 1 })]);

    await post('/faults', { endpoint: LAB, path: '/in', error: 'CHECKSUM_MISMATCH' });
    expect(await run(await submit('/in/3.csv', { verify_checksum: true }))).toMatchObject({ nice_status: 'CHECKSUM_MISMATCH' });

    for (const bad of [{ endpoint: 'lab', path: '/', error: 'FILE_NOT_FOUND' }, { endpoint: LAB, path: 'data', error: 'FILE_NOT_FOUND' }, { endpoint: LAB, path: '/', error: 'DISK_ON_FIRE' }, { endpoint: LAB, path: '/', error: 'FILE_NOT_FOUND', count: 0 }, { endpoint: LAB, path: '/', error: 'FILE_NOT_FOUND', when: 'now' }]) {
      expect((await post('/faults', bad)).status).toBe(400);
    }
    expect((await post('/reset', {})).status).toBe(200);
    expect(await (await control('/faults')).json()).toEqual({ faults: [], storage_faults: [] });
  });

  it('names the file, the object and the field of a seed it cannot load, and exits 2', async () => {
    const run = (seed: unknown) =>
      new Promise<{ code: number; err: string }>((resolve) => {
        writeFileSync(join(dir, 'bad.json'), typeof seed === 'string' ? seed : JSON.stringify(seed));
        execFile(process.execPath, [BIN, 'serve', '--ephemeral', '--port', '0', '--seed', 'bad.json'], { cwd: dir }, (error, _out, err) => resolve({ code: error ? Number((error as { code?: number }).code) : 0, err: err.trim() }));
      });
    expect(await run('{ not json')).toMatchObject({ code: 2, err: expect.stringMatching(/^xfer: bad\.json: not valid JSON/) });
    expect(await run({ people: [] })).toMatchObject({ code: 2, err: expect.stringContaining("bad.json: unknown list 'people'") });
    expect(await run({ identities: [{ username: 'a@example.org', nickname: 'A' }] })).toMatchObject({ code: 2, err: expect.stringContaining("bad.json: identities[0] (a@example.org): unknown field 'nickname'") });
    expect(await run({ endpoints: [{ owner: 'nobody@example.org', display_name: 'X' }] })).toMatchObject({ code: 2, err: expect.stringContaining("bad.json: endpoints[0] (X): owner: no identity 'nobody@example.org'") });
    const withStorage = (storage: unknown) => ({ identities: [{ username: 'a@example.org' }], endpoints: [{ owner: 'a@example.org', display_name: 'X', storage }] });
    const storageRefusals: [unknown, string][] = [
      ['/data', 'endpoints[0] (X): storage: {"type": "posix", "root": ...} or {"type": "memory", "files": {...}}'],
      [{ type: 'tape' }, "endpoints[0] (X): storage.type: 'posix', 'node' or 'memory'"],
      [{ type: 'posix', root: 'relative' }, 'endpoints[0] (X): storage.root: the absolute directory of this host to serve'],
      [{ type: 'posix', root: join(dir, 'missing') }, `endpoints[0] (X): storage.root: '${join(dir, 'missing')}' is not a directory of this host`],
      [{ type: 'memory', root: '/x' }, "endpoints[0] (X): storage: unknown field 'root' for type 'memory'"],
      [{ type: 'node', node: 'lab', root: 'relative' }, 'endpoints[0] (X): storage: {"type": "node", "node": "<node id or name>", "root": "<absolute directory on the node>"}'],
      [{ type: 'node', node: 'lab', root: '/srv', files: {} }, "endpoints[0] (X): storage: unknown field 'files' for type 'node'"],
      [{ type: 'memory', files: { 'a.txt': 'x' } }, "endpoints[0] (X): storage.files: 'a.txt' is not an absolute path of a file or directory"],
      [{ type: 'memory', files: { '/a.txt': 1 } }, "endpoints[0] (X): storage.files['/a.txt']: UTF-8 content, or null for a directory"],
      [{ type: 'memory', files: { '/../a.txt': 'x' } }, "endpoints[0] (X): storage.files: Invalid path '/../a.txt': it climbs out of the endpoint's root"],
    ];
    for (const [storage, message] of storageRefusals) expect(await run(withStorage(storage))).toMatchObject({ code: 2, err: `xfer: bad.json: ${message}` });
    expect(await run({ identities: [{ username: 'a@example.org' }], endpoints: [{ owner: 'a@example.org', display_name: 'X', location: 'nowhere' }] })).toMatchObject({
      code: 2,
      err: expect.stringMatching(/bad\.json: endpoints\[0\] \(X\): Invalid location 'nowhere'/),
    });
  });

  it('F12: refuses duplicate ids, duplicate token values, out-of-range numbers, wrong types in access rules and ids that are not UUIDs, naming them (exit 2)', async () => {
    const run = (seed: unknown) =>
      new Promise<{ code: number; err: string }>((resolve) => {
        writeFileSync(join(dir, 'bad.json'), JSON.stringify(seed));
        execFile(process.execPath, [BIN, 'serve', '--ephemeral', '--port', '0', '--seed', 'bad.json'], { cwd: dir }, (error, _out, err) => resolve({ code: error ? Number((error as { code?: number }).code) : 0, err: err.trim() }));
      });
    const ID = '2f7c5d4e-1b8a-4c3d-9e6f-0a1b2c3d4e5f';
    const alice = { username: 'a@example.org' };
    const hostWithRules = (access: unknown) => ({
      identities: [alice],
      subscriptions: [{ name: 'S', members: ['a@example.org'] }],
      endpoints: [{ owner: 'a@example.org', display_name: 'H', subscription_id: 'DEFAULT', servers: [{ hostname: 'h.example.org' }], shares: [{ display_name: 'Sh', host_path: '/x/', access }] }],
    });
    const cases: [unknown, string][] = [
      [{ clients: [{ id: ID, name: 'A' }, { id: ID.toUpperCase(), name: 'B' }] }, `bad.json: clients[1] (B): id: '${ID.toUpperCase()}' is the id of clients[0] (A) too`],
      [{ identities: [{ ...alice, id: ID }], endpoints: [{ id: ID, owner: 'a@example.org', display_name: 'E' }] }, `bad.json: endpoints[0] (E): id: '${ID}' is the id of identities[0] (a@example.org) too`],
      [{ identities: [{ ...alice, id: 'not-a-uuid' }] }, 'bad.json: identities[0] (a@example.org): id: a UUID'],
      [{ identities: [alice], groups: [{ id: 7, name: 'g' }] }, 'bad.json: groups[0] (g): id: a UUID'],
      [{ identities: [alice], tokens: [{ identity: 'a@example.org', value: 'token-one' }, { identity: 'a@example.org', value: 'token-one' }] }, 'bad.json: tokens[1]: Invalid value: a token with this value exists already'],
      // ids the stand-in has before any seed: the CLI's template client, the console's client
      [{ clients: [{ id: '95fdeba8-fac2-42bd-a357-e068d82ff78e', name: 'Copycat', confidential: true }] }, "bad.json: clients[0] (Copycat): Invalid id: client 'Globus CLI' has the id 95fdeba8-fac2-42bd-a357-e068d82ff78e already"],
      [{ clients: [{ id: '3c0a5b1e-7d2f-4c6a-9e8b-c0501e000001', name: 'Console again' }] }, "bad.json: clients[0] (Console again): Invalid id: client 'xfer console' has the id 3c0a5b1e-7d2f-4c6a-9e8b-c0501e000001 already"],
      [{ identities: [alice], tokens: [{ identity: 'a@example.org', value: 'token-one', expires_in: 1e20 }] }, 'bad.json: tokens[0]: Invalid expires_in: a whole number of seconds from 1 to 315360000'],
      [hostWithRules([{ principal_type: 'all_authenticated_users', principal: '', path: 7, permissions: 5 }]), 'bad.json: endpoints[0] (H): shares[0].access[0]: Invalid path: must be a string or null; Invalid permissions'],
      [hostWithRules(['x']), 'bad.json: endpoints[0] (H): shares[0].access: a list of access rules'],
      [{ identities: [alice], endpoints: [{ owner: 'a@example.org', display_name: 'E', shares: [5] }] }, 'bad.json: endpoints[0] (E): shares: a list of shared endpoints'],
    ];
    for (const [seed, message] of cases) expect(await run(seed)).toEqual({ code: 2, err: expect.stringContaining(`xfer: ${message}`) });
  });

  it('serves the web console under /console/, whose client outlives a reset', async () => {
    const home = await fetch(`${url}/console/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Sign in');
    expect((await post('/reset', {})).status).toBe(200);
    const login = await fetch(`${url}/console/login`, { redirect: 'manual' });
    const authorize = new URL(login.headers.get('location')!);
    expect(authorize.origin).toBe(url);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${url}/console/callback`);
    // the authorization service knows the console's client and address: on to sign-in, not an error page
    const answer = await fetch(authorize, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toMatch(/^\/v2\/web\/authorize\?/);
  });

  it('serves no control routes without --ephemeral', async () => {
    const api = await freePort();
    let auth = await freePort();
    while (auth === api) auth = await freePort();
    let console = await freePort();
    while (console === api || console === auth) console = await freePort();
    const env = { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'plain.sqlite')}`, HOST: '127.0.0.1', API_PORT: String(api), AUTH_PORT: String(auth), CONSOLE_PORT: String(console) };
    const plain = spawn(process.execPath, [BIN, 'serve'], { env, stdio: 'ignore' });
    try {
      for (let tries = 0; ; tries++) {
        try {
          if ((await fetch(`http://127.0.0.1:${console}/console/`)).ok) break;
        } catch {
          if (tries > 200) throw new Error('xfer serve did not start');
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      for (const port of [api, auth, console]) {
        expect((await fetch(`http://127.0.0.1:${port}/_xfer/health`)).status).toBe(404);
        expect((await fetch(`http://127.0.0.1:${port}/_xfer/reset`, { method: 'POST' })).status).toBe(404);
      }
    } finally {
      plain.kill('SIGKILL');
    }
  });
});
