import type { Principal } from '../auth/Principal';
import { InMemoryUnitOfWork } from '../testing/InMemoryUnitOfWork';
import { MemoryStorage } from '../testing/MemoryStorage';
import { directoryOf } from '../testing/rootedAt';
import { TestWorld } from '../testing/TestWorld';
import { transferRequest } from '../testing/taskRequests';
import { TaskDispatch } from './TaskDispatch';
import { TaskRunner } from './TaskRunner';
import { TaskService } from './TaskService';

describe('what task workers ask of core: which tasks to start, and when to try one again', () => {
  let world: TestWorld;
  let tasks: TaskService;
  let dispatch: TaskDispatch;
  let alice: Principal;
  let lab: MemoryStorage;
  let source: string;

  beforeEach(async () => {
    lab = new MemoryStorage({ '/data/a.txt': 'a', '/in/': null });
    world = new TestWorld(new InMemoryUnitOfWork(), { storages: directoryOf(() => lab) });
    [alice] = await world.principals('alice@example.org');
    await world.subscriptionFor('alice@example.org');
    source = (await world.services.endpoints.createEndpoint(alice!, { display_name: 'Lab', subscription_id: 'DEFAULT' })).id;
    tasks = new TaskService(world.uow, world.clock, world.ids);
    const runner = new TaskRunner(world.uow, world.services.files, (id) => world.services.authentication.principalOf(id), world.clock);
    dispatch = new TaskDispatch(world.uow, runner, { retryMs: 100 });
  });

  const submit = async (from: string, to = `/in/${from.slice(6)}`) => (await tasks.submit(alice!, transferRequest({ submission_id: tasks.submissionId(), source_endpoint: source, destination_endpoint: source, items: [{ source_path: from, destination_path: to }] }))).task;

  it('starts at most three of an owner’s transfers at once, oldest first, none running already or waiting', async () => {
    const submitted = [];
    // each to a place of its own: the same paths twice while unfinished are refused
    for (let i = 0; i < 5; i += 1) submitted.push(await submit('/data/a.txt', `/in/${i}.txt`));
    const ids = submitted.map((task) => task.id);
    expect((await dispatch.toStart(new Map(), 10, () => 0, 0, 10)).map((task) => task.id)).toEqual(ids.slice(0, 3));
    const running = new Map([[ids[0]!, { owner: submitted[0]!.ownerId, type: 'TRANSFER' as const }]]);
    expect((await dispatch.toStart(running, 10, (id) => (id === ids[1] ? 50 : 0), 10, 10)).map((task) => task.id)).toEqual([ids[2], ids[3]]);
    // F11: of a process's 3 workers, one owner's tasks take 2 at most (one is kept for another owner's)
    expect((await dispatch.toStart(new Map(), 10, () => 0, 0, 3)).map((task) => task.id)).toEqual(ids.slice(0, 2));
  });

  it('says when to try a task again: never once finished, later after a fault, at once when handed back', async () => {
    const done = await submit('/data/a.txt');
    expect(await dispatch.attempt(done.id, new AbortController().signal)).toEqual({ retryAfterMs: null, error: null });
    expect(lab.text('/in/a.txt')).toBe('a');
    expect(await dispatch.attempt(done.id, new AbortController().signal)).toEqual({ retryAfterMs: null, error: null });
    const missing = await submit('/data/none.txt');
    expect(await dispatch.attempt(missing.id, new AbortController().signal)).toEqual({ retryAfterMs: 100, error: null });
    expect(await dispatch.attempt(missing.id, new AbortController().signal)).toEqual({ retryAfterMs: 200, error: null });
    lab.put('/data/b.txt', 'b');
    lab.put('/data/c.txt', 'c');
    const handed = (await tasks.submit(alice!, transferRequest({ submission_id: tasks.submissionId(), source_endpoint: source, destination_endpoint: source, items: [{ source_path: '/data/b.txt', destination_path: '/in/b.txt' }, { source_path: '/data/c.txt', destination_path: '/in/c.txt' }] }))).task;
    expect(await dispatch.attempt(handed.id, AbortSignal.abort())).toEqual({ retryAfterMs: 0, error: null });
    expect([lab.text('/in/b.txt'), lab.text('/in/c.txt')]).toEqual(['b', null]);
    lab.write = async () => {
      throw new Error('the disk is on fire');
    };
    expect(await dispatch.attempt(handed.id, new AbortController().signal)).toEqual({ retryAfterMs: 100, error: new Error('the disk is on fire') });
  });
});
