import type { RepositoriesOf } from '../shared/UnitOfWork';
import { QUEUE_READ, retryDelay, tasksToStart, type RunningTask } from './scheduling';
import type { TaskState } from './Task';
import type { TaskRunner } from './TaskRunner';

/** How long a task whose owner may not start another now (its slots or its share taken) waits before it is offered again. */
export const SLOT_WAIT_MS = 1000;

/** What an attempt leaves to the workers: when to try the task again (null: never, it finished or is gone), and an error nobody expected. */
export interface Dispatched {
  retryAfterMs: number | null;
  error: Error | null;
}

/**
 * What a process's task workers ask of core, whichever way they hold tasks (in the process, or
 * beside other processes on Postgres): which tasks to take up, and one attempt at a task they
 * hold, with when to try it again. The workers keep no policy of their own.
 */
export class TaskDispatch {
  constructor(
    private readonly uow: RepositoriesOf<'tasks'>,
    private readonly runner: TaskRunner,
    private readonly options: { retryMs?: number } = {},
  ) {}

  /** The tasks to start now, at most `free` of a process of `concurrency` workers, by the scheduling rule (tasksToStart). */
  async toStart(running: ReadonlyMap<string, RunningTask>, free: number, notBefore: (taskId: string) => number, now: number, concurrency: number): Promise<TaskState[]> {
    return tasksToStart(await this.unfinished(), running, free, notBefore, now, concurrency);
  }

  /** A task as a queue claims it: whose, and of which type; null once it is finished or gone. */
  async claimable(taskId: string): Promise<(RunningTask & { id: string }) | null> {
    const task = await this.uow.repositories.tasks.findById(taskId);
    return task?.status === 'ACTIVE' ? { id: task.id, owner: task.ownerId, type: task.request.type } : null;
  }

  /** The unfinished tasks as a worker reads the queue (QUEUE_READ), oldest first. */
  unfinished(): Promise<TaskState[]> {
    return this.uow.repositories.tasks.listActive(QUEUE_READ.total, QUEUE_READ.perOwner);
  }

  /**
   * One attempt at a task this process holds (its queue took the owner's slot with it), until
   * `signal` aborts (then the task is handed back, to be taken up at once). A task that must wait
   * is tried again after retryDelay.
   */
  async attempt(taskId: string, signal: AbortSignal): Promise<Dispatched> {
    try {
      const after = await this.runner.run(taskId, signal);
      if (after?.status !== 'ACTIVE') return { retryAfterMs: null, error: null };
      return { retryAfterMs: after.niceStatus === 'Queued' ? 0 : retryDelay(this.options, after.counters.faults), error: null };
    } catch (error) {
      return { retryAfterMs: retryDelay(this.options, 0), error: error instanceof Error ? error : new Error(String(error)) };
    }
  }
}
