import type { RunningTask, TaskClaim, TaskDispatch, TaskQueue } from '@xfer/core';

/**
 * The task queue of the one process running tasks on its database (SQLite): tasks are held in a
 * map, and a task to be tried later is not offered before its time; what to offer is core's
 * dispatch (every owner in turn, the per-user limit, workers kept for other owners).
 */
export class InProcessTaskQueue implements TaskQueue {
  private readonly held = new Map<string, RunningTask>();
  private readonly notBefore = new Map<string, number>();
  /** Aborted when the process stops: the tasks held are handed back after the file in hand. */
  private readonly stopping = new AbortController();

  /** `concurrency`: the workers of the process (one owner's tasks hold all but RESERVED_FOR_OTHERS of them). */
  constructor(
    private readonly dispatch: TaskDispatch,
    private readonly concurrency: number,
  ) {}

  async claim(count: number): Promise<TaskClaim[]> {
    const tasks = await this.dispatch.toStart(this.held, count, (id) => this.notBefore.get(id) ?? 0, Date.now(), this.concurrency);
    return tasks.map((task) => {
      this.held.set(task.id, { owner: task.ownerId, type: task.request.type });
      return { taskId: task.id, signal: this.stopping.signal };
    });
  }

  async release(claim: TaskClaim, retryAfterMs: number | null): Promise<void> {
    this.held.delete(claim.taskId);
    if (retryAfterMs === null) this.notBefore.delete(claim.taskId);
    else this.notBefore.set(claim.taskId, Date.now() + retryAfterMs);
  }

  /** The tasks held are handed back after the file in hand. */
  handBack(): void {
    this.stopping.abort();
  }

  async close(): Promise<void> {
    this.handBack();
  }
}
