/** A task a queue handed to this process: run it while `signal` holds, then release it once. */
export interface TaskClaim {
  readonly taskId: string;
  /** Aborted when this process stops or loses its hold on the task: the attempt hands it back after the file in hand. */
  readonly signal: AbortSignal;
}

/**
 * Where a process's task workers take their tasks. An adapter decides how a task is held (in the
 * process; on Postgres, an advisory lock under a pg-boss job, with one of its owner's slots) and
 * how a later attempt comes back (a time before which it is not offered; a delayed job); which
 * tasks may start (mayStart: PER_USER of an owner's of a type, the owner's share of the process's
 * workers), and when a task is to be tried again, are core's (TaskDispatch, scheduling).
 */
export interface TaskQueue {
  /** At most `count` tasks this process may run now, each held for it (and its owner's slot taken) until released. */
  claim(count: number): Promise<TaskClaim[]>;
  /** The claim ends: the task offered again after `retryAfterMs` (null: never, it finished or is gone). */
  release(claim: TaskClaim, retryAfterMs: number | null): Promise<void>;
}
