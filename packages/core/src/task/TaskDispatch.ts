import type { RepositoriesOf } from '../shared/UnitOfWork';
import { PER_USER, QUEUE_READ, retryDelay, tasksToStart, type RunningTask } from './scheduling';
import type { TaskState } from './Task';
import type { TaskRequest } from './TaskRequest';
import type { TaskRunner } from './TaskRunner';

/** How long a task whose owner has PER_USER of its type running elsewhere waits for a slot. */
const SLOT_WAIT_MS = 1000;

/**
 * Claims an owner's `slot`-th of PER_USER slots for a type of task where workers share the work
 * between processes (Postgres: an advisory lock): its release, or null where it is taken.
 */
export type SlotClaim = (owner: string, type: TaskRequest['type'], slot: number) => Promise<(() => Promise<void>) | null>;

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

  /** The tasks to start now, at most `free`, by the scheduling rule (tasksToStart). */
  async toStart(running: ReadonlyMap<string, RunningTask>, free: number, notBefore: (taskId: string) => number, now: number): Promise<TaskState[]> {
    return tasksToStart(await this.unfinished(), running, free, notBefore, now);
  }

  /** The unfinished tasks as a worker reads the queue (QUEUE_READ), oldest first. */
  unfinished(): Promise<TaskState[]> {
    return this.uow.repositories.tasks.listActive(QUEUE_READ.total, QUEUE_READ.perOwner);
  }

  /**
   * One attempt at a task this process holds, until `signal` aborts (then the task is handed
   * back, to be taken up at once). With `claimSlot`, the attempt runs only in one of its owner's
   * PER_USER slots, held meanwhile. A task that must wait is tried again after retryDelay.
   */
  async attempt(taskId: string, signal: AbortSignal, claimSlot?: SlotClaim): Promise<Dispatched> {
    try {
      let release: (() => Promise<void>) | null = null;
      if (claimSlot) {
        const task = await this.uow.repositories.tasks.findById(taskId);
        if (task?.status !== 'ACTIVE') return { retryAfterMs: null, error: null };
        for (let slot = 0; slot < PER_USER && release === null; slot += 1) release = await claimSlot(task.ownerId, task.request.type, slot);
        // the owner has PER_USER tasks of this type running somewhere: this one waits its turn
        if (release === null) return { retryAfterMs: SLOT_WAIT_MS, error: null };
      }
      try {
        const after = await this.runner.run(taskId, signal);
        if (after?.status !== 'ACTIVE') return { retryAfterMs: null, error: null };
        return { retryAfterMs: after.niceStatus === 'Queued' ? 0 : retryDelay(this.options, after.counters.faults), error: null };
      } finally {
        await release?.();
      }
    } catch (error) {
      return { retryAfterMs: retryDelay(this.options, 0), error: error instanceof Error ? error : new Error(String(error)) };
    }
  }
}
