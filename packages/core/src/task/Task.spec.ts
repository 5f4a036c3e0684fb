import { BadRequestError } from '../shared/errors';
import { canceled, expired, isFinished, newTask, TaskCompleteError, TaskNotFoundError, updated, type TaskState } from './Task';
import { deleteRequest } from '../testing/taskRequests';

const NOW = new Date('2026-01-02T03:04:05Z');
const request = deleteRequest({ submission_id: '33333333-3333-4333-8333-333333333333', endpoint: '11111111-1111-4111-8111-111111111111', paths: ['/a', '/b', '/c'] });

describe('a task from submission to its end', () => {
  const task = (extra: Partial<TaskState> = {}): TaskState => ({ ...newTask('t-1', 'owner', request, NOW), ...extra });

  it('starts ACTIVE and queued, names its endpoints, and refuses a deadline that is now or past', () => {
    expect(newTask('t-1', 'owner', request, NOW)).toMatchObject({ sourceDisplayName: null, destinationDisplayName: null, status: 'ACTIVE', niceStatus: 'Queued' });
    expect(newTask('t-1', 'owner', request, NOW, { source: 'Lab', destination: null })).toMatchObject({ sourceDisplayName: 'Lab', destinationDisplayName: null });
    expect(() => newTask('t', 'o', { ...request, deadline: NOW }, NOW)).toThrow(new BadRequestError('Invalid deadline: it has passed'));
    expect(newTask('t', 'o', { ...request, deadline: new Date(NOW.getTime() + 1) }, NOW).deadline).toEqual(new Date(NOW.getTime() + 1));
  });

  it('knows when it has finished', () => {
    expect(['ACTIVE', 'INACTIVE', 'SUCCEEDED', 'FAILED'].map((status) => isFinished(task({ status: status as TaskState['status'] })))).toEqual([false, false, true, true]);
  });

  it('ends by cancel, its own or an administrator\'s, counting what was pending or retrying as canceled', () => {
    const running = task({ counters: { ...task().counters, subtasksPending: 2, subtasksRetrying: 1, subtasksCanceled: 1 } });
    expect(canceled(running, NOW)).toMatchObject({ status: 'FAILED', fatalError: { code: 'CANCELED', description: 'canceled' }, canceledByAdmin: null, canceledByAdminMessage: null, counters: { subtasksPending: 0, subtasksRetrying: 0, subtasksCanceled: 4 } });
    expect(canceled(running, NOW, { side: 'SOURCE', message: 'disk swap' })).toMatchObject({ fatalError: { code: 'CANCELED', description: 'canceled by an administrator: disk swap' }, canceledByAdmin: 'SOURCE', canceledByAdminMessage: 'disk swap' });
    expect(() => canceled(task({ status: 'SUCCEEDED' }), NOW)).toThrow(new TaskCompleteError("Task 't-1' has already succeeded"));
    expect(() => canceled(task({ status: 'FAILED' }), NOW)).toThrow("Task 't-1' has already failed");
    expect(new TaskCompleteError('x').code).toBe('TaskComplete');
  });

  it('expires, counting what was pending or retrying as expired', () => {
    const running = task({ counters: { ...task().counters, subtasksPending: 1, subtasksRetrying: 2, subtasksExpired: 1 } });
    expect(expired(running, NOW)).toMatchObject({ status: 'FAILED', completionTime: NOW, fatalError: { code: 'EXPIRED', description: 'the task passed its deadline before it finished' }, counters: { subtasksExpired: 4, subtasksPending: 0, subtasksRetrying: 0 } });
  });

  it('changes label and deadline while unfinished only', () => {
    expect(() => updated(task({ status: 'SUCCEEDED' }), { label: 'x' }, NOW)).toThrow(new TaskCompleteError("Task 't-1' has finished: its label and deadline stay as they were"));
    expect(updated(task(), { deadline: new Date(NOW.getTime() + 1000) }, NOW).request.label).toBeNull();
  });

  it('names a task it cannot find', () => {
    const error = new TaskNotFoundError('abc');
    expect([error.code, error.message]).toEqual(['ClientError.NotFound', "No task found with id 'abc'"]);
  });
});
