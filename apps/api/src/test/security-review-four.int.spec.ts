import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { BACKENDS, startTaskApi, TASK_CASES, type TaskApi } from './harness';

/** A name of 64 characters, on which a backtracking glob of many stars never ends. */
const LONG_NAME = `${'a'.repeat(63)}b`;
const STARS = `${'*'.repeat(25)}x`;

/** A tree of small files in a share's folder whose copy takes seconds: 20,000 on posix (copied on threads), 9,000 in memory (at most 10,000 a tree). */
const manyFiles = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`/projects/shared/src/f${String(i).padStart(5, '0')}.txt`, `file ${i}`]));

/** Findings of the fourth security review (storage paths and task isolation), each kept fixed on every database and storage. */
describe.each(TASK_CASES)('security review four, storage and tasks, on $name', ({ backend, storage }) => {
  let world: TaskApi;

  beforeEach(async () => {
    world = await startTaskApi(backend, storage, { [`/data/${LONG_NAME}`]: 'x', '/data/a.txt': 'alpha' });
  });
  afterEach(() => world.close());

  const submit = async (body: Record<string, unknown>, token = world.alice) => {
    const res = await world.api.as(token).post('/transfer', { submission_id: await world.submissionId(token), source_endpoint: world.lab, destination_endpoint: world.archive, ...body });
    return res;
  };
  const nonQueued = (token: string, taskId: string) => world.until(token, taskId, (task) => task.nice_status !== null && task.nice_status !== 'Queued');
  it('F1: an ls filter of many stars answers at once, and other requests with it', async () => {
    const [listed, other] = await Promise.all([world.api.as(world.alice).get(`/operation/endpoint/${world.lab}/ls?path=/data/&filter=name:~${encodeURIComponent(STARS)}`), world.api.as(world.alice).get(`/endpoint/${world.lab}`)]);
    expect([listed.status, listed.body.DATA, other.status]).toEqual([200, [], 200]);
    const matching = await world.api.as(world.alice).get(`/operation/endpoint/${world.lab}/ls?path=/data/&filter=name:~${encodeURIComponent(`${'*a'.repeat(20)}*b`)}`);
    expect(matching.body.DATA.map((f: { name: string }) => f.name)).toEqual([LONG_NAME]);
    const tooLong = await world.api.as(world.alice).get(`/operation/endpoint/${world.lab}/ls?path=/data/&filter=name:~${'*'.repeat(1025)}`);
    expect([tooLong.status, tooLong.body.message]).toEqual([400, expect.stringContaining('a pattern of at most 1024 characters')]);
  });

  it("F2: a transfer's filter rule of many stars runs while the API answers", async () => {
    const task = (await submit({ filter_rules: [{ DATA_TYPE: 'filter_rule', method: 'exclude', name: STARS }], DATA: [{ source_path: '/data/', destination_path: '/copy/', recursive: true }] })).body;
    expect(await world.finished(world.alice, task.task_id)).toMatchObject({ status: 'SUCCEEDED', files_transferred: 2 });
    const refused = await submit({ filter_rules: [{ method: 'exclude', name: '*'.repeat(1025) }], DATA: [{ source_path: '/data/', destination_path: '/copy/', recursive: true }] });
    expect([refused.status, refused.body.message]).toEqual([400, expect.stringContaining('Invalid filter_rules[0].name')]);
  });

  it('F5: a copy into its own subfolder is refused at submit, fails at once where only the run can tell (a home path, a share of the same storage), and never grows without end', async () => {
    const refused = await submit({ destination_endpoint: world.lab, DATA: [{ source_path: '/data/', destination_path: '/data/inner/', recursive: true }] });
    expect([refused.status, refused.body.message]).toEqual([400, 'Invalid DATA[0].destination_path: inside its source_path on the same endpoint (a directory cannot be copied into itself)']);
    const absent = await submit({ destination_endpoint: world.lab, DATA: [{ source_path: '/data/./', destination_path: '/data/x/../inner', DATA_TYPE: 'transfer_item' }] });
    expect(absent.status).toBe(400);
    // the same folder, or a file beside it: no loop
    expect((await submit({ destination_endpoint: world.lab, DATA: [{ source_path: '/data/a.txt', destination_path: '/data/b.txt' }] })).status).toBe(202);
    for (const path of ['/home', '/home/alice']) await world.api.as(world.alice).post(`/operation/endpoint/${world.lab}/mkdir`, { DATA_TYPE: 'mkdir', path });
    const home = (await submit({ destination_endpoint: world.lab, DATA: [{ source_path: '/~/', destination_path: '/~/inner/', recursive: true }] })).body;
    expect(await world.finished(world.alice, home.task_id)).toMatchObject({ status: 'FAILED', fatal_error: { code: 'INVALID_PATH' } });
    // through a share of the same storage the endpoints differ: the depth bound ends it
    await world.api.world.subscriptionFor('alice');
    expect((await world.api.as(world.alice).put(`/endpoint/${world.lab}`, { subscription_id: 'DEFAULT' })).status).toBe(200);
    const share = (await world.api.as(world.alice).post('/shared_endpoint', { display_name: 'Data', host_endpoint: world.lab, host_path: '/data/' })).body.id as string;
    const looping = (await submit({ destination_endpoint: share, DATA: [{ source_path: '/data/', destination_path: '/inner/', recursive: true }] })).body;
    const ended = await world.until(world.alice, looping.task_id, (task) => task.status !== 'ACTIVE');
    expect(ended).toMatchObject({ status: 'FAILED', fatal_error: { code: 'INVALID_PATH', description: expect.stringContaining('deeper than 256 levels') } });
    expect((await world.api.as(world.alice).get(`/endpoint/${world.lab}`)).status).toBe(200);
  });

  it("F8: a share's administrator cannot move a share in its owner's home to another home by its owner_string", async () => {
    for (const path of ['/home', '/home/alice', '/home/alice/shared', '/home/bob', '/home/bob/shared']) await world.api.as(world.alice).post(`/operation/endpoint/${world.lab}/mkdir`, { DATA_TYPE: 'mkdir', path });
    await world.api.world.subscriptionFor('alice');
    expect((await world.api.as(world.alice).put(`/endpoint/${world.lab}`, { subscription_id: 'DEFAULT' })).status).toBe(200);
    const share = (await world.api.as(world.alice).post('/shared_endpoint', { display_name: 'Home share', host_endpoint: world.lab, host_path: '/~/shared/' })).body.id as string;
    const bobId = (await world.api.world.services.admin.identities.listIdentities()).find((i) => i.username === 'bob')!.id;
    expect((await world.api.as(world.alice).post(`/endpoint/${share}/role`, { DATA_TYPE: 'role', principal_type: 'identity', principal: bobId, role: 'administrator' })).status).toBe(201);
    const moved = await world.api.as(world.bob).put(`/endpoint/${share}`, { owner_string: 'bob' });
    expect([moved.status, moved.body.code, moved.body.message]).toEqual([400, 'BadRequest', "Invalid owner_string: this share's host_path is in its owner's home (/~/shared/); another owner would move it to another home"]);
    expect((await world.api.as(world.bob).get(`/endpoint/${share}`)).body.owner_string).toBe('alice');
    // the owner_string sent back as read, with other changes, is no move
    expect((await world.api.as(world.bob).put(`/endpoint/${share}`, { owner_string: 'alice', description: 'ours' })).status).toBe(200);
    await world.api.as(world.alice).post(`/operation/endpoint/${share}/mkdir`, { DATA_TYPE: 'mkdir', path: '/mine' });
    expect((await world.api.as(world.alice).get(`/operation/endpoint/${world.lab}/ls?path=/home/alice/shared/`)).body.DATA.map((f: { name: string }) => f.name)).toEqual(['mine']);
  });

  it("F3: at most 100 unfinished tasks of a type a user (the hosted 409 LimitExceeded on the 101st), deadlines at most 30 days away, and another user's task runs however many of one user's wait", async () => {
    const submitTo = async (kind: 'transfer' | 'delete', body: Record<string, unknown>) => world.api.as(world.alice).post(`/${kind}`, { submission_id: await world.submissionId(world.alice), ...body });
    const waiting = { source_endpoint: world.lab, destination_endpoint: world.archive, deadline: '2999-01-01T00:00:00+00:00', DATA: [{ source_path: '/data/missing.txt', destination_path: '/in/m.txt' }] };
    const far = await submitTo('transfer', waiting);
    expect([far.status, far.body.message]).toEqual([400, 'Invalid deadline: at most 30 days from now']);
    const soon = new Date(Date.now() + 29 * 24 * 60 * 60 * 1000).toISOString();
    // submitted with the workers paused, then all waiting (each tried again every 0.1 s here)
    await world.workers.pause();
    for (let i = 0; i < 100; i += 1) {
      // each to a place of its own: the same paths twice while unfinished are a Conflict
      expect((await submitTo('transfer', { ...waiting, deadline: soon, DATA: [{ source_path: '/data/missing.txt', destination_path: `/in/m-${i}.txt` }] })).status).toBe(202);
      expect((await submitTo('delete', { endpoint: world.lab, DATA: [{ path: `/data/missing-${i}` }] })).status).toBe(202);
    }
    const over = await submitTo('transfer', { ...waiting, deadline: soon });
    expect([over.status, over.body.code, over.body.message]).toEqual([409, 'LimitExceeded', 'At most 100 unfinished transfer tasks a user: 100 are queued or running; wait for some to end or cancel them']);
    const first = (await world.api.as(world.alice).get('/task_list?limit=1&orderby=request_time ASC')).body.DATA[0].task_id as string;
    const moved = await world.api.as(world.alice).put(`/task/${first}`, { deadline: '2999-01-01T00:00:00+00:00' });
    expect([moved.status, moved.body.message]).toEqual([400, 'Invalid deadline: at most 30 days from now']);
    // alice's waiting tasks come first in the queue: bob's runs all the same
    const bobs = (await world.api.as(world.bob).post('/endpoint', { display_name: 'Bob', DATA: [{ hostname: 'b.example.org' }] })).body.id as string;
    await world.api.world.services.admin.endpoints.setStorage(bobs, { type: 'memory' });
    await world.api.as(world.bob).post(`/operation/endpoint/${bobs}/mkdir`, { DATA_TYPE: 'mkdir', path: '/src' });
    const bobTask = (await world.api.as(world.bob).post('/transfer', { submission_id: await world.submissionId(world.bob), source_endpoint: bobs, destination_endpoint: bobs, DATA: [{ source_path: '/src/', destination_path: '/dst/', recursive: true }] })).body.task_id as string;
    world.workers.resume();
    expect(await world.finished(world.bob, bobTask)).toMatchObject({ status: 'SUCCEEDED' });
  });

  it("item 4, F10: skipped errors, events and error documents name the endpoint's paths, never the server's", async () => {
    const skipping = (await submit({ skip_source_errors: true, DATA: [{ source_path: '/data/nope.txt', destination_path: '/in/nope.txt' }, { source_path: '/data/a.txt', destination_path: '/in/a.txt' }] })).body;
    await world.finished(world.alice, skipping.task_id);
    const skipped = (await world.api.as(world.alice).get(`/task/${skipping.task_id}/skipped_errors`)).body.DATA[0];
    expect(skipped).toMatchObject({ source_path: '/data/nope.txt', error_code: 'FILE_NOT_FOUND', error_details: 'ENOENT: no such file or directory' });
    const waiting = (await submit({ DATA: [{ source_path: '/data/later.txt', destination_path: '/in/later.txt' }] })).body;
    await nonQueued(world.alice, waiting.task_id);
    const events = (await world.api.as(world.alice).get(`/task/${waiting.task_id}/event_list?filter=is_error:1`)).body.DATA;
    expect(events[0]).toMatchObject({ code: 'FILE_NOT_FOUND', details: '/data/later.txt: ENOENT: no such file or directory' });
    const statMissing = await world.api.as(world.alice).get(`/operation/endpoint/${world.lab}/stat?path=/data/none`);
    const everything = JSON.stringify([skipped, events, statMissing.body, (await world.api.as(world.alice).get(`/task/${waiting.task_id}`)).body]);
    const root = world.rootOf(world.lab);
    if (root !== null) expect(everything).not.toContain(root);
    expect(everything).not.toMatch(/lstat|realpath|open '/);
    await world.api.as(world.alice).post(`/task/${waiting.task_id}/cancel`, {});
  });
});

describe.each(BACKENDS)('security review four, links in shares, on $name', (backend) => {
  let world: TaskApi;
  let bobId: string;
  beforeEach(async () => {
    world = await startTaskApi(backend, 'posix', { '/projects/a/inside.txt': 'in', '/projects/ab/secret-ab.txt': 'secret' });
    bobId = (await world.api.world.services.admin.identities.listIdentities()).find((i) => i.username === 'bob')!.id;
  });
  afterEach(() => world.close());
  const nonQueued = (token: string, taskId: string) => world.until(token, taskId, (task) => task.nice_status !== null && task.nice_status !== 'Queued');

  /** A share of Lab (made a managed endpoint first), as its owner alice makes it. */
  const shareOf = async (hostPath: string, name: string) => {
    await world.api.world.subscriptionFor('alice');
    expect((await world.api.as(world.alice).put(`/endpoint/${world.lab}`, { subscription_id: 'DEFAULT' })).status).toBe(200);
    const made = await world.api.as(world.alice).post('/shared_endpoint', { display_name: name, host_endpoint: world.lab, host_path: hostPath });
    expect(made.status).toBe(201);
    return made.body.id as string;
  };

  it("F4, F10: a share's host_path is a boundary like a root: a link inside it leads nowhere above it, and its messages name the share's paths", async () => {
    const share = await shareOf('/projects/a/', 'Project A');
    expect((await world.api.as(world.alice).post(`/endpoint/${share}/access`, { DATA_TYPE: 'access', principal_type: 'identity', principal: bobId, path: '/', permissions: 'rw' })).status).toBe(201);
    const root = world.rootOf(world.lab)!;
    symlinkSync('../ab', `${root}/projects/a/link-ab`);
    const listed = await world.api.as(world.bob).get(`/operation/endpoint/${share}/ls?path=/`);
    expect(listed.status).toBe(200);
    expect(listed.body.DATA.find((f: { name: string }) => f.name === 'link-ab')).toMatchObject({ type: 'invalid_symlink' });
    const through = await world.api.as(world.bob).get(`/operation/endpoint/${share}/ls?path=/link-ab/`);
    expect(through.status).toBe(403);
    expect(JSON.stringify(through.body)).not.toContain('/projects/');
    const bobs = (await world.api.as(world.bob).post('/endpoint', { display_name: 'Bob', DATA: [{ hostname: 'b.example.org' }] })).body.id as string;
    await world.api.world.services.admin.endpoints.setStorage(bobs, { type: 'memory' });
    const reading = (await world.api.as(world.bob).post('/transfer', { submission_id: await world.submissionId(world.bob), source_endpoint: share, destination_endpoint: bobs, DATA: [{ source_path: '/link-ab/secret-ab.txt', destination_path: '/stolen.txt' }] })).body;
    const task = await nonQueued(world.bob, reading.task_id);
    expect(task.nice_status).toBe('PERMISSION_DENIED');
    expect(world.api.runtime.storages.treeOf(bobs).files()['/stolen.txt']).toBeUndefined();
    const events = JSON.stringify((await world.api.as(world.bob).get(`/task/${reading.task_id}/event_list`)).body);
    expect(events).not.toContain('/projects/');
    expect(events).not.toContain(root);
    await world.api.as(world.bob).post(`/task/${reading.task_id}/cancel`, {});
    // a read-write grantee writes and deletes inside the share only
    const writing = (await world.api.as(world.bob).post('/transfer', { submission_id: await world.submissionId(world.bob), source_endpoint: share, destination_endpoint: share, DATA: [{ source_path: '/inside.txt', destination_path: '/link-ab/planted.txt' }] })).body;
    expect((await nonQueued(world.bob, writing.task_id)).nice_status).toBe('PERMISSION_DENIED');
    await world.api.as(world.bob).post(`/task/${writing.task_id}/cancel`, {});
    const deleting = (await world.api.as(world.bob).post('/delete', { submission_id: await world.submissionId(world.bob), endpoint: share, DATA: [{ path: '/link-ab/secret-ab.txt' }] })).body;
    expect((await nonQueued(world.bob, deleting.task_id)).status).toBe('ACTIVE');
    await world.api.as(world.bob).post(`/task/${deleting.task_id}/cancel`, {});
    expect(world.content(world.lab, '/projects/ab/secret-ab.txt')).toBe('secret');
    expect(world.content(world.lab, '/projects/ab/planted.txt')).toBeNull();
  });

  it('F9: a name longer than the filesystem takes is 400 InvalidPath, never a 500', async () => {
    const long = 'n'.repeat(300);
    for (const res of [
      await world.api.as(world.alice).get(`/operation/endpoint/${world.lab}/stat?path=/projects/${long}`),
      await world.api.as(world.alice).get(`/operation/endpoint/${world.lab}/ls?path=/projects/${long}/`),
      await world.api.as(world.alice).post(`/operation/endpoint/${world.lab}/mkdir`, { DATA_TYPE: 'mkdir', path: `/projects/${long}` }),
      await world.api.as(world.alice).post(`/operation/endpoint/${world.lab}/rename`, { DATA_TYPE: 'rename', old_path: '/projects/a/inside.txt', new_path: `/projects/${long}` }),
    ]) {
      expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({ status: 400, code: 'InvalidPath', message: expect.stringContaining('a name in it is longer than the storage takes (ENAMETOOLONG: file name too long)') });
    }
  });

  it('F6, F7: a FIFO is never opened to wait for a writer: named as an item or met in a tree it is a skipped error, and the task ends', async () => {
    const root = world.rootOf(world.lab)!;
    mkdirSync(`${root}/pipes`);
    writeFileSync(`${root}/pipes/real.txt`, 'real');
    for (const name of ['p1', 'p2', 'p3', 'p4', 'p5']) execFileSync('mkfifo', [`${root}/pipes/${name}`]);
    const submitted = async (body: Record<string, unknown>) => (await world.api.as(world.alice).post('/transfer', { submission_id: await world.submissionId(world.alice), source_endpoint: world.lab, destination_endpoint: world.archive, ...body })).body as { task_id: string };
    // more FIFOs than libuv's pool has threads, named one by one
    const single = await submitted({ DATA: ['p1', 'p2', 'p3', 'p4', 'p5'].map((name) => ({ source_path: `/pipes/${name}`, destination_path: `/out/${name}` })) });
    expect(await world.finished(world.alice, single.task_id)).toMatchObject({ status: 'SUCCEEDED', subtasks_skipped_errors: 5, files_transferred: 0 });
    const skipped = (await world.api.as(world.alice).get(`/task/${single.task_id}/skipped_errors`)).body.DATA;
    expect(skipped[0]).toMatchObject({ source_path: '/pipes/p1', error_code: 'SPECIAL_FILE', error_details: 'not a regular file (a FIFO, a socket or a device)' });
    for (const verify of [false, true]) {
      const tree = await submitted({ verify_checksum: verify, DATA: [{ source_path: '/pipes/', destination_path: `/tree-${verify}/`, recursive: true }] });
      expect(await world.finished(world.alice, tree.task_id)).toMatchObject({ status: 'SUCCEEDED', files_transferred: 1, subtasks_skipped_errors: 5 });
      expect(world.content(world.archive, `/tree-${verify}/real.txt`)).toBe('real');
    }
    // the files of everyone else go on meanwhile
    expect((await world.api.as(world.alice).get(`/operation/endpoint/${world.lab}/ls?path=/pipes/`)).body.DATA).toHaveLength(6);
  });

  it("F4: a share whose host_path is (or becomes) a link out of its host's storage shows nothing", async () => {
    const root = world.rootOf(world.lab)!;
    const outside = `${root}/../outside-${world.lab}`;
    mkdirSync(outside);
    writeFileSync(`${outside}/secret.txt`, 'secret');
    symlinkSync(outside, `${root}/projects/out`);
    const share = await shareOf('/projects/out/', 'Out');
    const listed = await world.api.as(world.alice).get(`/operation/endpoint/${share}/ls?path=/`);
    expect(listed.status).toBe(403);
    expect(JSON.stringify(listed.body)).not.toContain('secret.txt');
  });
});

describe.each(TASK_CASES)('security review four, a revoked rule, on $name', ({ backend, storage }) => {
  let world: TaskApi;
  const count = storage === 'posix' ? 20_000 : 9_000;
  beforeEach(async () => {
    world = await startTaskApi(backend, storage, manyFiles(count));
  });
  afterEach(() => world.close());

  it("F11: a grantee's access rule revoked while their copy of a large tree runs stops it within seconds", async () => {
    await world.api.world.subscriptionFor('alice');
    expect((await world.api.as(world.alice).put(`/endpoint/${world.lab}`, { subscription_id: 'DEFAULT' })).status).toBe(200);
    const share = (await world.api.as(world.alice).post('/shared_endpoint', { display_name: 'Shared', host_endpoint: world.lab, host_path: '/projects/shared/' })).body.id as string;
    const bobId = (await world.api.world.services.admin.identities.listIdentities()).find((i) => i.username === 'bob')!.id;
    const rule = (await world.api.as(world.alice).post(`/endpoint/${share}/access`, { DATA_TYPE: 'access', principal_type: 'identity', principal: bobId, path: '/', permissions: 'rw' })).body.access_id as string;
    const copy = (await world.api.as(world.bob).post('/transfer', { submission_id: await world.submissionId(world.bob), source_endpoint: share, destination_endpoint: share, DATA: [{ source_path: '/src/', destination_path: '/dst/', recursive: true }] })).body.task_id as string;
    await world.until(world.bob, copy, (task) => Number(task.files_transferred) > 0 || task.status !== 'ACTIVE');
    expect((await world.api.as(world.alice).delete(`/endpoint/${share}/access/${rule}`)).status).toBe(200);
    const revokedAt = Date.now();
    const stopped = await world.until(world.bob, copy, (task) => task.nice_status === 'PERMISSION_DENIED' || task.status !== 'ACTIVE');
    expect(stopped).toMatchObject({ status: 'ACTIVE', nice_status: 'PERMISSION_DENIED' });
    expect(Date.now() - revokedAt).toBeLessThan(5000);
    const copied = world.content(world.lab, `/projects/shared/dst/f${String(count - 1).padStart(5, '0')}.txt`);
    expect(copied).toBeNull();
    await world.api.as(world.bob).post(`/task/${copy}/cancel`, {});
  });
});
