import type { Principal } from '../auth/Principal';
import type { Clock } from '../shared/ports';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import type { FileService } from '../storage/FileService';
import type { CopyOutcome } from '../transfer/CopyReport';
import { Attempt } from './Attempt';
import { deletePaths } from './deleteWork';
import { ofCopy, ofError, type TaskFailure } from './failures';
import { expired, failed, isFinished, type TaskState } from './Task';
import { TransferWork } from './transferWork';

/** How an attempt ended, as the runner ends the task: the copy's outcome, or a refusal met outside it. */
type AttemptOutcome = CopyOutcome | { kind: 'refused'; failure: TaskFailure };

/**
 * Runs transfer and delete tasks as their owners, one attempt at a time: loads the task, expires
 * it past its deadline, starts an attempt (its counters afresh), runs the copy or the delete, and
 * ends the attempt from the outcome. A failure it may wait out leaves the task ACTIVE with the
 * failure as its niceStatus (the caller runs it again later); one no retry mends ends it FAILED.
 */
export class TaskRunner {
  constructor(
    private readonly uow: RepositoriesOf<'tasks'>,
    private readonly files: FileService,
    private readonly principalOf: (identityId: string) => Promise<Principal>,
    private readonly clock: Clock,
  ) {}

  private get tasks() {
    return this.uow.repositories.tasks;
  }

  /**
   * One attempt at a task: its state after (finished, or ACTIVE to be tried again). Once `signal`
   * aborts (the process stops, or its hold on the task is lost), the attempt hands the task back
   * (ACTIVE, Queued) after the file in hand, to be taken up again.
   */
  async run(taskId: string, signal: AbortSignal = new AbortController().signal): Promise<TaskState | null> {
    const found = await this.tasks.findById(taskId);
    if (!found || isFinished(found)) return found;
    const now = this.clock.now();
    if (now.getTime() >= found.deadline.getTime()) {
      const ended = expired(found, now);
      if (!(await this.tasks.saveProgress(ended))) return this.tasks.findById(taskId);
      await this.event(ended, 'EXPIRED', 'expired', 'the deadline passed before the task finished', false);
      return ended;
    }
    const attempt = new Attempt(this.tasks, this.clock, found);
    await this.tasks.clearFiles(taskId);
    await this.event(attempt.task, 'STARTED', 'started', `attempt after ${found.counters.faults} fault(s)`, false);
    return this.end(attempt, await this.attempt(attempt, signal));
  }

  private async attempt(attempt: Attempt, signal: AbortSignal): Promise<AttemptOutcome> {
    const { request } = attempt.task;
    try {
      const env = { files: this.files, owner: await this.principalOf(attempt.task.ownerId), signal };
      if (request.type === 'DELETE') return await deletePaths(env, attempt, request.endpoint, request.paths, request.options);
      const work = await TransferWork.locate(env, { source: request.source_endpoint, destination: request.destination_endpoint }, request.options);
      return await work.run(attempt, request.items);
    } catch (error) {
      const failure = ofError(error);
      if (failure === null) throw error;
      return { kind: 'refused', failure };
    }
  }

  /** The task as the attempt's outcome leaves it, saved with its event; the stored task where someone ended it meanwhile. */
  private async end(attempt: Attempt, outcome: AttemptOutcome): Promise<TaskState | null> {
    const stored = () => this.tasks.findById(attempt.task.id);
    if (outcome.kind === 'ended') return stored();
    if (outcome.kind === 'stopped') {
      const queued: TaskState = { ...attempt.task, niceStatus: 'Queued' };
      return (await attempt.save(queued)) ? queued : stored();
    }
    if (outcome.kind === 'done') {
      const done: TaskState = { ...attempt.task, status: 'SUCCEEDED', niceStatus: null, completionTime: this.clock.now(), counters: { ...attempt.task.counters, subtasksPending: 0 } };
      if (!(await attempt.save(done))) return stored();
      await this.event(done, 'SUCCEEDED', 'succeeded', `${done.counters.filesTransferred} file(s), ${done.counters.bytesTransferred} bytes`, false);
      return done;
    }
    const failure = outcome.kind === 'failed' ? ofCopy(outcome.failure) : outcome.failure;
    const { counters } = attempt.task;
    if (failure.final) {
      // the failure that ends it is a fault too (the hosted FAILED delete of a missing path shows faults 1)
      const ended = failed({ ...attempt.task, counters: { ...counters, faults: counters.faults + 1 } }, this.clock.now(), { code: failure.code, description: failure.description ?? failure.message });
      if (!(await attempt.save(ended))) return stored();
      await this.event(ended, 'FAILED', 'failed', `${failure.code}: ${failure.message}`, true);
      return ended;
    }
    const waiting: TaskState = { ...attempt.task, niceStatus: failure.code, isPaused: failure.code === 'PAUSED', counters: { ...counters, faults: counters.faults + 1 } };
    if (!(await attempt.save(waiting))) return stored();
    await this.event(waiting, failure.code, failure.code.toLowerCase().replace(/_/g, ' '), failure.message, true);
    return waiting;
  }

  private async event(task: TaskState, code: string, description: string, details: string, isError: boolean): Promise<void> {
    await this.tasks.addEvent({ taskId: task.id, code, description, details, isError: isError, time: this.clock.now() });
  }
}
