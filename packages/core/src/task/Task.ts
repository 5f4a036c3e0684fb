import { BadRequestError, ConflictError, NotFoundError } from '../shared/errors';
import type { TaskRequest } from './TaskRequest';

/**
 * A transfer or delete task: what was asked, where it stands, and its counters, as the hosted
 * task document shows them. ACTIVE covers queued and running; FAILED covers errors, expiry and
 * cancel (`fatal_error` says which); INACTIVE waits for someone to act.
 */
export type TaskStatus = 'ACTIVE' | 'INACTIVE' | 'SUCCEEDED' | 'FAILED';

export interface TaskCounters {
  files: number;
  directories: number;
  symlinks: number;
  files_skipped: number;
  files_transferred: number;
  bytes_transferred: number;
  bytes_checksummed: number;
  faults: number;
  subtasks_total: number;
  subtasks_pending: number;
  subtasks_retrying: number;
  subtasks_succeeded: number;
  subtasks_failed: number;
  subtasks_canceled: number;
  subtasks_expired: number;
  subtasks_skipped_errors: number;
}

export const ZERO_COUNTERS: TaskCounters = {
  files: 0,
  directories: 0,
  symlinks: 0,
  files_skipped: 0,
  files_transferred: 0,
  bytes_transferred: 0,
  bytes_checksummed: 0,
  faults: 0,
  subtasks_total: 0,
  subtasks_pending: 0,
  subtasks_retrying: 0,
  subtasks_succeeded: 0,
  subtasks_failed: 0,
  subtasks_canceled: 0,
  subtasks_expired: 0,
  subtasks_skipped_errors: 0,
};

export interface TaskState {
  id: string;
  /** The submitting identity; the task is theirs and their linked identities'. */
  owner_id: string;
  request: TaskRequest;
  /** The endpoints' display names at submission, as the task document shows them. */
  source_display_name: string | null;
  destination_display_name: string | null;
  status: TaskStatus;
  /** `Queued` while it waits its turn; null once it runs or ends. */
  nice_status: string | null;
  fatal_error: { code: string; description: string } | null;
  request_time: Date;
  completion_time: Date | null;
  deadline: Date;
  counters: TaskCounters;
  canceled_by_admin: 'SOURCE' | 'DESTINATION' | 'BOTH' | null;
  canceled_by_admin_message: string | null;
  is_paused: boolean;
}

/** One line of a task's history: STARTED, an error or retry, then how it ended. */
export interface TaskEventState {
  task_id: string;
  /** Its place in the task's history, from 1. */
  seq: number;
  code: string;
  description: string;
  details: string;
  is_error: boolean;
  time: Date;
}

/** A file a task moved (`succeeded`) or left with an error it was told to skip (`skipped`). */
export interface TaskFileState {
  task_id: string;
  kind: 'succeeded' | 'skipped';
  /** Its place in the task's list of its kind, from 1: the marker of the next page. */
  seq: number;
  source_path: string | null;
  destination_path: string | null;
  /** A skipped error's code and details; null for a success. */
  error_code: string | null;
  error_details: string | null;
  is_directory: boolean;
  time: Date;
}

/** How long a task may run when its submission names no deadline. */
export const DEFAULT_DEADLINE_SECONDS = 24 * 60 * 60;

/** The furthest deadline a task may have: a task that waits (a missing file) is tried again every few seconds until then. */
export const MAX_DEADLINE_DAYS = 30;

/** Of one user's unfinished tasks of a type, at most this many (the hosted service allows 3 active and 100 pending transfers a user). */
export const MAX_UNFINISHED_TASKS = 100;

/** A deadline, checked: after now, and at most MAX_DEADLINE_DAYS away. */
function checkDeadline(deadline: Date, now: Date): Date {
  if (deadline.getTime() <= now.getTime()) throw new BadRequestError('Invalid deadline: it has passed');
  if (deadline.getTime() > now.getTime() + MAX_DEADLINE_DAYS * 24 * 60 * 60 * 1000) throw new BadRequestError(`Invalid deadline: at most ${MAX_DEADLINE_DAYS} days from now`);
  return deadline;
}

export class TaskNotFoundError extends NotFoundError {
  readonly code = 'TaskNotFound';
  constructor(id: string) {
    super(`No such task '${id}'`);
  }
}

/** A finished task cannot be canceled or changed. */
export class TaskCompleteError extends ConflictError {
  override readonly code = 'TaskComplete';
}

/** A new task as a submission makes it: ACTIVE and queued, its deadline given or the default. */
export function newTask(id: string, ownerId: string, request: TaskRequest, now: Date, names: { source: string | null; destination: string | null } = { source: null, destination: null }): TaskState {
  const deadline = checkDeadline(request.deadline ?? new Date(now.getTime() + DEFAULT_DEADLINE_SECONDS * 1000), now);
  const items = request.type === 'TRANSFER' ? request.items.length : request.paths.length;
  return {
    id,
    owner_id: ownerId,
    request,
    source_display_name: names.source,
    destination_display_name: names.destination,
    status: 'ACTIVE',
    nice_status: 'Queued',
    fatal_error: null,
    request_time: now,
    completion_time: null,
    deadline,
    counters: { ...ZERO_COUNTERS, subtasks_total: items, subtasks_pending: items },
    canceled_by_admin: null,
    canceled_by_admin_message: null,
    is_paused: false,
  };
}

/** The statuses of a task that may still change. */
export const UNFINISHED: readonly TaskStatus[] = ['ACTIVE', 'INACTIVE'];

export const isFinished = (task: TaskState): boolean => !UNFINISHED.includes(task.status);

/** What running or ending a task changes; the owner changes the rest (label, deadline) or nobody does. */
export const PROGRESS_FIELDS = ['status', 'nice_status', 'fatal_error', 'completion_time', 'counters', 'is_paused', 'canceled_by_admin', 'canceled_by_admin_message'] as const satisfies readonly (keyof TaskState)[];

export type TaskProgress = Pick<TaskState, (typeof PROGRESS_FIELDS)[number]>;

/** The progress fields of a task. */
export function progressOf(task: TaskState): TaskProgress {
  return Object.fromEntries(PROGRESS_FIELDS.map((field) => [field, task[field]])) as TaskProgress;
}

/** The refusal of a new label or deadline for a task that has ended. */
export function labelAndDeadlineKept(task: TaskState): TaskCompleteError {
  return new TaskCompleteError(`Task '${task.id}' has finished: its label and deadline stay as they were`);
}

/** The refusal of a cancel of a task that has ended. */
export function alreadyFinished(task: TaskState): TaskCompleteError {
  return new TaskCompleteError(`Task '${task.id}' has already ${task.status === 'SUCCEEDED' ? 'succeeded' : 'failed'}`);
}

/** The endpoints a task reads from and writes to (a delete: one, both). */
export function endpointsOf(task: TaskState): { source: string; destination: string } {
  const { request } = task;
  return request.type === 'TRANSFER' ? { source: request.source_endpoint, destination: request.destination_endpoint } : { source: request.endpoint, destination: request.endpoint };
}

/** The task ended by cancel (its owner's, or an activity manager's for `side`): FAILED with CANCELED, its pending work canceled. */
export function canceled(task: TaskState, now: Date, byAdmin?: { side: 'SOURCE' | 'DESTINATION' | 'BOTH'; message: string }): TaskState {
  if (isFinished(task)) throw alreadyFinished(task);
  const pending = task.counters.subtasks_pending + task.counters.subtasks_retrying;
  return {
    ...task,
    status: 'FAILED',
    nice_status: null,
    fatal_error: { code: 'CANCELED', description: byAdmin ? `canceled by an administrator: ${byAdmin.message}` : 'canceled' },
    completion_time: now,
    counters: { ...task.counters, subtasks_pending: 0, subtasks_retrying: 0, subtasks_canceled: task.counters.subtasks_canceled + pending },
    canceled_by_admin: byAdmin?.side ?? null,
    canceled_by_admin_message: byAdmin?.message ?? null,
  };
}

/** The task ended by a failure no retry can mend: FAILED with its code, its pending work failed. */
export function failed(task: TaskState, now: Date, error: { code: string; description: string }): TaskState {
  const pending = task.counters.subtasks_pending + task.counters.subtasks_retrying;
  return {
    ...task,
    status: 'FAILED',
    nice_status: null,
    fatal_error: error,
    completion_time: now,
    counters: { ...task.counters, subtasks_pending: 0, subtasks_retrying: 0, subtasks_failed: task.counters.subtasks_failed + pending },
  };
}

/** The task past its deadline, unfinished: FAILED with EXPIRED. */
export function expired(task: TaskState, now: Date): TaskState {
  const pending = task.counters.subtasks_pending + task.counters.subtasks_retrying;
  return {
    ...task,
    status: 'FAILED',
    nice_status: null,
    fatal_error: { code: 'EXPIRED', description: 'the task passed its deadline before it finished' },
    completion_time: now,
    counters: { ...task.counters, subtasks_pending: 0, subtasks_retrying: 0, subtasks_expired: task.counters.subtasks_expired + pending },
  };
}

/** A label or deadline change of an unfinished task (the hosted PUT /task/<id>). */
export function updated(task: TaskState, change: { label?: string | null; deadline?: Date }, now: Date): TaskState {
  if (isFinished(task)) throw labelAndDeadlineKept(task);
  if (change.deadline) checkDeadline(change.deadline, now);
  return {
    ...task,
    request: { ...task.request, label: change.label === undefined ? task.request.label : change.label },
    deadline: change.deadline ?? task.deadline,
  };
}
