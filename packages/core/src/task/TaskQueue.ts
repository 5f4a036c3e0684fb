import type { SlotClaim } from './TaskDispatch';

/** A task a queue handed to this process: run it while `signal` holds, then release it once. */
export interface TaskClaim {
  readonly taskId: string;
  /** Aborted when this process stops or loses its hold on the task: the attempt hands it back after the file in hand. */
  readonly signal: AbortSignal;
  /** Where tasks are shared between processes: the claim of one of the owner's per-user slots, tried by the attempt. */
  readonly slot?: SlotClaim;
}

/**
 * Where a process's task workers take their tasks. An adapter decides how a task is held (in the
 * process; on Postgres, an advisory lock under a pg-boss job) and how a later attempt comes back
 * (a time before which it is not offered; a delayed job); which tasks to offer, and when a task is
 * to be tried again, are core's (TaskDispatch).
 */
export interface TaskQueue {
  /** At most `count` tasks this process may run now, each held for it until released. */
  claim(count: number): Promise<TaskClaim[]>;
  /** The claim ends: the task offered again after `retryAfterMs` (null: never, it finished or is gone). */
  release(claim: TaskClaim, retryAfterMs: number | null): Promise<void>;
}
