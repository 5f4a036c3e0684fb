import type { Clock } from '../shared/ports';
import type { CopiedFile, CopyCounts, CopyFailure, CopyReport } from '../transfer/CopyReport';
import { codeOf } from './failures';
import { ZERO_COUNTERS, type TaskCounters, type TaskState } from './Task';
import type { TaskRepository } from './TaskRepository';

/** How often a running item's access is checked again (a revoked access rule, a removed role, a pause rule): it stops a tree within seconds. */
const RECHECK_MS = 250;

/** Progress is written back at least every this many files. */
const SAVE_EVERY = 100;

/** The task's counters that a copy's counts add to. */
const COUNTERS: Record<keyof CopyCounts, keyof TaskCounters> = {
  files: 'files',
  directories: 'directories',
  symlinks: 'symlinks',
  filesSkipped: 'filesSkipped',
  filesTransferred: 'filesTransferred',
  bytesTransferred: 'bytesTransferred',
  bytesChecksummed: 'bytesChecksummed',
  skippedErrors: 'subtasksSkippedErrors',
};

/**
 * One attempt at a task: the task as it goes (counted afresh: a file moved again is counted once),
 * its file lists, and its saves; what a copy reports lands here.
 */
export class Attempt implements CopyReport {
  private sinceSave = 0;
  /** The item in hand's access, checked again now and then; null between items. */
  private access: (() => Promise<unknown>) | null = null;
  private checkedAt = 0;
  private inFlightBytes = 0;
  task: TaskState;

  constructor(
    private readonly store: TaskRepository,
    private readonly clock: Clock,
    found: TaskState,
  ) {
    const { subtasksTotal, faults } = found.counters;
    this.task = { ...found, niceStatus: null, isPaused: false, counters: { ...ZERO_COUNTERS, subtasksTotal, subtasksPending: subtasksTotal, faults } };
  }

  count(change: Partial<CopyCounts>): void {
    const counters = { ...this.task.counters };
    for (const [key, value] of Object.entries(change) as [keyof CopyCounts, number][]) counters[COUNTERS[key]] += value;
    this.task = { ...this.task, counters };
  }

  /** An item done: one subtask fewer pending, one more succeeded. */
  itemDone(): void {
    const { subtasksPending, subtasksSucceeded } = this.task.counters;
    this.task = { ...this.task, counters: { ...this.task.counters, subtasksPending: subtasksPending - 1, subtasksSucceeded: subtasksSucceeded + 1 } };
  }

  async copied(files: readonly CopiedFile[]): Promise<void> {
    if (files.length === 0) return;
    // the files reported together share the time they were recorded
    const time = this.clock.now();
    await this.store.addFiles(files.map((file) => ({ taskId: this.task.id, kind: 'succeeded', sourcePath: file.source, destinationPath: file.destination, errorCode: null, errorDetails: null, isDirectory: false, time })));
  }

  async skipped(source: string, destination: string | null, failure: CopyFailure): Promise<void> {
    this.count({ skippedErrors: 1 });
    await this.store.addFiles([{ taskId: this.task.id, kind: 'skipped', sourcePath: source, destinationPath: destination, errorCode: codeOf(failure), errorDetails: failure.message, isDirectory: false, time: this.clock.now() }]);
  }

  inFlight(bytes: number): void {
    this.inFlightBytes = bytes;
  }

  checkpoint(): Promise<boolean> {
    // the bytes of a file under way show as transferred meanwhile, never kept once it is counted
    const counters = this.task.counters;
    return this.save(this.inFlightBytes === 0 ? this.task : { ...this.task, counters: { ...counters, bytesTransferred: counters.bytesTransferred + this.inFlightBytes } });
  }

  async progressed(): Promise<boolean> {
    this.sinceSave += 1;
    if (this.sinceSave < SAVE_EVERY) return true;
    // reset before the round trip: the files copied beside this one count towards the next save
    this.sinceSave = 0;
    if (!(await this.save())) return false;
    // a storage whose calls never wait on I/O (a memory tree) would hold the event loop for a
    // whole directory: requests (a cancel, a poll of the task) are answered between
    await new Promise((resolve) => setImmediate(resolve));
    return true;
  }

  /** From now on, `access` is the item's access, checked again at most every RECHECK_MS by recheck(). */
  checking(access: () => Promise<unknown>): void {
    this.access = access;
    this.checkedAt = this.clock.now().getTime();
  }

  /** The item's access checked again when RECHECK_MS have passed: its refusal (a rule revoked meanwhile) stops the attempt. */
  async recheck(): Promise<void> {
    const now = this.clock.now().getTime();
    if (this.access === null || now - this.checkedAt < RECHECK_MS) return;
    this.checkedAt = now;
    await this.access();
  }

  /** Writes the task back unless someone ended it meanwhile (then false). */
  async save(task: TaskState = this.task): Promise<boolean> {
    if (!(await this.store.saveProgress(task))) return false;
    this.sinceSave = 0;
    return true;
  }
}
