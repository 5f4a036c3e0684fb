import type { RunningTask, TaskDispatch, TaskState } from '@xfer/core';

export interface TaskWorkerOptions {
  /** Tasks run at once by this process (API_TASK_WORKERS; 0: none). */
  concurrency: number;
  /** How often the queue is looked at, in ms. */
  pollMs?: number;
  /** How long a task that must wait (a missing file, a pause) waits before its second attempt, in ms; twice as long each fault after, up to 60 times as long. */
  retryMs?: number;
  /** Postgres: how often ACTIVE tasks that no process holds are queued (a death is noticed within it), in ms. */
  sweepMs?: number;
  log?: (line: string) => void;
}

/** What a process's task workers offer, whichever database they run on. */
export interface TaskWorkerPool {
  /** Looks at the queue now (a submit need not wait for the next poll). */
  nudge(): void;
  /** Takes up no task until `resume()`; resolves once none runs. */
  pause(): Promise<void>;
  resume(): void;
  /** Takes no new task; the ones running hand their task back after the file in hand. */
  stop(): Promise<void>;
}

/**
 * Workers inside the process, the only one running tasks on its database (SQLite): they start
 * what core's dispatch says to (every owner in turn, a per-user limit), at most `concurrency` at a
 * time, and try a task again when the dispatch's attempt says. `stop()` takes no new task and has the
 * ones running hand their task back after the file in hand (ACTIVE, Queued: the next start takes
 * them up), so that the runtime closes the engine after them.
 */
export class TaskWorkers implements TaskWorkerPool {
  private readonly running = new Map<string, RunningTask & { done: Promise<void> }>();
  private readonly notBefore = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Aborted at stop(): the tasks running hand their task back after the file in hand. */
  private readonly stopping = new AbortController();
  private paused = false;
  private polling: Promise<void> | null = null;

  constructor(
    private readonly dispatch: TaskDispatch,
    private readonly options: TaskWorkerOptions,
  ) {}

  start(): this {
    if (this.options.concurrency > 0) this.schedule();
    return this;
  }

  /** Looks at the queue now (a submit need not wait for the next poll). */
  nudge(): void {
    if (!this.stopped && !this.paused && this.options.concurrency > 0 && this.polling === null) this.polling = this.poll().finally(() => (this.polling = null));
  }

  /** Takes up no task until `resume()` (the tasks running finish their attempt); resolves once none runs. */
  async pause(): Promise<void> {
    this.paused = true;
    await this.polling;
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  resume(): void {
    this.paused = false;
    this.nudge();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.nudge();
      void (this.polling ?? Promise.resolve()).then(() => this.schedule());
    }, this.options.pollMs ?? 200);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    const free = this.options.concurrency - this.running.size;
    if (free <= 0) return;
    let toStart: TaskState[];
    try {
      toStart = await this.dispatch.toStart(this.running, free, (id) => this.notBefore.get(id) ?? 0, Date.now());
    } catch (error) {
      this.options.log?.(`task workers: the queue could not be read: ${(error as Error).message}`);
      return;
    }
    if (this.stopped) return;
    for (const task of toStart) this.run(task);
  }

  private run(task: TaskState): void {
    const done = this.dispatch
      .attempt(task.id, this.stopping.signal)
      .then(({ retryAfterMs, error }) => {
        if (error !== null) this.options.log?.(`task ${task.id}: ${error.message}`);
        if (retryAfterMs === null) this.notBefore.delete(task.id);
        else this.notBefore.set(task.id, Date.now() + retryAfterMs);
      })
      .finally(() => {
        this.running.delete(task.id);
        this.nudge();
      });
    this.running.set(task.id, { owner: task.ownerId, type: task.request.type, done });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
    await Promise.all([...this.running.values()].map((r) => r.done));
  }
}
