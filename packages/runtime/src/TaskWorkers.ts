import type { TaskClaim, TaskDispatch, TaskQueue } from '@xfer/core';

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

/** A task queue as the workers drive it: the port, and what the process does with the adapter around it. */
export interface QueueAdapter extends TaskQueue {
  /** Looks for work now where the adapter has its own way to (Postgres: queues the tasks nobody holds). */
  nudge?(): void;
  /** Aborts the claims' signal: the tasks held are handed back after the file in hand. */
  handBack(): void;
  /** Closes what the adapter opened, after every claim was released. */
  close(): Promise<void>;
}

/**
 * The process's task workers, over a task queue (in the process on SQLite, pg-boss and advisory
 * locks on Postgres): at most `concurrency` tasks at a time, each claim run as one attempt of
 * core's dispatch and released with when to try the task again. `stop()` takes no new task and
 * has the ones running hand their task back after the file in hand, so that the runtime closes
 * the engine after them.
 */
export class TaskWorkers implements TaskWorkerPool {
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private paused = false;
  private polling: Promise<void> | null = null;

  constructor(
    private readonly queue: QueueAdapter,
    private readonly dispatch: TaskDispatch,
    private readonly options: TaskWorkerOptions,
  ) {}

  start(): this {
    if (this.options.concurrency > 0) this.schedule();
    return this;
  }

  nudge(): void {
    if (this.stopped || this.paused || this.options.concurrency === 0) return;
    this.queue.nudge?.();
    if (this.polling === null) this.polling = this.poll().finally(() => (this.polling = null));
  }

  /** Takes up no task until `resume()` (the tasks running finish their attempt); resolves once none runs. */
  async pause(): Promise<void> {
    this.paused = true;
    await this.polling;
    await Promise.all(this.running);
  }

  resume(): void {
    this.paused = false;
    this.nudge();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.handBack();
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
    await Promise.all(this.running);
    await this.queue.close();
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
    let claims: TaskClaim[];
    try {
      claims = await this.queue.claim(free);
    } catch (error) {
      if (!this.stopped) this.options.log?.(`task workers: the queue could not be read: ${(error as Error).message}`);
      return;
    }
    for (const claim of claims) {
      // stopped or paused meanwhile: the claim goes back untouched
      if (this.stopped || this.paused) await this.queue.release(claim, 0).catch(() => undefined);
      else this.run(claim);
    }
  }

  private run(claim: TaskClaim): void {
    const done = this.dispatch
      .attempt(claim.taskId, claim.signal)
      .then(async ({ retryAfterMs, error }) => {
        if (error !== null) this.options.log?.(`task ${claim.taskId}: ${error.message}`);
        await this.queue.release(claim, retryAfterMs);
      })
      .catch((error: unknown) => this.options.log?.(`task ${claim.taskId}: could not be released: ${(error as Error).message}`))
      .finally(() => {
        this.running.delete(done);
        this.nudge();
      });
    this.running.add(done);
  }
}
