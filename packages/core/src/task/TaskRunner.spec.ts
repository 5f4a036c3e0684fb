import { createHash } from 'node:crypto';
import type { Principal } from '../auth/Principal';
import { InMemoryUnitOfWork } from '../testing/InMemoryUnitOfWork';
import { MemoryStorage } from '../testing/MemoryStorage';
import { TestWorld } from '../testing/TestWorld';
import { directoryOf } from '../testing/rootedAt';
import { NO_FEATURES, type BatchCopy, type DirectoryCopyOptions, type DirectoryFileCopy, type KernelCopy, type StorageDirectory } from '../storage/Storage';
import type { TaskState } from './Task';
import type { TaskRepository } from './TaskRepository';
import { TaskRunner } from './TaskRunner';
import { ALL_PAUSED } from '../pause-rule/PauseRule';
import { StorageError } from '../storage/Storage';
import { TaskService } from './TaskService';
import type { DeleteOptions, TransferOptions } from './TaskRequest';
import { deleteRequest, transferRequest } from '../testing/taskRequests';
import { gatheredCopies } from '../testing/gathered';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** One host's faster paths, as test doubles: a copy does what the test says. */
const HOST = {};
function kernelCopy(copyFile: KernelCopy['copyFile'] = () => Promise.reject(new Error('not the destination'))): KernelCopy {
  const ability: KernelCopy = { host: HOST, copyFile, guarded: () => ability };
  return ability;
}
// eslint-disable-next-line require-yield
function batchCopy(copyFiles: BatchCopy['copyFiles'] = () => (async function* () { throw new Error('not the destination'); })()): BatchCopy {
  const ability: BatchCopy = { host: HOST, copyFiles, guarded: () => ability };
  return ability;
}
/** A batch copy's call that answers its outcomes whole, once (as the copy threads do). */
type WholeAnswer = (...args: Parameters<BatchCopy['copyFiles']>) => Promise<readonly DirectoryFileCopy[]>;
const answeringWhole = (answer: WholeAnswer): BatchCopy['copyFiles'] => (...args) => (async function* () { yield await answer(...args); })();


describe('running transfer and delete tasks through the storage port', () => {
  let world: TestWorld;
  let store: TaskRepository;
  let tasks: TaskService;
  let runner: TaskRunner;
  let lab: MemoryStorage;
  let archive: MemoryStorage;
  let alice: Principal;
  let bob: Principal;
  let source: string;
  let destination: string;

  beforeEach(async () => {
    const T0 = new Date('2026-01-01T00:00:00Z');
    lab = new MemoryStorage({ '/data/run1.csv': 't,v\n0,1\n', '/data/run2.csv': 'xx', '/data/tmp/scratch.tmp': 'junk', '/data/sub/deep.txt': 'deep', '/data/empty/': null }, () => T0);
    archive = new MemoryStorage({ '/in/': null }, () => new Date('2026-06-01T00:00:00Z'));
    const byEndpoint = new Map<string, MemoryStorage>();
    const storages: StorageDirectory = directoryOf((id) => byEndpoint.get(id) ?? null);
    world = new TestWorld(new InMemoryUnitOfWork(), { storages });
    [alice, bob] = await world.principals('alice@example.org', 'bob@example.org');
    await world.subscriptionFor('alice@example.org');
    source = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Lab', subscription_id: 'DEFAULT' })).id;
    destination = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Archive', subscription_id: 'DEFAULT' })).id;
    byEndpoint.set(source, lab);
    byEndpoint.set(destination, archive);
        tasks = new TaskService(world.uow, world.clock, world.ids);
    store = world.uow.repositories.tasks;
    runner = new TaskRunner(world.uow, world.services.files, (id) => world.services.authentication.principalOf(id), world.clock);
  });

  const transfer = async (items: Parameters<typeof transferRequest>[0]['items'], options: Partial<TransferOptions> = {}, who = alice, from = source, to = destination) =>
    (await tasks.submit(who, transferRequest({ submission_id: tasks.submissionId(), source_endpoint: from, destination_endpoint: to, items, options }))).task;
  const run = async (task: TaskState) => (await runner.run(task.id))!;
  const codes = async (task: TaskState) => (await store.listEvents(task.id, { errorsOnly: false, limit: 100, offset: 0 })).events.map((e) => e.code).reverse();

  it('copies a file and a folder with everything in it, and counts what it did', async () => {
    const task = await transfer([
      { source_path: '/data/run1.csv', destination_path: '/in/first.csv' },
      { source_path: '/data/sub/', destination_path: '/in/sub/', recursive: true },
    ]);
    const done = await run(task);
    expect(done).toMatchObject({ status: 'SUCCEEDED', niceStatus: null, fatalError: null, completionTime: world.clock.now() });
    expect(done.counters).toMatchObject({ files: 2, directories: 1, filesTransferred: 2, bytesTransferred: 12, bytesChecksummed: 0, subtasksTotal: 2, subtasksSucceeded: 2, subtasksPending: 0, faults: 0 });
    expect(archive.text('/in/first.csv')).toBe('t,v\n0,1\n');
    expect(archive.text('/in/sub/deep.txt')).toBe('deep');
    expect((await store.listFiles(task.id, 'succeeded', 0, 10)).map((f) => [f.sourcePath, f.destinationPath])).toEqual([
      ['/data/run1.csv', '/in/first.csv'],
      ['/data/sub/deep.txt', '/in/sub/deep.txt'],
    ]);
    expect(await codes(task)).toEqual(['SUBMITTED', 'STARTED', 'SUCCEEDED']);
    // the original's times stay theirs unless asked
    expect(archive.nodes.get('/in/first.csv')?.lastModified).toEqual(new Date('2026-06-01T00:00:00Z'));
    expect(await runner.run(task.id)).toEqual(done);
    expect(await runner.run('00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  it('lets the source decide whether an item is recursive, and refuses the wrong kind when told', async () => {
    expect((await run(await transfer([{ source_path: '/data/', destination_path: '/in/data/' }]))).counters).toMatchObject({ files: 4, directories: 4 });
    expect(archive.text('/in/data/tmp/scratch.tmp')).toBe('junk');
    expect(archive.nodes.get('/in/data/empty')?.content).toBeNull();
    const folderAsFile = await run(await transfer([{ source_path: '/data/sub', destination_path: '/in/x', recursive: false }]));
    expect([folderAsFile.status, folderAsFile.niceStatus]).toEqual(['ACTIVE', 'IS_A_DIRECTORY']);
    const fileAsFolder = await run(await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/y/', recursive: true }]));
    expect([fileAsFolder.status, fileAsFolder.niceStatus]).toEqual(['ACTIVE', 'NOT_A_DIRECTORY']);
  });

  it('follows filter rules, and deletes extras at the destination only when asked', async () => {
    archive.put('/in/data/old.txt', 'stale');
    const task = await transfer([{ source_path: '/data/', destination_path: '/in/data/', recursive: true }], {
      filter_rules: [{ method: 'exclude', name: '*.tmp', type: 'file' }, { method: 'exclude', name: 'sub', type: 'dir' }],
      delete_destination_extra: true,
    });
    const done = await run(task);
    expect(done.status).toBe('SUCCEEDED');
    expect([...archive.nodes.keys()].filter((k) => k.startsWith('/in/data/')).sort()).toEqual(['/in/data/empty', '/in/data/run1.csv', '/in/data/run2.csv', '/in/data/tmp']);
    archive.put('/in/keep/old.txt', 'stale');
    await run(await transfer([{ source_path: '/data/sub/', destination_path: '/in/keep/', recursive: true }]));
    expect(archive.text('/in/keep/old.txt')).toBe('stale');
  });

  describe('a storage that names what is no name (zip-slip: a hostile data node)', () => {
    /** `storage` lists `name` in `dir` besides its own entries, as a file of 4 bytes that reads 'evil'. */
    const listsAlso = (storage: MemoryStorage, dir: string, name: string) => {
      const [names, entries, read] = [storage.names.bind(storage), storage.entries.bind(storage), storage.read.bind(storage)];
      storage.names = async function* (path) {
        for await (const batch of names(path)) yield path === dir ? [...batch, name] : batch;
      };
      storage.entries = async (at, asked) => (await entries(at, asked)).map((entry, i) => entry ?? (at === dir && asked[i] === name ? { name, type: 'file', size: 4, lastModified: new Date(0), permissions: 0o644, user: null, group: null, link: null } : null));
      storage.read = (path, options) => (path.startsWith(`${dir}/`) && path.slice(dir.length + 1) === name ? (async function* () { yield Buffer.from('evil'); })() : read(path, options));
    };
    const submitDelete = async (paths: string[], options: Partial<DeleteOptions> = {}) =>
      (await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: source, paths, options }))).task;
    const outside = () => [...archive.nodes.keys()].filter((key) => key.includes('..') || !(key === '/' || key === '/in' || key.startsWith('/in/copy')));

    it.each(['..', '../x', '../../etc/evil', 'a/b', '.', ''])('fails a tree copy whose source lists %j: nothing written outside the destination', async (name) => {
      listsAlso(lab, '/data/sub', name);
      const done = await run(await transfer([{ source_path: '/data/sub/', destination_path: '/in/copy/', recursive: true }]));
      expect(done).toMatchObject({ status: 'FAILED', fatalError: { code: 'INVALID_PATH', description: expect.stringContaining('which is no file\'s name') } });
      expect(outside()).toEqual([]);
      expect(await codes(done)).toContain('FAILED');
    });

    it("fails where the destination lists such a name to delete as an extra, and a delete whose tree lists one: nothing outside removed", async () => {
      archive.put('/in/copy/old.txt', 'stale');
      listsAlso(archive, '/in/copy', '..');
      const copied = await run(await transfer([{ source_path: '/data/sub/', destination_path: '/in/copy/', recursive: true }], { delete_destination_extra: true }));
      expect(copied).toMatchObject({ status: 'FAILED', fatalError: { code: 'INVALID_PATH' } });
      expect(archive.nodes.has('/in')).toBe(true);
      listsAlso(lab, '/data/sub', '../run1.csv');
      const deleted = await run(await submitDelete(['/data/sub'], { recursive: true }));
      expect(deleted).toMatchObject({ status: 'FAILED', fatalError: { code: 'INVALID_PATH' } });
      expect(lab.text('/data/run1.csv')).toBe('t,v\n0,1\n');
    });

    it("keeps a reader of a share with a narrow rule within the rule's path whatever its source lists", async () => {
      const share = (await world.services.endpoints.createSharedEndpoint(alice, { display_name: 'Archive share', host_endpoint_id: destination, host_path: '/in/' })).id;
      await world.services.accessRules.add(alice, share, { principal_type: 'identity', principal: bob.primary.id, path: '/copy/', permissions: 'rw' });
      await world.services.admin.endpoints.grantRole(source, 'administrator', 'bob@example.org');
      listsAlso(lab, '/data/sub', '../../elsewhere.txt');
      const done = await run(await transfer([{ source_path: '/data/sub/', destination_path: '/copy/', recursive: true }], {}, bob, source, share));
      expect(done).toMatchObject({ status: 'FAILED', fatalError: { code: 'INVALID_PATH' } });
      expect(outside()).toEqual([]);
    });
  });

  it('skips what the sync level finds already there', async () => {
    archive.put('/in/run1.csv', 'different', new Date('2027-01-01T00:00:00Z'));
    archive.put('/in/run2.csv', 'xx', new Date('2025-01-01T00:00:00Z'));
    const items = [{ source_path: '/data/run1.csv', destination_path: '/in/run1.csv' }, { source_path: '/data/run2.csv', destination_path: '/in/run2.csv' }];
    const exists = await run(await transfer(items, { sync_level: 0 }));
    expect(exists.counters).toMatchObject({ files: 2, filesSkipped: 2, filesTransferred: 0 });
    const size = await run(await transfer(items, { sync_level: 1 }));
    expect(size.counters).toMatchObject({ filesSkipped: 1, filesTransferred: 1 });
    expect(archive.text('/in/run1.csv')).toBe('t,v\n0,1\n');
    // run2 has the same size but is older at the destination: mtime copies it; checksum sees the same bytes
    expect((await run(await transfer(items, { sync_level: 3 }))).counters).toMatchObject({ filesSkipped: 2 });
    archive.put('/in/run2.csv', 'xx', new Date('2025-01-01T00:00:00Z'));
    expect((await run(await transfer(items, { sync_level: 2 }))).counters).toMatchObject({ filesSkipped: 1, filesTransferred: 1 });
    archive.put('/in/run2.csv', 'yy');
    expect((await run(await transfer(items, { sync_level: 3 }))).counters).toMatchObject({ filesSkipped: 1, filesTransferred: 1 });
    expect(archive.text('/in/run2.csv')).toBe('xx');
  });

  it('keeps times when asked, verifies checksums when asked, and waits out a mismatch', async () => {
    const kept = await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/run2.csv' }], { preserve_timestamp: true, verify_checksum: true }));
    expect(kept.counters).toMatchObject({ bytesChecksummed: 2, filesTransferred: 1 });
    expect(archive.nodes.get('/in/run2.csv')?.lastModified).toEqual(new Date('2026-01-01T00:00:00Z'));
    const good = await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/ok.csv', external_checksum: md5('xx') }]));
    expect(good.status).toBe('SUCCEEDED');
    // F7: a copy whose digest differs never takes its name: the file there stays as it was
    archive.put('/in/bad.csv', 'previous');
    const bad = await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/bad.csv', external_checksum: md5('yy') }]));
    expect(bad).toMatchObject({ status: 'ACTIVE', niceStatus: 'CHECKSUM_MISMATCH' });
    expect(bad.counters.faults).toBe(1);
    expect(archive.text('/in/bad.csv')).toBe('previous');
    const errors = await store.listEvents(bad.id, { errorsOnly: true, limit: 10, offset: 0 });
    expect(errors.events[0]).toMatchObject({ code: 'CHECKSUM_MISMATCH', isError: true, details: expect.stringContaining(`expected ${md5('yy')}`) });
    const sha = await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/sha.csv', external_checksum: createHash('sha256').update('xx').digest('hex') }]));
    expect(sha.status).toBe('SUCCEEDED');
  });

  it('skips a missing or unreadable source when told, else retries it until the deadline', async () => {
    lab.faults.set('/data/run2.csv', 'denied');
    const skipping = await run(await transfer([{ source_path: '/data/gone.csv', destination_path: '/in/gone.csv' }, { source_path: '/data/', destination_path: '/in/all/' }], { skip_source_errors: true }));
    expect(skipping.status).toBe('SUCCEEDED');
    expect(skipping.counters.subtasksSkippedErrors).toBe(2);
    expect((await store.listFiles(skipping.id, 'skipped', 0, 10)).map((f) => [f.sourcePath, f.errorCode])).toEqual([
      ['/data/gone.csv', 'FILE_NOT_FOUND'],
      ['/data/run2.csv', 'PERMISSION_DENIED'],
    ]);
    expect(await store.listFiles(skipping.id, 'skipped', 1, 10)).toHaveLength(1);
    const waiting = await run(await transfer([{ source_path: '/data/gone.csv', destination_path: '/in/gone.csv' }]));
    expect(waiting).toMatchObject({ status: 'ACTIVE', niceStatus: 'FILE_NOT_FOUND', completionTime: null });
    lab.put('/data/gone.csv', 'back');
    expect((await run(waiting)).status).toBe('SUCCEEDED');
    const late = await transfer([{ source_path: '/data/none.csv', destination_path: '/in/none.csv' }]);
    await run(late);
    world.clock.advance(24 * 60 * 60);
    const ended = await run(late);
    expect(ended).toMatchObject({ status: 'FAILED', fatalError: { code: 'EXPIRED' } });
    expect(ended.counters).toMatchObject({ subtasksExpired: 1, subtasksPending: 0 });
    expect(await codes(late)).toEqual(['SUBMITTED', 'STARTED', 'FILE_NOT_FOUND', 'EXPIRED']);
  });

  it('runs as its owner: no write where the owner may only read, paused where a pause rule says', async () => {
    const share = (await world.services.endpoints.createSharedEndpoint(alice, { display_name: 'Lab share', host_endpoint_id: source, host_path: '/data/' })).id;
    await world.services.accessRules.add(alice, share, { principal_type: 'identity', principal: bob.primary.id, path: '/', permissions: 'r' });
    const refused = await run(await transfer([{ source_path: '/run1.csv', destination_path: '/copy.csv' }], {}, bob, share, share));
    expect(refused).toMatchObject({ status: 'ACTIVE', niceStatus: 'PERMISSION_DENIED' });
    expect(lab.nodes.has('/data/copy.csv')).toBe(false);
    await world.services.accessRules.add(alice, share, { principal_type: 'identity', principal: bob.primary.id, path: '/out/', permissions: 'rw' });
    lab.put('/data/out/', null);
    expect((await run(await transfer([{ source_path: '/run1.csv', destination_path: '/out/copy.csv' }], {}, bob, share, share))).status).toBe('SUCCEEDED');
    expect(lab.text('/data/out/copy.csv')).toBe('t,v\n0,1\n');
    await world.services.admin.endpoints.addPauseRule(destination, { message: 'Disk full' });
    const paused = await run(await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/p.csv' }]));
    expect(paused).toMatchObject({ status: 'ACTIVE', niceStatus: 'PAUSED', isPaused: true });
    expect(archive.nodes.has('/in/p.csv')).toBe(false);
  });

  it('never undoes a cancel that came first', async () => {
    const task = await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/c.csv' }]);
    const canceled = await tasks.cancel(alice, task.id);
    expect(await runner.run(task.id)).toEqual(canceled);
    expect(archive.nodes.has('/in/c.csv')).toBe(false);
  });

  it('tells each attempt in its events: started, then how it ended or what it waits for', async () => {
    const events = async (task: TaskState) => (await store.listEvents(task.id, { errorsOnly: false, limit: 100, offset: 0 })).events.reverse().map(({ code, description, details, isError: isError }) => ({ code, description, details, isError }));
    const done = await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/run2.csv' }]);
    await run(done);
    expect(await events(done)).toEqual([
      { code: 'SUBMITTED', description: 'submitted', details: 'transfer task queued', isError: false },
      { code: 'STARTED', description: 'started', details: 'attempt after 0 fault(s)', isError: false },
      { code: 'SUCCEEDED', description: 'succeeded', details: '1 file(s), 2 bytes', isError: false },
    ]);
    const waiting = await transfer([{ source_path: '/data/none', destination_path: '/in/none' }]);
    const after = await run(waiting);
    expect(after).toMatchObject({ isPaused: false, counters: { faults: 1 } });
    await run(waiting);
    world.clock.advance(2 * 24 * 60 * 60);
    await run(waiting);
    expect(await events(waiting)).toEqual([
      expect.objectContaining({ code: 'SUBMITTED' }),
      { code: 'STARTED', description: 'started', details: 'attempt after 0 fault(s)', isError: false },
      { code: 'FILE_NOT_FOUND', description: 'file not found', details: expect.stringContaining('/data/none'), isError: true },
      { code: 'STARTED', description: 'started', details: 'attempt after 1 fault(s)', isError: false },
      { code: 'FILE_NOT_FOUND', description: 'file not found', details: expect.stringContaining('/data/none'), isError: true },
      { code: 'EXPIRED', description: 'expired', details: 'the deadline passed before the task finished', isError: false },
    ]);
    const folder = await run(await transfer([{ source_path: '/data/sub', destination_path: '/in/x', recursive: false }]));
    expect((await store.listEvents(folder.id, { errorsOnly: true, limit: 1, offset: 0 })).events[0]).toMatchObject({ code: 'IS_A_DIRECTORY', description: 'is a directory', details: '/data/sub is a directory: give the item recursive true' });
    const file = await run(await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/y/', recursive: true }]));
    expect((await store.listEvents(file.id, { errorsOnly: true, limit: 1, offset: 0 })).events[0]).toMatchObject({ details: '/data/run1.csv is a file: a recursive item copies a directory' });
  });

  it('stops where a cancel finds it: after the item, or within a large folder, and copies nothing more', async () => {
    const task = await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/1.csv' }, { source_path: '/data/run2.csv', destination_path: '/in/2.csv' }]);
    const write = archive.write.bind(archive);
    archive.write = async (path, data, options) => {
      const bytes = await write(path, data, options);
      if (path === '/in/1.csv') await tasks.cancel(alice, task.id);
      return bytes;
    };
    const ended = await run(task);
    expect(ended).toMatchObject({ status: 'FAILED', fatalError: { code: 'CANCELED' } });
    expect([archive.nodes.has('/in/1.csv'), archive.nodes.has('/in/2.csv')]).toEqual([true, false]);
    for (let i = 0; i < 250; i += 1) lab.put(`/many/f${String(i).padStart(3, '0')}`, 'x');
    const large = await transfer([{ source_path: '/many/', destination_path: '/in/many/' }]);
    let written = 0;
    archive.write = async (path, data, options) => {
      written += 1;
      if (written === 10) await tasks.cancel(alice, large.id);
      return write(path, data, options);
    };
    expect(await run(large)).toMatchObject({ status: 'FAILED', fatalError: { code: 'CANCELED' } });
    // noticed at the 100th file's progress save; the files taken while it is written (8 at a time) finish
    expect(written).toBeGreaterThanOrEqual(100);
    expect(written).toBeLessThanOrEqual(116);
    expect(await store.listEvents(large.id, { errorsOnly: false, limit: 10, offset: 0 })).toMatchObject({ events: [{ code: 'CANCELED' }, { code: 'STARTED' }, { code: 'SUBMITTED' }] });
    archive.write = write;
    const unsaved = await transfer([{ source_path: '/many/', destination_path: '/in/all/' }]);
    expect((await run(unsaved)).counters).toMatchObject({ files: 250, filesTransferred: 250, subtasksSucceeded: 1, subtasksPending: 0 });
  });

  it('hands a task back when its process stops: queued after the file in hand, done at the next start', async () => {
    const stopping = new AbortController();
    const write = archive.write.bind(archive);
    archive.write = async (path, data, options) => {
      stopping.abort();
      return write(path, data, options);
    };
    const task = await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/1.csv' }, { source_path: '/data/', destination_path: '/in/all/' }]);
    const handed = (await runner.run(task.id, stopping.signal))!;
    expect(handed).toMatchObject({ status: 'ACTIVE', niceStatus: 'Queued', isPaused: false, counters: { faults: 0, filesTransferred: 1, subtasksSucceeded: 0, subtasksPending: 2 } });
    expect(await store.findById(task.id)).toEqual(handed);
    expect([archive.nodes.has('/in/1.csv'), archive.nodes.has('/in/all')]).toEqual([true, false]);
    const folder = await transfer([{ source_path: '/data/', destination_path: '/in/folder/' }]);
    expect((await runner.run(folder.id, stopping.signal))!).toMatchObject({ status: 'ACTIVE', niceStatus: 'Queued', counters: { filesTransferred: 1 } });
    archive.write = write;
    expect((await run(task)).status).toBe('SUCCEEDED');
    expect(archive.text('/in/all/sub/deep.txt')).toBe('deep');
    const deleting = (await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: source, paths: ['/data/run1.csv', '/data/run2.csv'] }))).task;
    expect((await runner.run(deleting.id, AbortSignal.abort()))!).toMatchObject({ status: 'ACTIVE', niceStatus: 'Queued', counters: { subtasksSucceeded: 1 } });
    expect([lab.nodes.has('/data/run1.csv'), lab.nodes.has('/data/run2.csv')]).toEqual([false, true]);
    expect((await store.listEvents(deleting.id, { errorsOnly: true, limit: 10, offset: 0 })).total).toBe(0);
  });

  it('counts an item as it finishes it, and hands back between items too', async () => {
    const task = await transfer([{ source_path: '/data/gone.csv', destination_path: '/in/gone.csv' }, { source_path: '/data/run1.csv', destination_path: '/in/1.csv' }], { skip_source_errors: true });
    expect((await runner.run(task.id, AbortSignal.abort()))!).toMatchObject({ status: 'ACTIVE', niceStatus: 'Queued', counters: { subtasksPending: 1, subtasksSucceeded: 1, subtasksSkippedErrors: 1 } });
    expect(archive.nodes.has('/in/1.csv')).toBe(false);
    const deleting = (await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: source, paths: ['/data/'], options: { recursive: true } }))).task;
    const deleted = await run(deleting);
    expect(deleted.counters).toMatchObject({ files: 4, directories: 4, subtasksPending: 0, subtasksSucceeded: 1 });
    expect([...lab.nodes.keys()]).toEqual(['/']);
  });

  it('says why it will not delete, and ignores only what is missing', async () => {
    const submitDelete = async (paths: string[], options: Partial<DeleteOptions> = {}) =>
      (await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: source, paths, options }))).task;
    const details = async (task: TaskState) => (await store.listEvents(task.id, { errorsOnly: true, limit: 1, offset: 0 })).events[0]?.details;
    const root = await run(await submitDelete(['/'], { recursive: true }));
    expect(await details(root)).toBe("an endpoint's root is never deleted");
    const folder = await run(await submitDelete(['/data/sub']));
    expect(await details(folder)).toBe('/data/sub is a directory: delete it with recursive true');
    lab.faults.set('/data/run2.csv', 'denied');
    expect((await run(await submitDelete(['/data/run2.csv'], { ignore_missing: true }))).niceStatus).toBe('PERMISSION_DENIED');
    expect(lab.nodes.has('/data/run2.csv')).toBe(true);
  });

  it('never follows a link in a recursive item, and deletes a link itself', async () => {
    lab.link('/data/inside-link', '/data/run1.csv');
    lab.link('/data/dir-link', '/data/sub');
    lab.link('/data/dangling', '/nowhere');
    const done = await run(await transfer([{ source_path: '/data/', destination_path: '/in/data/' }]));
    expect(done.counters).toMatchObject({ symlinks: 3, files: 4 });
    expect([...archive.nodes.keys()].filter((k) => k.includes('link') || k.includes('dangling'))).toEqual([]);
    const removed = await run((await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: source, paths: ['/data/dir-link'], options: { recursive: true } }))).task);
    expect(removed.counters).toMatchObject({ files: 1, directories: 0 });
    expect([lab.nodes.has('/data/dir-link'), lab.text('/data/sub/deep.txt')]).toEqual([false, 'deep']);
  });

  it('waits for what it cannot skip: another storage failure, an endpoint without storage; a destination folder where a file goes', async () => {
    lab.faults.set('/data/run2.csv', 'not_directory');
    const other = await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/r.csv' }], { skip_source_errors: true }));
    expect(other).toMatchObject({ status: 'ACTIVE', niceStatus: 'NOT_A_DIRECTORY', isPaused: false });
    const bare = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Bare', subscription_id: 'DEFAULT' })).id;
    expect((await run(await transfer([{ source_path: '/data/run1.csv', destination_path: '/x.csv' }], {}, alice, source, bare))).niceStatus).toBe('ENDPOINT_NOT_CONNECTED');
    archive.put('/in/taken/', null);
    expect((await run(await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/taken' }], { sync_level: 0 }))).niceStatus).toBe('IS_A_DIRECTORY');
    archive.faults.set('/in/fail.csv', 'denied');
    const writeDenied = await run(await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/fail.csv' }], { skip_source_errors: true }));
    expect(writeDenied).toMatchObject({ status: 'ACTIVE', niceStatus: 'PERMISSION_DENIED' });
    expect(await store.listFiles(writeDenied.id, 'skipped', 0, 10)).toEqual([]);
  });

  it('copies by modification time only what is newer at the source', async () => {
    const items = [{ source_path: '/data/run2.csv', destination_path: '/in/run2.csv' }];
    archive.put('/in/run2.csv', 'zz', new Date('2026-01-01T00:00:00Z'));
    expect((await run(await transfer(items, { sync_level: 2 }))).counters).toMatchObject({ filesSkipped: 1 });
    archive.put('/in/run2.csv', 'zz', new Date('2025-12-31T23:59:59Z'));
    expect((await run(await transfer(items, { sync_level: 2 }))).counters).toMatchObject({ filesTransferred: 1 });
    expect(archive.text('/in/run2.csv')).toBe('xx');
  });

  it('records the files it moved and skipped as files, not folders', async () => {
    const task = await run(await transfer([{ source_path: '/data/gone', destination_path: '/in/gone' }, { source_path: '/data/run1.csv', destination_path: '/in/r.csv' }], { skip_source_errors: true }));
    expect((await store.listFiles(task.id, 'succeeded', 0, 10))[0]).toMatchObject({ isDirectory: false, errorCode: null });
    expect((await store.listFiles(task.id, 'skipped', 0, 10))[0]).toMatchObject({ isDirectory: false, destinationPath: null, errorDetails: 'no such file or directory' });
  });

  it('deletes files and folders (folders only when recursive), and ignores what is missing when told', async () => {
    const submitDelete = async (paths: string[], options: Partial<DeleteOptions> = {}) =>
      (await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: source, paths, options }))).task;
    const refused = await run(await submitDelete(['/data/sub/']));
    expect([refused.status, refused.niceStatus]).toEqual(['ACTIVE', 'IS_A_DIRECTORY']);
    const done = await run(await submitDelete(['/data/sub/', '/data/run2.csv'], { recursive: true }));
    expect(done).toMatchObject({ status: 'SUCCEEDED' });
    expect(done.counters).toMatchObject({ files: 2, directories: 1, subtasksSucceeded: 2 });
    expect([...lab.nodes.keys()].filter((k) => k.startsWith('/data/sub') || k === '/data/run2.csv')).toEqual([]);
    // a path that is not there fails the delete at once, as the hosted one does
    expect(await run(await submitDelete(['/data/nothing']))).toMatchObject({ status: 'FAILED', fatalError: { code: 'FILE_NOT_FOUND', description: 'file not found' }, counters: { faults: 1, subtasksFailed: 1 } });
    expect((await run(await submitDelete(['/data/nothing'], { ignore_missing: true }))).status).toBe('SUCCEEDED');
    expect((await run(await submitDelete(['/'], { recursive: true }))).niceStatus).toBe('PERMISSION_DENIED');
    expect(lab.nodes.has('/data/run1.csv')).toBe(true);
  });

  it('lets storages of one host copy between themselves (the time kept when asked), and streams where they are not', async () => {
    const calls: unknown[] = [];
    lab.features = { ...NO_FEATURES, kernelCopy: kernelCopy() };
    archive.features = {
      ...NO_FEATURES,
      kernelCopy: kernelCopy(async (from, path, to, options) => {
        calls.push([from === lab.features.kernelCopy, path, to, options?.lastModified?.toISOString() ?? null]);
        archive.put(to, 'copied in the kernel');
        return 20;
      }),
    };
    const done = await run(await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/k.csv' }, { source_path: '/data/run2.csv', destination_path: '/in/k2.csv' }], { preserve_timestamp: true }));
    expect(done.counters).toMatchObject({ filesTransferred: 2, bytesTransferred: 40 });
    expect(calls).toEqual([
      [true, '/data/run1.csv', '/in/k.csv', '2026-01-01T00:00:00.000Z'],
      [true, '/data/run2.csv', '/in/k2.csv', '2026-01-01T00:00:00.000Z'],
    ]);
    calls.length = 0;
    await run(await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/k3.csv' }]));
    expect(calls).toEqual([[true, '/data/run1.csv', '/in/k3.csv', null]]);
    // another host: streamed through the process
    lab.features = { ...NO_FEATURES, kernelCopy: { ...kernelCopy(), host: {} } };
    calls.length = 0;
    await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/s.csv' }], { preserve_timestamp: true }));
    expect(calls).toEqual([]);
    expect(archive.text('/in/s.csv')).toBe('xx');
    expect(archive.nodes.get('/in/s.csv')?.lastModified).toEqual(new Date('2026-01-01T00:00:00Z'));
  });

  it('F7: verifies a kernel copy under a name of its own before it takes the file\'s: a digest that differs leaves the file there as it was', async () => {
    let content = 'xx';
    lab.features = { ...NO_FEATURES, kernelCopy: kernelCopy() };
    archive.features = {
      ...NO_FEATURES,
      kernelCopy: kernelCopy(async (_from, _path, to) => {
        archive.put(to, content);
        return content.length;
      }),
    };
    archive.put('/in/v.csv', 'previous');
    content = 'yy';
    const bad = await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/v.csv' }], { verify_checksum: true }));
    expect(bad).toMatchObject({ status: 'ACTIVE', niceStatus: 'CHECKSUM_MISMATCH' });
    expect(archive.text('/in/v.csv')).toBe('previous');
    expect([...archive.nodes.keys()].filter((key) => key.startsWith('/in/'))).toEqual(['/in/v.csv']);
    await tasks.cancel(alice, bad.id);
    content = 'xx';
    const good = await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/v.csv' }], { verify_checksum: true }));
    expect(good).toMatchObject({ status: 'SUCCEEDED', counters: { bytesChecksummed: 2 } });
    expect(archive.text('/in/v.csv')).toBe('xx');
    expect([...archive.nodes.keys()].filter((key) => key.startsWith('/in/'))).toEqual(['/in/v.csv']);
  });

  it.each([
    ['more bytes than it said', ['xx', 'and more']],
    ['fewer bytes than it said', ['x']],
  ])('F6: holds a streamed source to the size it said: one that sends %s fails the file, and the file there stays as it was', async (_what, chunks) => {
    const read = lab.read.bind(lab);
    lab.read = (path, options) => (path === '/data/run2.csv' ? (async function* () { for (const chunk of chunks) yield Buffer.from(chunk); })() : read(path, options));
    archive.put('/in/held.csv', 'previous');
    for (const verify of [false, true]) {
      const task = await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/held.csv' }], { verify_checksum: verify }));
      expect(task).toMatchObject({ status: 'ACTIVE', niceStatus: 'FILE_SIZE_CHANGED', counters: { filesTransferred: 0 } });
      expect(archive.text('/in/held.csv')).toBe('previous');
      await tasks.cancel(alice, task.id);
    }
  });

  it('F6: stops reading an endless source at the size it said', async () => {
    let sent = 0;
    lab.read = () => (async function* () {
      for (;;) {
        sent += 1024;
        yield Buffer.alloc(1024, 'a');
      }
    })();
    const task = await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/endless.csv' }]));
    expect(task).toMatchObject({ status: 'ACTIVE', niceStatus: 'FILE_SIZE_CHANGED' });
    expect(sent).toBe(1024);
    expect(archive.nodes.has('/in/endless.csv')).toBe(false);
  });

  describe("storages that copy a directory's files together (a batch copy)", () => {
    type Call = { from: boolean; dirs: [string, string]; files: [string, string | null][]; options: DirectoryCopyOptions };
    let calls: Call[];
    /** What the archive answers for a file (default: copied, as it is, with digests when asked). */
    let outcome: (name: string, text: string, options: DirectoryCopyOptions) => DirectoryFileCopy;
    beforeEach(() => {
      calls = [];
      outcome = (_name, text, options) => ({ bytes: text.length, checksums: options.checksum === null ? null : { source: md5(text), destination: md5(text) } });
      for (const [name, text] of [['a.txt', 'one'], ['b.txt', 'three'], ['c.txt', 'fifteen']]) lab.put(`/many/${name}`, text);
      lab.features = { ...NO_FEATURES, batchCopy: batchCopy() };
      archive.features = { ...NO_FEATURES, batchCopy: batchCopy(copyFiles) };
    });
    /** As a batch copy does: a file at a time beside the event loop, each told as it is known, every one whatever became of those before, none once aborted. */
    const copyFiles: BatchCopy['copyFiles'] = async function* (from, fromDir, toDir, files, options) {
      calls.push({ from: from === lab.features.batchCopy, dirs: [fromDir, toDir], files: files.map((f) => [f.name, f.lastModified?.toISOString() ?? null]), options });
      for (const file of files) {
        await new Promise((resolve) => setImmediate(resolve));
        if (options.signal?.aborted) return;
        const text = lab.text(`${fromDir}/${file.name}`)!;
        const copied = outcome(file.name, text, options);
        // a copy whose digests differ never takes its name (the file there stays)
        if (!('error' in copied) && copied.checksums?.source === copied.checksums?.destination) archive.put(`${toDir}/${file.name}`, text);
        yield [copied];
      }
    };
    /** The archive's batch copy answers its outcomes whole with this instead. */
    const copyingWith = (copy: WholeAnswer) => {
      archive.features = { ...NO_FEATURES, batchCopy: batchCopy(answeringWhole(copy)) };
    };
    const many = (options: Partial<TransferOptions> = {}, to = '/in/many/') => transfer([{ source_path: '/many/', destination_path: to, recursive: true }], options);

    it('hands them the files in order with their times and the digest asked, and records what they copied', async () => {
      const done = await run(await many({ preserve_timestamp: true, verify_checksum: true }));
      expect(done).toMatchObject({ status: 'SUCCEEDED', counters: { files: 3, filesTransferred: 3, bytesTransferred: 15, bytesChecksummed: 15, filesSkipped: 0 } });
      expect(calls).toEqual([{ from: true, dirs: ['/many', '/in/many'], files: [['a.txt', '2026-01-01T00:00:00.000Z'], ['b.txt', '2026-01-01T00:00:00.000Z'], ['c.txt', '2026-01-01T00:00:00.000Z']], options: { checksum: 'md5', signal: expect.any(AbortSignal), sourceTimes: true, maxBytes: 256 * 2 ** 20, progress: expect.any(Function) } }]);
      expect((await store.listFiles(done.id, 'succeeded', 0, 10)).map((f) => [f.sourcePath, f.destinationPath])).toEqual([['/many/a.txt', '/in/many/a.txt'], ['/many/b.txt', '/in/many/b.txt'], ['/many/c.txt', '/in/many/c.txt']]);
      expect(archive.text('/in/many/c.txt')).toBe('fifteen');
      calls = [];
      const plain = await run(await many({}, '/in/plain/'));
      expect(plain.counters).toMatchObject({ filesTransferred: 3, bytesChecksummed: 0 });
      expect(calls[0]).toMatchObject({ files: [['a.txt', null], ['b.txt', null], ['c.txt', null]], options: { checksum: null, sourceTimes: false } });
    });

    describe('and list names with their types alone (typed names)', () => {
      let stated: string[][];
      beforeEach(() => {
        stated = [];
        const entries = lab.entries.bind(lab);
        lab.entries = async (dir, names) => {
          stated.push([...names]);
          return entries(dir, names);
        };
        // the types as a listing gives them, read here without counting as a stat
        lab.features = { ...lab.features, typedNames: async function* (path) {
          for await (const names of lab.names(path)) {
            yield (await entries(path, names)).flatMap((entry) => (entry === null ? [] : [{ name: entry.name, type: entry.link !== null || entry.type === 'invalid_symlink' ? ('link' as const) : entry.type === 'dir' ? ('dir' as const) : ('file' as const) }]));
          }
        } };
        lab.put('/many/sub/d.txt', 'deep');
        lab.put('/many/skip.tmp', 'no');
        lab.link('/many/link.txt', '/many/a.txt');
      });

      it('copies a tree from its listing alone, each file with its own time when asked, links counted, filter rules kept', async () => {
        const done = await run(await many({ preserve_timestamp: true, filter_rules: [{ method: 'exclude', name: '*.tmp', type: 'file' }] }));
        expect(done).toMatchObject({ status: 'SUCCEEDED', counters: { files: 4, filesTransferred: 4, directories: 2, symlinks: 1 } });
        expect(stated).toEqual([]);
        expect(calls.map((c) => [c.dirs, c.files, c.options.sourceTimes])).toEqual([
          [['/many', '/in/many'], [['a.txt', null], ['b.txt', null], ['c.txt', null]], true],
          [['/many/sub', '/in/many/sub'], [['d.txt', null]], true],
        ]);
        expect(archive.text('/in/many/sub/d.txt')).toBe('deep');
        expect(archive.nodes.has('/in/many/skip.tmp')).toBe(false);
      });

      it('goes on from where a call stopped at its bytes, recording every file once and in order', async () => {
        // each call answers for two files at most, as one that reached its bytes does
        const asked: string[][] = [];
        copyingWith((from, fromDir, toDir, files, options) => {
          asked.push(files.map((file) => file.name));
          return gatheredCopies(copyFiles(from, fromDir, toDir, files.slice(0, 2), options));
        });
        const done = await run(await many());
        expect(done).toMatchObject({ status: 'SUCCEEDED', counters: { files: 5, filesTransferred: 5 } });
        expect(asked).toEqual([['a.txt', 'b.txt', 'c.txt', 'skip.tmp'], ['c.txt', 'skip.tmp'], ['d.txt']]);
        expect((await store.listFiles(done.id, 'succeeded', 0, 10)).map((f) => f.sourcePath)).toEqual(['/many/a.txt', '/many/b.txt', '/many/c.txt', '/many/skip.tmp', '/many/sub/d.txt']);
      });

      it('lists with entries where a sync level asks, and stats the files it copies one by one', async () => {
        archive.put('/in/many/b.txt', 'three');
        const synced = await run(await many({ sync_level: 1 }));
        expect(synced.counters).toMatchObject({ filesSkipped: 1, filesTransferred: 4 });
        expect(stated.length).toBeGreaterThan(0);
        stated = [];
        // no batch copy: the files go one by one, each with the entry its listing read
        archive.features = NO_FEATURES;
        const oneByOne = await run(await many({ preserve_timestamp: true }, '/in/one/'));
        expect(oneByOne.counters).toMatchObject({ filesTransferred: 5, bytesTransferred: 21 });
        expect(stated).toEqual([['a.txt', 'b.txt', 'c.txt', 'sub', 'skip.tmp', 'link.txt'], ['d.txt']]);
        expect((await archive.stat('/in/one/c.txt')).lastModified).toEqual(new Date('2026-01-01T00:00:00Z'));
      });
    });

    it('leaves out what the sync level finds there already, and asks nothing when all is', async () => {
      archive.put('/in/many/b.txt', 'THREE');
      const synced = await run(await many({ sync_level: 1 }));
      expect(synced.counters).toMatchObject({ files: 3, filesSkipped: 1, filesTransferred: 2 });
      expect(calls.map((c) => c.files.map(([name]) => name))).toEqual([['a.txt', 'c.txt']]);
      calls = [];
      expect((await run(await many({ sync_level: 0 }))).counters).toMatchObject({ files: 3, filesSkipped: 3, filesTransferred: 0 });
      expect(calls).toEqual([]);
    });

    it('waits out a digest that differs, the file at its name kept as it was and only the files before it recorded', async () => {
      outcome = (name, text) => ({ bytes: text.length, checksums: { source: md5(text), destination: name === 'b.txt' ? md5('other') : md5(text) } });
      archive.put('/in/many/b.txt', 'previous');
      const waiting = await run(await many({ verify_checksum: true }));
      expect(waiting).toMatchObject({ status: 'ACTIVE', niceStatus: 'CHECKSUM_MISMATCH', counters: { files: 2, filesTransferred: 2, bytesChecksummed: 8 } });
      expect(archive.text('/in/many/b.txt')).toBe('previous');
      expect((await store.listFiles(waiting.id, 'succeeded', 0, 10)).map((f) => f.sourcePath)).toEqual(['/many/a.txt']);
      expect((await store.listEvents(waiting.id, { errorsOnly: true, limit: 10, offset: 0 })).events[0]?.details).toBe(`/in/many/b.txt: md5 ${md5('other')}, expected ${md5('three')}`);
    });

    it("skips a source's missing or unreadable file when told (listed), and waits on it when not or on any destination failure", async () => {
      outcome = (name, text) => (name === 'a.txt' ? { error: new StorageError('not_found', `/many/${name}`, 'gone'), side: 'source' } : name === 'b.txt' ? { error: new StorageError('denied', `/many/${name}`, 'unreadable'), side: 'source' } : { bytes: text.length, checksums: null });
      const skipping = await run(await many({ skip_source_errors: true }));
      expect(skipping).toMatchObject({ status: 'SUCCEEDED', counters: { files: 3, filesTransferred: 1, subtasksSkippedErrors: 2 } });
      // what a failure means is core's to decide: the storages are asked for every file, and never told which failures to skip
      expect(calls[0]?.options).not.toHaveProperty('skipSourceFailures');
      expect((await store.listFiles(skipping.id, 'skipped', 0, 10)).map((f) => [f.sourcePath, f.destinationPath, f.errorCode])).toEqual([
        ['/many/a.txt', '/in/many/a.txt', 'FILE_NOT_FOUND'],
        ['/many/b.txt', '/in/many/b.txt', 'PERMISSION_DENIED'],
      ]);
      expect(await run(await many({}, '/in/strict/'))).toMatchObject({ status: 'ACTIVE', niceStatus: 'FILE_NOT_FOUND', counters: { files: 1, subtasksSkippedErrors: 0 } });
      outcome = (name, text) => (name === 'b.txt' ? { error: new StorageError('quota', `/in/full/${name}`, 'full'), side: 'destination' } : { bytes: text.length, checksums: null });
      const full = await run(await many({ skip_source_errors: true }, '/in/full/'));
      expect(full).toMatchObject({ status: 'ACTIVE', niceStatus: 'QUOTA_EXCEEDED', counters: { files: 2, filesTransferred: 1 } });
      expect(await store.listFiles(full.id, 'skipped', 0, 10)).toEqual([]);
      outcome = (name, text) => (name === 'a.txt' ? { error: new StorageError('quota', `/many/${name}`, 'odd'), side: 'source' } : { bytes: text.length, checksums: null });
      expect(await run(await many({ skip_source_errors: true }, '/in/odd/'))).toMatchObject({ status: 'ACTIVE', niceStatus: 'QUOTA_EXCEEDED' });
    });

    it('copies a thousand at a time, the next while the one before is recorded, progress saved after each; takes no new thousand once the process stops', async () => {
      for (let i = 0; i < 1001; i += 1) lab.put(`/big/f${String(i).padStart(4, '0')}`, 'x');
      const steps: string[] = [];
      copyingWith((from, fromDir, toDir, files, options) => {
        steps.push(`copy ${files.length}`);
        return gatheredCopies(copyFiles(from, fromDir, toDir, files, options));
      });
      const saveProgress = store.saveProgress.bind(store);
      store.saveProgress = async (task) => {
        steps.push(`save ${task.counters.filesTransferred}`);
        return saveProgress(task);
      };
      const big = () => transfer([{ source_path: '/big/', destination_path: '/in/big/', recursive: true }]);
      const done = await run(await big());
      expect(done.counters).toMatchObject({ files: 1001, filesTransferred: 1001 });
      expect(steps.slice(0, 4)).toEqual(['copy 1000', 'copy 1', 'save 1000', 'save 1001']);
      steps.length = 0;
      const handed = (await runner.run((await big()).id, AbortSignal.abort()))!;
      expect(handed).toMatchObject({ status: 'ACTIVE', niceStatus: 'Queued', counters: { filesTransferred: 1000 } });
      expect(steps.filter((step) => step.startsWith('copy'))).toEqual(['copy 1000']);
      // ended, so that the same paths may go again
      await tasks.cancel(alice, handed.id);
      // the process begins to stop while the second thousand copies: it stops before its next file
      archive.nodes.delete('/in/big/f1000');
      steps.length = 0;
      const stopping = new AbortController();
      store.saveProgress = async (task) => {
        steps.push(`save ${task.counters.filesTransferred}`);
        if (task.counters.filesTransferred === 1000) stopping.abort();
        return saveProgress(task);
      };
      const stopped = (await runner.run((await big()).id, stopping.signal))!;
      expect(stopped).toMatchObject({ status: 'ACTIVE', niceStatus: 'Queued', counters: { filesTransferred: 1000 } });
      expect(steps.filter((step) => step.startsWith('copy'))).toEqual(['copy 1000', 'copy 1']);
      expect(archive.nodes.has('/in/big/f1000')).toBe(false);
      await tasks.cancel(alice, stopped.id);
      // someone ended the task meanwhile (every save refused): the batch in flight stops, nothing after
      store.saveProgress = async () => false;
      archive.nodes.delete('/in/big/f1000');
      steps.length = 0;
      expect(await run(await big())).toMatchObject({ status: 'ACTIVE', niceStatus: 'Queued', counters: { filesTransferred: 0 } });
      expect(steps).toEqual(['copy 1000', 'copy 1']);
      expect(archive.nodes.has('/in/big/f1000')).toBe(false);
    });

    it('stops the next thousand when recording the one before finds a failure (a digest that differs)', async () => {
      for (let i = 0; i < 1001; i += 1) lab.put(`/big/f${String(i).padStart(4, '0')}`, 'x');
      outcome = (name, text) => ({ bytes: text.length, checksums: { source: md5(text), destination: name === 'f0500' ? md5('other') : md5(text) } });
      const waiting = await run(await transfer([{ source_path: '/big/', destination_path: '/in/big/', recursive: true }], { verify_checksum: true }));
      expect(waiting).toMatchObject({ status: 'ACTIVE', niceStatus: 'CHECKSUM_MISMATCH', counters: { filesTransferred: 501 } });
      expect(calls.map((c) => c.files.length)).toEqual([1000, 1]);
      expect(calls[1]!.options.signal!.aborted).toBe(true);
      expect(archive.nodes.has('/in/big/f1000')).toBe(false);
    });

    it('waits out a failure of the batch in flight that comes while the one before is saved, the one before recorded', async () => {
      for (let i = 0; i < 1001; i += 1) lab.put(`/big/f${String(i).padStart(4, '0')}`, 'x');
      copyingWith(async (from, fromDir, toDir, files, options) => {
        if (files.length === 1000) return gatheredCopies(copyFiles(from, fromDir, toDir, files, options));
        await new Promise((resolve) => setImmediate(resolve));
        throw new StorageError('denied', toDir, 'its directory became unwritable');
      });
      // a save that takes round trips (Postgres): the failure above comes meanwhile
      const saveProgress = store.saveProgress.bind(store);
      store.saveProgress = async (task) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return saveProgress(task);
      };
      const waiting = await run(await transfer([{ source_path: '/big/', destination_path: '/in/big/', recursive: true }]));
      expect(waiting).toMatchObject({ status: 'ACTIVE', niceStatus: 'PERMISSION_DENIED', counters: { filesTransferred: 1000 } });
      expect(await store.listFiles(waiting.id, 'succeeded', 990, 20)).toHaveLength(10);
    });

    it("copies up to four of a tree's folders at once, and begins none once one of them fails", async () => {
      for (let d = 0; d < 8; d += 1) lab.put(`/tree/d${d}/f.txt`, `file ${d}`);
      let running = 0;
      let most = 0;
      copyingWith(async (from, fromDir, toDir, files, options) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        const copied = await gatheredCopies(copyFiles(from, fromDir, toDir, files, options));
        running -= 1;
        return copied;
      });
      const done = await run(await transfer([{ source_path: '/tree/', destination_path: '/in/tree/', recursive: true }]));
      expect(done).toMatchObject({ status: 'SUCCEEDED', counters: { filesTransferred: 8, directories: 9 } });
      expect(most).toBe(4);
      expect(archive.text('/in/tree/d7/f.txt')).toBe('file 7');
      const begun: string[] = [];
      copyingWith(async (from, fromDir, toDir, files, options) => {
        begun.push(fromDir);
        if (fromDir === '/tree/d1') return [{ error: new StorageError('denied', `${toDir}/f.txt`, 'no room'), side: 'destination' }];
        await new Promise((resolve) => setTimeout(resolve, 20));
        return gatheredCopies(copyFiles(from, fromDir, toDir, files, options));
      });
      const failed = await run(await transfer([{ source_path: '/tree/', destination_path: '/in/other/', recursive: true }]));
      expect(failed).toMatchObject({ status: 'ACTIVE', niceStatus: 'PERMISSION_DENIED' });
      expect(begun.sort()).toEqual(['/tree/d0', '/tree/d1', '/tree/d2', '/tree/d3']);
    });

    it('sends a file of 256 MiB or more alone, so that a stopping process waits for one file at most', async () => {
      const entries = lab.entries.bind(lab);
      const sizes: Record<string, number> = { 'a.txt': 200 * 2 ** 20, 'b.txt': 56 * 2 ** 20, 'c.txt': 1 };
      lab.entries = async (dir, names) => (await entries(dir, names)).map((entry) => entry && { ...entry, size: sizes[entry.name] ?? entry.size });
      await run(await many());
      expect(calls.map((c) => c.files.map(([name]) => name))).toEqual([['a.txt', 'b.txt'], ['c.txt']]);
    });

    it('copies one file at a time between storages of two hosts', async () => {
      archive.features = { ...NO_FEATURES, batchCopy: { ...batchCopy(copyFiles), host: {} } };
      const done = await run(await many());
      expect(done.counters).toMatchObject({ filesTransferred: 3, bytesTransferred: 15 });
      expect(archive.text('/in/many/b.txt')).toBe('three');
    });
  });

  describe('what survived mutation testing: each branch of a copy and a delete, as a caller sees it', () => {
    const only = (flag: keyof typeof ALL_PAUSED) => Object.fromEntries(Object.keys(ALL_PAUSED).map((key) => [key, key === flag])) as typeof ALL_PAUSED;

    it('pauses a read where only reads are paused, and a delete where only deletes are', async () => {
      const rule = await world.services.endpointManager.createPauseRule(alice, { endpoint_id: source, message: 'Reads paused', flags: only('pause_task_transfer_read') });
      expect(await run(await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/r.csv' }]))).toMatchObject({ niceStatus: 'PAUSED', isPaused: true });
      await world.services.endpointManager.deletePauseRule(alice, rule.id);
      await world.services.endpointManager.createPauseRule(alice, { endpoint_id: source, message: 'Deletes paused', flags: only('pause_task_delete') });
      expect((await run(await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/r2.csv' }]))).status).toBe('SUCCEEDED');
      const deleting = (await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: source, paths: ['/data/run1.csv'] }))).task;
      expect(await run(deleting)).toMatchObject({ niceStatus: 'PAUSED' });
      expect(lab.nodes.has('/data/run1.csv')).toBe(true);
    });

    it("deletes only where its owner may write: a reader of a share may not", async () => {
      const share = (await world.services.endpoints.createSharedEndpoint(alice, { display_name: 'Lab share', host_endpoint_id: source, host_path: '/data/' })).id;
      await world.services.accessRules.add(alice, share, { principal_type: 'identity', principal: bob.primary.id, path: '/', permissions: 'r' });
      const deleting = (await tasks.submit(bob, deleteRequest({ submission_id: tasks.submissionId(), endpoint: share, paths: ['/run1.csv'] }))).task;
      expect(await run(deleting)).toMatchObject({ status: 'ACTIVE', niceStatus: 'PERMISSION_DENIED' });
      expect(lab.nodes.has('/data/run1.csv')).toBe(true);
    });

    it('sends up an error that is no storage failure, and names a vanished endpoint', async () => {
      archive.write = () => Promise.reject(new Error('disk on fire'));
      await expect(runner.run((await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/x.csv' }])).id)).rejects.toThrow('disk on fire');
      const gone = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Gone', personal: false })).id;
      const task = await transfer([{ source_path: '/data/run1.csv', destination_path: '/x.csv' }], {}, alice, source, gone);
      await world.services.endpoints.deleteEndpoint(alice, gone);
      expect(await run(task)).toMatchObject({ status: 'ACTIVE', niceStatus: 'EndpointDeleted' });
    });

    it("in a directory: a source gone since it was listed is skipped when told (a file's record), waited for when not; a destination's failure never skipped", async () => {
      const read = lab.read.bind(lab);
      async function* vanished(path: string): AsyncIterable<Uint8Array> {
        yield* [];
        throw new StorageError('not_found', path, 'gone since listed');
      }
      lab.read = (path) => (path === '/data/run2.csv' ? vanished(path) : read(path));
      const skipping = await run(await transfer([{ source_path: '/data/', destination_path: '/in/a/' }], { skip_source_errors: true }));
      expect(skipping).toMatchObject({ status: 'SUCCEEDED', counters: { subtasksSkippedErrors: 1 } });
      expect(await store.listFiles(skipping.id, 'skipped', 0, 10)).toEqual([expect.objectContaining({ sourcePath: '/data/run2.csv', destinationPath: '/in/a/run2.csv', errorCode: 'FILE_NOT_FOUND', isDirectory: false })]);
      expect(await run(await transfer([{ source_path: '/data/', destination_path: '/in/b/' }]))).toMatchObject({ status: 'ACTIVE', niceStatus: 'FILE_NOT_FOUND' });
      lab.read = read;
      archive.faults.set('/in/c/run1.csv', 'denied');
      const refused = await run(await transfer([{ source_path: '/data/', destination_path: '/in/c/' }], { skip_source_errors: true }));
      expect(refused).toMatchObject({ status: 'ACTIVE', niceStatus: 'PERMISSION_DENIED' });
      expect(await store.listFiles(refused.id, 'skipped', 0, 10)).toEqual([]);
    });

    it("skips an item's source the owner may not read when told, and waits on any other failure of it", async () => {
      const stat = lab.stat.bind(lab);
      lab.stat = (path) => (path === '/data/run1.csv' ? Promise.reject(new StorageError('denied', path, 'unreadable')) : path === '/data/run2.csv' ? Promise.reject(new StorageError('quota', path, 'odd')) : stat(path));
      const skipped = await run(await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/1.csv' }], { skip_source_errors: true }));
      expect(skipped).toMatchObject({ status: 'SUCCEEDED', counters: { subtasksSkippedErrors: 1 } });
      expect(await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/2.csv' }], { skip_source_errors: true }))).toMatchObject({ status: 'ACTIVE', niceStatus: 'QUOTA_EXCEEDED' });
    });

    it('passes over a name gone between its listing and its stat, and makes folders that exist already or says why it cannot', async () => {
      const entries = lab.entries.bind(lab);
      lab.entries = async (dir, names) => (await entries(dir, names)).map((entry) => (entry?.name === 'run2.csv' ? null : entry));
      archive.put('/in/d/', null);
      const done = await run(await transfer([{ source_path: '/data/', destination_path: '/in/d/' }]));
      expect(done).toMatchObject({ status: 'SUCCEEDED', counters: { filesTransferred: 3 } });
      expect(archive.nodes.has('/in/d/run2.csv')).toBe(false);
      const mkdir = archive.mkdir.bind(archive);
      archive.mkdir = (path) => (path === '/in/no' ? Promise.reject(new StorageError('denied', path, 'read-only')) : mkdir(path));
      expect(await run(await transfer([{ source_path: '/data/', destination_path: '/in/no/' }]))).toMatchObject({ status: 'ACTIVE', niceStatus: 'PERMISSION_DENIED' });
      expect(archive.nodes.has('/in/no')).toBe(false);
    });

    it('verifies the checksums of a whole directory; without a sync level overwrites even an identical file', async () => {
      const verified = await run(await transfer([{ source_path: '/data/sub/', destination_path: '/in/v/' }], { verify_checksum: true }));
      expect(verified).toMatchObject({ status: 'SUCCEEDED', counters: { filesTransferred: 1, bytesChecksummed: 4 } });
      archive.put('/in/same.csv', 'xx');
      expect((await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/same.csv' }]))).counters).toMatchObject({ filesTransferred: 1, filesSkipped: 0 });
    });

    it('by size: copies what is missing, skips a file of the same size whatever its content or time; by existence a folder in the way is no copy', async () => {
      expect((await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/new.csv' }], { sync_level: 1 }))).counters).toMatchObject({ filesTransferred: 1 });
      archive.put('/in/other.csv', 'yy', new Date('2020-01-01T00:00:00Z'));
      expect((await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/other.csv' }], { sync_level: 1 }))).counters).toMatchObject({ filesTransferred: 0, filesSkipped: 1 });
      expect(archive.text('/in/other.csv')).toBe('yy');
      archive.put('/in/folder/', null);
      expect(await run(await transfer([{ source_path: '/data/run2.csv', destination_path: '/in/folder' }], { sync_level: 0 }))).toMatchObject({ status: 'ACTIVE', niceStatus: 'IS_A_DIRECTORY' });
    });

    it('writes progress back every 100 files of a directory, while its item is still pending', async () => {
      for (let i = 0; i < 100; i += 1) lab.put(`/hundred/f${String(i).padStart(3, '0')}`, 'x');
      const saved: [number, number][] = [];
      const saveProgress = store.saveProgress.bind(store);
      store.saveProgress = async (task) => {
        saved.push([task.counters.filesTransferred, task.counters.subtasksPending]);
        return saveProgress(task);
      };
      await run(await transfer([{ source_path: '/hundred/', destination_path: '/in/hundred/' }]));
      expect(saved).toContainEqual([100, 1]);
    });

    it('keeps a cancel that lands as the task finishes', async () => {
      const task = await transfer([{ source_path: '/data/run1.csv', destination_path: '/in/late.csv' }]);
      const saveProgress = store.saveProgress.bind(store);
      store.saveProgress = async (state) => {
        const saved = await saveProgress(state);
        // the item's own save is the last before the end: the owner cancels right after it
        if (state.status === 'ACTIVE' && state.counters.subtasksPending === 0) {
          store.saveProgress = saveProgress;
          await tasks.cancel(alice, task.id);
        }
        return saved;
      };
      expect(await run(task)).toMatchObject({ status: 'FAILED', fatalError: { code: 'CANCELED' } });
      expect(await codes(task)).not.toContain('SUCCEEDED');
    });

    it('deletes: counts what is left, stops at a cancel between paths, and empties folders listed in several batches', async () => {
      const handed = (await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: source, paths: ['/data/run1.csv', '/data/run2.csv'] }))).task;
      expect((await runner.run(handed.id, AbortSignal.abort()))!.counters).toMatchObject({ subtasksSucceeded: 1, subtasksPending: 1 });
      const remove = lab.remove.bind(lab);
      let removed = 0;
      const canceling = (await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: source, paths: ['/data/tmp', '/data/sub'], options: { recursive: true } }))).task;
      lab.remove = async (path) => {
        await remove(path);
        if (++removed === 1) await tasks.cancel(alice, canceling.id);
      };
      expect(await run(canceling)).toMatchObject({ status: 'FAILED', fatalError: { code: 'CANCELED' } });
      expect(lab.nodes.has('/data/sub/deep.txt')).toBe(true);
      lab.remove = remove;
      // a listing whose first batch is empty (names hidden by the storage) and whose second is not
      const names = lab.names.bind(lab);
      lab.names = (path) =>
        path === '/data/sub'
          ? (async function* () {
              yield [];
              yield* names(path);
            })()
          : names(path);
      lab.put('/data/empty-too/', null);
      const emptied = (await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: source, paths: ['/data/sub', '/data/empty-too'], options: { recursive: true } }))).task;
      expect(await run(emptied)).toMatchObject({ status: 'SUCCEEDED', counters: { files: 1, directories: 2 } });
      expect([lab.nodes.has('/data/sub'), lab.nodes.has('/data/empty-too')]).toEqual([false, false]);
    });
  });
});
