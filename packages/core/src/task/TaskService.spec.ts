import { TestWorld } from '../testing/TestWorld';
import { BadRequestError, EndpointNotFoundError, PermissionDeniedError } from '../shared/errors';
import type { Principal } from '../auth/Principal';
import { DEFAULT_DEADLINE_SECONDS, expired, TaskCompleteError, TaskNotFoundError } from './Task';
import type { TaskRepository } from './TaskRepository';
import { MAX_PAGE, TaskService } from './TaskService';
import { deleteRequest, transferRequest } from '../testing/taskRequests';

describe('transfer and delete tasks, as their owners see them', () => {
  let world: TestWorld;
  let store: TaskRepository;
  let tasks: TaskService;
  let alice: Principal;
  let bob: Principal;
  let source: string;
  let destination: string;

  beforeEach(async () => {
    world = new TestWorld();
        tasks = new TaskService(world.uow, world.clock, world.ids);
    store = world.uow.repositories.tasks;
    [alice, bob] = await world.principals('alice', 'bob');
    source = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Source', personal: false })).id;
    destination = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Destination', personal: false })).id;
  });

  // each to a destination of its own: the same paths again while one is unfinished are refused (tested below)
  const transfer = (submission = tasks.submissionId(), extra: Partial<Parameters<typeof transferRequest>[0]> = {}) =>
    transferRequest({ submission_id: submission, source_endpoint: source, destination_endpoint: destination, items: [{ source_path: '/a', destination_path: `/b/${submission}` }, { source_path: '/c/', destination_path: '/d/', recursive: true }], ...extra });

  it('queues a submitted transfer: ACTIVE, Queued, a day to finish, its items pending', async () => {
    const { task, duplicate } = await tasks.submit(alice, transfer(undefined, { label: 'Copy' }));
    expect(duplicate).toBe(false);
    expect(task).toMatchObject({ ownerId: alice.primary.id, status: 'ACTIVE', niceStatus: 'Queued', fatalError: null, completionTime: null, isPaused: false, requestTime: world.clock.now() });
    expect(task.deadline.getTime() - task.requestTime.getTime()).toBe(DEFAULT_DEADLINE_SECONDS * 1000);
    expect(task.counters).toMatchObject({ subtasksTotal: 2, subtasksPending: 2, files: 0, bytesTransferred: 0 });
    expect(await tasks.get(alice, task.id)).toEqual(task);
    expect((await tasks.events(alice, task.id)).events.map((e) => e.code)).toEqual(['SUBMITTED']);
  });

  it('answers a submission id used before with the first task, never a second', async () => {
    const submission = tasks.submissionId();
    const first = await tasks.submit(alice, transfer(submission));
    const again = await tasks.submit(alice, transfer(submission, { label: 'other' }));
    expect(again).toEqual({ task: first.task, duplicate: true });
    expect((await tasks.list(alice)).total).toBe(1);
    // a submission id is its submitter's: bob's own endpoint, the same value, a task of his own
    const bobs = (await world.services.endpoints.createEndpoint(bob, { display_name: 'Bob', personal: false })).id;
    const his = await tasks.submit(bob, deleteRequest({ submission_id: submission, endpoint: bobs, paths: ['/x'] }));
    expect([his.duplicate, his.task.ownerId]).toEqual([false, bob.primary.id]);
  });

  it("says which endpoints the caller's ACTIVE tasks use, and only the caller's", async () => {
    expect(await tasks.endpointsInUse(alice)).toEqual(new Set());
    const { task } = await tasks.submit(alice, transfer());
    expect(await tasks.endpointsInUse(alice)).toEqual(new Set([source, destination]));
    expect(await tasks.endpointsInUse(bob)).toEqual(new Set());
    await tasks.cancel(alice, task.id);
    expect(await tasks.endpointsInUse(alice)).toEqual(new Set());
  });

  it('tells the workers of each task it accepts, not of a duplicate nor a refused one', async () => {
    const told: string[] = [];
    const telling = new TaskService(world.uow, world.clock, world.ids, (id) => told.push(id));
    const submission = telling.submissionId();
    const { task } = await telling.submit(alice, transfer(submission));
    await telling.submit(alice, transfer(submission));
    await expect(telling.submit(alice, transfer(undefined, { items: [] }))).rejects.toThrow();
    expect(told).toEqual([task.id]);
  });

  it('writes a task and its SUBMITTED event together, or neither (the event refused: no task, no worker told)', async () => {
    const told: string[] = [];
    const telling = new TaskService(world.uow, world.clock, world.ids, (id) => told.push(id));
    const addEvent = store.addEvent.bind(store);
    const refuse = jest.spyOn(store, 'addEvent').mockImplementationOnce(() => Promise.reject(new Error('disk full')));
    await expect(telling.submit(alice, transfer())).rejects.toThrow('disk full');
    expect(await tasks.list(alice)).toMatchObject({ tasks: [], total: 0 });
    expect(told).toEqual([]);
    refuse.mockImplementation(addEvent);
    const { task } = await telling.submit(alice, transfer());
    expect((await tasks.events(alice, task.id)).events.map((e) => e.code)).toEqual(['SUBMITTED']);
    expect(told).toEqual([task.id]);
  });

  it('checks the rules of a request whoever decoded it', async () => {
    await expect(tasks.submit(alice, transfer(undefined, { items: [] }))).rejects.toThrow('A task requires at least one item');
    await expect(tasks.submit(alice, transfer(undefined, { label: ' padded' }))).rejects.toThrow('Invalid label: must not begin or end with spaces');
    expect((await tasks.list(alice)).total).toBe(0);
  });

  it("refuses an endpoint whose files the caller may not use (alice's private ones, to bob)", async () => {
    await expect(tasks.submit(bob, transfer())).rejects.toThrow(PermissionDeniedError);
    await world.services.endpoints.updateEndpoint(alice, source, { public: true });
    await world.services.endpoints.updateEndpoint(alice, destination, { public: true });
    expect((await tasks.submit(bob, transfer())).task.ownerId).toBe(bob.primary.id);
  });

  it('refuses endpoints that do not exist, and a deadline that has passed', async () => {
    const missing = '99999999-9999-4999-8999-999999999999';
    await expect(tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: missing, paths: ['/x'] }))).rejects.toThrow(EndpointNotFoundError);
    await expect(tasks.submit(alice, transfer(undefined, { deadline: new Date('2020-01-01T00:00:00Z') }))).rejects.toThrow(new BadRequestError('Invalid deadline: it has passed'));
    expect((await tasks.list(alice)).total).toBe(0);
  });

  it("keeps a task to its owner and the owner's linked identities", async () => {
    const { task } = await tasks.submit(alice, transfer());
    await expect(tasks.get(bob, task.id)).rejects.toThrow(TaskNotFoundError);
    await expect(tasks.cancel(bob, task.id)).rejects.toThrow(TaskNotFoundError);
    await expect(tasks.events(bob, task.id)).rejects.toThrow(TaskNotFoundError);
    expect((await tasks.list(bob)).tasks).toEqual([]);
    await world.services.admin.identities.linkIdentities('alice', 'bob');
    const bobLinked = await world.principal('bob');
    expect((await tasks.get(bobLinked, task.id.toUpperCase())).id).toBe(task.id);
  });

  it('lists newest first, by status and type, in pages with the total', async () => {
    const made: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      made.push((await tasks.submit(alice, transfer())).task.id);
      world.clock.advance(1);
    }
    const deleted = (await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: source, paths: ['/x'] }))).task.id;
    await tasks.cancel(alice, made[0]!);
    expect((await tasks.list(alice)).tasks.map((t) => t.id)).toEqual([deleted, made[2], made[1], made[0]]);
    expect(await tasks.list(alice, { limit: 2, offset: 1 })).toMatchObject({ total: 4, limit: 2, offset: 1, tasks: [{ id: made[2] }, { id: made[1] }] });
    expect((await tasks.list(alice, { status: ['FAILED'] })).tasks.map((t) => t.id)).toEqual([made[0]]);
    expect((await tasks.list(alice, { type: ['DELETE'] })).tasks.map((t) => t.id)).toEqual([deleted]);
    for (const limit of [0, MAX_PAGE + 1, 1.5]) await expect(tasks.list(alice, { limit })).rejects.toThrow(`Invalid limit: a whole number from 1 to ${MAX_PAGE}`);
    await expect(tasks.list(alice, { offset: -1 })).rejects.toThrow('Invalid offset');
    expect((await tasks.list(alice, { limit: MAX_PAGE })).limit).toBe(MAX_PAGE);
  });

  it('cancels an unfinished task once: FAILED with CANCELED, its pending items canceled; a finished one is complete', async () => {
    const { task } = await tasks.submit(alice, transfer());
    world.clock.advance(5);
    const ended = await tasks.cancel(alice, task.id);
    expect(ended).toMatchObject({ status: 'FAILED', niceStatus: null, fatalError: { code: 'CANCELED' }, completionTime: world.clock.now(), canceledByAdmin: null });
    expect(ended.counters).toMatchObject({ subtasksPending: 0, subtasksCanceled: 2, subtasksTotal: 2 });
    await expect(tasks.cancel(alice, task.id)).rejects.toThrow(TaskCompleteError);
    await expect(tasks.cancel(alice, task.id)).rejects.toThrow("Task '" + task.id + "' has already failed");
    expect((await tasks.events(alice, task.id)).events.map((e) => e.code)).toEqual(['CANCELED', 'SUBMITTED']);
  });

  it('changes the label and deadline of an unfinished task only', async () => {
    const { task } = await tasks.submit(alice, transfer(undefined, { label: 'Before' }));
    const later = new Date(world.clock.now().getTime() + 3600_000);
    const changed = await tasks.update(alice, task.id, { label: 'After', deadline: later });
    expect([changed.request.label, changed.deadline]).toEqual(['After', later]);
    expect((await tasks.update(alice, task.id, {})).request.label).toBe('After');
    expect((await tasks.update(alice, task.id, { label: null })).request.label).toBeNull();
    await expect(tasks.update(alice, task.id, { deadline: world.clock.now() })).rejects.toThrow('Invalid deadline: it has passed');
    await tasks.cancel(alice, task.id);
    await expect(tasks.update(alice, task.id, { label: 'Too late' })).rejects.toThrow(TaskCompleteError);
  });

  /** The task's runner finishes it (SUCCEEDED) right after the service's next read of it. */
  const finishesAfterNextRead = (taskId: string) => {
    const findById = store.findById.bind(store);
    store.findById = async (id) => {
      const read = await findById(id);
      store.findById = findById;
      const stored = (await findById(taskId))!;
      await store.saveProgress({ ...stored, status: 'SUCCEEDED', completionTime: world.clock.now() });
      return read;
    };
  };

  it('leaves a task as its runner finished it when a cancel or a change read it just before', async () => {
    const { task } = await tasks.submit(alice, transfer(undefined, { label: 'Before' }));
    finishesAfterNextRead(task.id);
    await expect(tasks.cancel(alice, task.id)).rejects.toThrow(new TaskCompleteError(`Task '${task.id}' has already succeeded`));
    expect(await tasks.get(alice, task.id)).toMatchObject({ status: 'SUCCEEDED', fatalError: null });
    expect((await tasks.events(alice, task.id)).events.map((e) => e.code)).toEqual(['SUBMITTED']);

    const changing = (await tasks.submit(alice, transfer(undefined, { label: 'Before' }))).task;
    finishesAfterNextRead(changing.id);
    await expect(tasks.update(alice, changing.id, { label: 'After' })).rejects.toThrow(new TaskCompleteError(`Task '${changing.id}' has finished: its label and deadline stay as they were`));
    expect(await tasks.get(alice, changing.id)).toMatchObject({ status: 'SUCCEEDED', request: { label: 'Before' } });
  });

  it('pages events newest first, errors alone when asked', async () => {
    const { task } = await tasks.submit(alice, transfer());
    await store.addEvent({ taskId: task.id, code: 'FILE_NOT_FOUND', description: 'missing', details: '/a', isError: true, time: world.clock.now() });
    await store.addEvent({ taskId: task.id, code: 'STARTED', description: 'started', details: '', isError: false, time: world.clock.now() });
    expect((await tasks.events(alice, task.id)).events.map((e) => [e.seq, e.code])).toEqual([[3, 'STARTED'], [2, 'FILE_NOT_FOUND'], [1, 'SUBMITTED']]);
    expect(await tasks.events(alice, task.id, { errorsOnly: true })).toMatchObject({ total: 1, events: [{ code: 'FILE_NOT_FOUND', isError: true }] });
    expect(await tasks.events(alice, task.id, { limit: 1, offset: 1 })).toMatchObject({ total: 3, limit: 1, offset: 1, events: [{ code: 'FILE_NOT_FOUND' }] });
    await expect(tasks.events(alice, task.id, { limit: 0 })).rejects.toThrow('Invalid limit');
    await expect(tasks.events(alice, task.id, { offset: -2 })).rejects.toThrow('Invalid offset');
  });

  it('names the endpoints at submission, and tells what happened in its events', async () => {
    const { task } = await tasks.submit(alice, transfer());
    expect([task.sourceDisplayName, task.destinationDisplayName]).toEqual(['Source', 'Destination']);
    const deleting = (await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: source, paths: ['/x'] }))).task;
    expect([deleting.sourceDisplayName, deleting.destinationDisplayName]).toEqual(['Source', null]);
    await tasks.cancel(alice, task.id);
    expect((await tasks.events(alice, task.id)).events.map(({ code, description, details, isError: isError }) => ({ code, description, details, isError }))).toEqual([
      { code: 'CANCELED', description: 'canceled', details: 'canceled by its owner', isError: false },
      { code: 'SUBMITTED', description: 'submitted', details: 'transfer task queued', isError: false },
    ]);
  });

  it("pages a task's files after a marker, with the next marker while more remain (once it has ended)", async () => {
    const { task } = await tasks.submit(alice, transfer());
    await expect(tasks.files(alice, task.id, 'succeeded', 0)).rejects.toThrow(`Task '${task.id}' is still in progress, successful transfers are not yet available`);
    await tasks.cancel(alice, task.id);
    await store.addFiles(['/1', '/2', '/3'].map((name) => ({ taskId: task.id, kind: 'succeeded' as const, sourcePath: name, destinationPath: name, errorCode: null, errorDetails: null, isDirectory: false, time: world.clock.now() })));
    expect(await tasks.files(alice, task.id, 'succeeded', 0, 2)).toEqual({ files: [expect.objectContaining({ seq: 1 }), expect.objectContaining({ seq: 2 })], next: 2 });
    expect(await tasks.files(alice, task.id, 'succeeded', 2, 2)).toEqual({ files: [expect.objectContaining({ seq: 3, sourcePath: '/3' })], next: null });
    expect(await tasks.files(alice, task.id, 'succeeded', 0, 3)).toMatchObject({ next: null });
    expect((await tasks.files(alice, task.id, 'succeeded', 0)).files).toHaveLength(3);
    expect(await tasks.files(alice, task.id, 'skipped', 0, 1)).toEqual({ files: [], next: null });
    for (const limit of [0, MAX_PAGE + 1, 0.5]) await expect(tasks.files(alice, task.id, 'succeeded', 0, limit)).rejects.toThrow(`Invalid limit: a whole number from 1 to ${MAX_PAGE}`);
    expect((await tasks.files(alice, task.id, 'succeeded', 0, MAX_PAGE)).files).toHaveLength(3);
    expect((await tasks.files(alice, task.id, 'succeeded', 0, 1)).files).toHaveLength(1);
    await expect(tasks.files(bob, task.id, 'succeeded', 0)).rejects.toThrow(TaskNotFoundError);
    expect((await tasks.list(alice, { limit: 1 })).tasks).toHaveLength(1);
    expect((await tasks.events(alice, task.id, { limit: MAX_PAGE })).limit).toBe(MAX_PAGE);
    await expect(tasks.events(alice, task.id, { limit: MAX_PAGE + 1 })).rejects.toThrow('Invalid limit');
  });

  describe("the endpoint manager's view", () => {
    let carol: Principal;
    let managed: string;
    beforeEach(async () => {
      [carol] = await world.principals('carol');
      await world.subscriptionFor('alice');
      managed = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Managed', personal: false, subscription_id: 'DEFAULT' })).id;
      await world.services.admin.endpoints.grantRole(managed, 'activity_monitor', 'bob');
      await world.services.admin.endpoints.grantRole(managed, 'activity_manager', 'carol');
    });
    const onManaged = async (to = destination) =>
      (await tasks.submit(alice, transferRequest({ submission_id: tasks.submissionId(), source_endpoint: managed, destination_endpoint: to, items: [{ source_path: '/a', destination_path: `/b/${tasks.submissionId()}` }] }))).task;

    it('lists and shows the tasks of endpoints one monitors, whoever submitted them, to no one else', async () => {
      const task = await onManaged();
      await tasks.submit(alice, transfer());
      expect((await tasks.managedList(bob)).tasks.map((t) => t.id)).toEqual([task.id]);
      expect(await tasks.managedList(carol, { limit: 1, offset: 0, status: ['ACTIVE'], type: ['TRANSFER'] })).toMatchObject({ total: 1, limit: 1, offset: 0 });
      expect((await tasks.managedList(carol, { type: ['DELETE'] })).total).toBe(0);
      expect((await tasks.managedList(alice)).total).toBe(2);
      expect((await tasks.managedTask(bob, task.id.toUpperCase())).id).toBe(task.id);
      const [dave] = await world.principals('dave');
      expect((await tasks.managedList(dave)).total).toBe(0);
      await expect(tasks.managedTask(dave, task.id)).rejects.toThrow(TaskNotFoundError);
      await expect(tasks.managedTask(bob, '99999999-9999-4999-8999-999999999999')).rejects.toThrow(TaskNotFoundError);
      for (const limit of [0, MAX_PAGE + 1]) await expect(tasks.managedList(bob, { limit })).rejects.toThrow(`Invalid limit: a whole number from 1 to ${MAX_PAGE}`);
      await expect(tasks.managedList(bob, { offset: -1 })).rejects.toThrow('Invalid offset: a whole number from 0');
      expect((await tasks.managedList(bob, { limit: MAX_PAGE })).limit).toBe(MAX_PAGE);
    });

    it('lets administrators and activity managers cancel, naming the side they hold, with a message; all or none', async () => {
      const task = await onManaged();
      await expect(tasks.adminCancel(bob, [task.id], 'disk swap')).rejects.toThrow(new PermissionDeniedError(`You need the 'administrator' or 'activity_manager' role on an endpoint of task '${task.id}' to cancel it`));
      const [dave] = await world.principals('dave');
      await expect(tasks.adminCancel(dave, [task.id], 'x')).rejects.toThrow(TaskNotFoundError);
      await expect(tasks.adminCancel(carol, [task.id, '99999999-9999-4999-8999-999999999999'], 'x')).rejects.toThrow(TaskNotFoundError);
      expect((await tasks.get(alice, task.id)).status).toBe('ACTIVE');
      await expect(tasks.adminCancel(carol, [], 'x')).rejects.toThrow(`Invalid task_id_list: 1 to ${MAX_PAGE} task ids`);
      await expect(tasks.adminCancel(carol, Array.from({ length: MAX_PAGE + 1 }, () => task.id), 'x')).rejects.toThrow('Invalid task_id_list');
      await expect(tasks.adminCancel(carol, [task.id], 'two\u0000lines')).rejects.toThrow('Invalid message');
      const [ended] = await tasks.adminCancel(carol, [task.id, task.id.toUpperCase()], 'disk swap');
      expect(ended).toMatchObject({ status: 'FAILED', canceledByAdmin: 'SOURCE', canceledByAdminMessage: 'disk swap', fatalError: { code: 'CANCELED' } });
      expect((await tasks.events(alice, task.id)).events[0]).toMatchObject({ code: 'CANCELED', description: 'canceled', details: 'canceled by an administrator of its source: disk swap', isError: false });
      expect(await tasks.adminCancel(carol, [task.id], 'again')).toEqual([]);
      const intoManaged = (await tasks.submit(alice, transferRequest({ submission_id: tasks.submissionId(), source_endpoint: source, destination_endpoint: managed, items: [{ source_path: '/a', destination_path: '/b' }] }))).task;
      expect((await tasks.adminCancel(carol, [intoManaged.id], 'm'))[0]).toMatchObject({ canceledByAdmin: 'DESTINATION' });
      expect((await tasks.adminCancel(alice, [(await onManaged()).id], 'm'))[0]).toMatchObject({ canceledByAdmin: 'BOTH' });
      expect((await tasks.adminCancel(carol, [(await onManaged(managed)).id], 'm'))[0]).toMatchObject({ canceledByAdmin: 'BOTH' });
      const deleting = (await tasks.submit(alice, deleteRequest({ submission_id: tasks.submissionId(), endpoint: managed, paths: ['/x'] }))).task;
      await expect(tasks.adminCancel(carol, [deleting.id], 'm'.repeat(2049))).rejects.toThrow('Invalid message: must be at most 2048 characters');
      // as many ids as a page holds (the same one, counted once), and the longest message
      expect((await tasks.adminCancel(carol, Array.from({ length: MAX_PAGE }, () => deleting.id), 'm'.repeat(2048)))[0]).toMatchObject({ canceledByAdmin: 'SOURCE' });
      // one that its runner finishes after the read is left as it ended, the others canceled
      const finishing = await onManaged();
      const other = await onManaged();
      finishesAfterNextRead(finishing.id);
      expect((await tasks.adminCancel(carol, [finishing.id, other.id], 'm')).map((t) => t.id)).toEqual([other.id]);
      expect((await tasks.get(alice, finishing.id)).status).toBe('SUCCEEDED');
      // an endpoint of the task deleted since: the side still held decides
      const gone = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Gone', personal: false })).id;
      const toGone = (await tasks.submit(alice, transferRequest({ submission_id: tasks.submissionId(), source_endpoint: managed, destination_endpoint: gone, items: [{ source_path: '/a', destination_path: '/b' }] }))).task;
      await world.services.endpoints.deleteEndpoint(alice, gone);
      expect((await tasks.adminCancel(carol, [toGone.id], 'm'))[0]).toMatchObject({ canceledByAdmin: 'SOURCE' });
    });
  });

  it('expires an unfinished task: FAILED with EXPIRED, its pending items expired', async () => {
    const { task } = await tasks.submit(alice, transfer());
    const ended = expired(task, world.clock.now());
    expect(ended).toMatchObject({ status: 'FAILED', fatalError: { code: 'EXPIRED' }, completionTime: world.clock.now() });
    expect(ended.counters).toMatchObject({ subtasksPending: 0, subtasksExpired: 2 });
  });
});
