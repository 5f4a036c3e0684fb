import { deleteRequest, transferRequest } from '../testing/taskRequests';
import { newTask, type TaskState } from './Task';
import { ownerShare, PER_USER, retryDelay, tasksToStart, type RunningTask } from './scheduling';

const start = new Date('2026-11-27T00:00:00Z');
let made = 0;
/** A queued task of `owner`, requested `minute` minutes after the start (the queue is oldest first). */
const queued = (owner: string, minute: number, type: 'TRANSFER' | 'DELETE' = 'TRANSFER'): TaskState => {
  const id = `${owner}-${type.toLowerCase()}-${minute}-${made++}`;
  const request = type === 'TRANSFER' ? transferRequest({ submission_id: id, source_endpoint: 's', destination_endpoint: 'd', items: [{ source_path: '/a', destination_path: '/b' }] }) : deleteRequest({ submission_id: id, endpoint: 's', paths: ['/a'] });
  return newTask(id, owner, request, new Date(start.getTime() + minute * 60_000));
};
const ids = (tasks: readonly TaskState[]) => tasks.map((task) => task.id);
const none = new Map<string, RunningTask>();
const anytime = () => 0;

describe('which queued tasks a worker starts', () => {
  it('starts the oldest first, at most as many as it has room for', () => {
    const queue = [queued('ann', 1), queued('bob', 2), queued('cy', 3)];
    expect(ids(tasksToStart(queue, none, 2, anytime, 0, 10))).toEqual(ids(queue.slice(0, 2)));
    expect(tasksToStart(queue, none, 0, anytime, 0, 10)).toEqual([]);
  });

  it(`runs at most ${PER_USER} of one owner's tasks of a type, their other type apart`, () => {
    const transfers = [1, 2, 3, 4, 5].map((minute) => queued('ann', minute));
    const removal = queued('ann', 6, 'DELETE');
    expect(ids(tasksToStart([...transfers, removal], none, 10, anytime, 0, 10))).toEqual(ids([...transfers.slice(0, PER_USER), removal]));
    // counted with the ones running already
    const running = new Map<string, RunningTask>([['elsewhere', { owner: 'ann', type: 'TRANSFER' }]]);
    expect(ids(tasksToStart(transfers, running, 10, anytime, 0, 10))).toEqual(ids(transfers.slice(0, PER_USER - 1)));
  });

  it('takes every owner in turn: the one running fewest first, then the oldest request', () => {
    const anns = [queued('ann', 1), queued('ann', 2), queued('ann', 3)];
    const bobs = queued('bob', 9);
    expect(ids(tasksToStart([...anns, bobs], none, 2, anytime, 0, 10))).toEqual([anns[0]!.id, bobs.id]);
    const annRuns = new Map<string, RunningTask>([['r1', { owner: 'ann', type: 'DELETE' }]]);
    expect(ids(tasksToStart([...anns, bobs], annRuns, 1, anytime, 0, 10))).toEqual([bobs.id]);
  });

  it("keeps a worker of the process for other owners: one owner's tasks, of any type, take the others at most", () => {
    const anns = [queued('ann', 1), queued('ann', 2), queued('ann', 3, 'DELETE'), queued('ann', 4, 'DELETE')];
    expect(ownerShare(4)).toBe(3);
    expect(ids(tasksToStart(anns, none, 4, anytime, 0, 4))).toEqual(ids(anns.slice(0, 3)));
    const annRuns = new Map<string, RunningTask>(anns.slice(0, 3).map((task) => [task.id, { owner: 'ann', type: task.request.type }]));
    const bobs = queued('bob', 9);
    expect(ids(tasksToStart([...anns, bobs], annRuns, 1, anytime, 0, 4))).toEqual([bobs.id]);
    // a process of one worker runs one task at a time, whoever's
    expect(ownerShare(1)).toBe(1);
    expect(ids(tasksToStart(anns, none, 1, anytime, 0, 1))).toEqual([anns[0]!.id]);
  });

  it('leaves a task running already, and one waiting out a failure until its time', () => {
    const [first, second] = [queued('ann', 1), queued('bob', 2)];
    const running = new Map<string, RunningTask>([[first.id, { owner: 'ann', type: 'TRANSFER' }]]);
    expect(ids(tasksToStart([first, second], running, 5, anytime, 0, 10))).toEqual([second.id]);
    const notBefore = (id: string) => (id === second.id ? 1_000 : 0);
    expect(ids(tasksToStart([first, second], none, 5, notBefore, 999, 10))).toEqual([first.id]);
    expect(ids(tasksToStart([first, second], none, 5, notBefore, 1_000, 10))).toEqual([first.id, second.id]);
  });
});

describe('how long a task waits after a fault', () => {
  it('waits retryMs, doubled each fault after the first, at most 60 times it', () => {
    expect([0, 1, 2, 3, 4].map((faults) => retryDelay({}, faults))).toEqual([5_000, 5_000, 10_000, 20_000, 40_000]);
    expect(retryDelay({}, 7)).toBe(300_000);
    expect(retryDelay({ retryMs: 100 }, 30)).toBe(6_000);
  });
});
