import { BadRequestError, ConflictError, NotFoundError } from '../shared/errors';
import type { TaskRequest } from './TaskRequest';

/**
 * A transfer or delete task: what was asked, where it stands, and its counters, in core's names
 * (apps/api/src/http/v010 maps them to the hosted task document). ACTIVE covers queued and running; FAILED covers errors, expiry and
 * cancel (`fatalError` says which); INACTIVE waits for someone to act.
 */
export type TaskStatus = 'ACTIVE' | 'INACTIVE' | 'SUCCEEDED' | 'FAILED';

export interface TaskCounters {
  files: number;
  directories: number;
  symlinks: number;
  filesSkipped: number;
  filesTransferred: number;
  bytesTransferred: number;
  bytesChecksummed: number;
  faults: number;
  subtasksTotal: number;
  subtasksPending: number;
  subtasksRetrying: number;
  subtasksSucceeded: number;
  subtasksFailed: number;
  subtasksCanceled: number;
  subtasksExpired: number;
  subtasksSkippedErrors: number;
}

export const ZERO_COUNTERS: TaskCounters = {
  files: 0,
  directories: 0,
  symlinks: 0,
  filesSkipped: 0,
  filesTransferred: 0,
  bytesTransferred: 0,
  bytesChecksummed: 0,
  faults: 0,
  subtasksTotal: 0,
  subtasksPending: 0,
  subtasksRetrying: 0,
  subtasksSucceeded: 0,
  subtasksFailed: 0,
  subtasksCanceled: 0,
  subtasksExpired: 0,
  subtasksSkippedErrors: 0,
};

export interface TaskState {
  id: string;
  /** The submitting identity; the task is theirs and their linked identities'. */
  ownerId: string;
  request: TaskRequest;
  /** The endpoints' display names at submission, as the task document shows them. */
  sourceDisplayName: string | null;
  destinationDisplayName: string | null;
  /** The local accounts its owner's identity mapped to at submission, where a side is a mapped collection. */
  sourceLocalUser: string | null;
  destinationLocalUser: string | null;
  status: TaskStatus;
  /** `Queued` while it waits its turn; null once it runs or ends. */
  niceStatus: string | null;
  fatalError: { code: string; description: string } | null;
  requestTime: Date;
  completionTime: Date | null;
  deadline: Date;
  counters: TaskCounters;
  canceledByAdmin: 'SOURCE' | 'DESTINATION' | 'BOTH' | null;
  canceledByAdminMessage: string | null;
  isPaused: boolean;
}

/** One line of a task's history: STARTED, an error or retry, then how it ended. */
export interface TaskEventState {
  taskId: string;
  /** Its place in the task's history, from 1. */
  seq: number;
  code: string;
  description: string;
  details: string;
  isError: boolean;
  time: Date;
}

/** A file a task moved (`succeeded`) or left with an error it was told to skip (`skipped`). */
export interface TaskFileState {
  taskId: string;
  kind: 'succeeded' | 'skipped';
  /** Its place in the task's list of its kind, from 1: the marker of the next page. */
  seq: number;
  sourcePath: string | null;
  destinationPath: string | null;
  /** A skipped error's code and details; null for a success. */
  errorCode: string | null;
  errorDetails: string | null;
  isDirectory: boolean;
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

/** No task of the caller's with this id (the hosted words). */
export class TaskNotFoundError extends NotFoundError {
  readonly code = 'ClientError.NotFound';
  constructor(id: string) {
    super(`No task found with id '${id}'`);
  }
}

/** A finished task cannot be canceled or changed. */
export class TaskCompleteError extends ConflictError {
  override readonly code = 'TaskComplete';
}

/** A new task as a submission makes it: ACTIVE and queued, its deadline given or the default. */
export function newTask(
  id: string,
  ownerId: string,
  request: TaskRequest,
  now: Date,
  names: { source: string | null; destination: string | null } = { source: null, destination: null },
  localUsers: { source: string | null; destination: string | null } = { source: null, destination: null },
): TaskState {
  const deadline = checkDeadline(request.deadline ?? new Date(now.getTime() + DEFAULT_DEADLINE_SECONDS * 1000), now);
  const items = request.type === 'TRANSFER' ? request.items.length : request.paths.length;
  return {
    id,
    ownerId: ownerId,
    request,
    sourceDisplayName: names.source,
    destinationDisplayName: names.destination,
    sourceLocalUser: localUsers.source,
    destinationLocalUser: localUsers.destination,
    status: 'ACTIVE',
    niceStatus: 'Queued',
    fatalError: null,
    requestTime: now,
    completionTime: null,
    deadline,
    counters: { ...ZERO_COUNTERS, subtasksTotal: items, subtasksPending: items },
    canceledByAdmin: null,
    canceledByAdminMessage: null,
    isPaused: false,
  };
}

/** The statuses of a task that may still change. */
export const UNFINISHED: readonly TaskStatus[] = ['ACTIVE', 'INACTIVE'];

export const isFinished = (task: TaskState): boolean => !UNFINISHED.includes(task.status);

/** What running or ending a task changes; the owner changes the rest (label, deadline) or nobody does. */
export const PROGRESS_FIELDS = ['status', 'niceStatus', 'fatalError', 'completionTime', 'counters', 'isPaused', 'canceledByAdmin', 'canceledByAdminMessage'] as const satisfies readonly (keyof TaskState)[];

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
  const pending = task.counters.subtasksPending + task.counters.subtasksRetrying;
  return {
    ...task,
    status: 'FAILED',
    niceStatus: null,
    fatalError: { code: 'CANCELED', description: byAdmin ? `canceled by an administrator: ${byAdmin.message}` : 'canceled' },
    completionTime: now,
    counters: { ...task.counters, subtasksPending: 0, subtasksRetrying: 0, subtasksCanceled: task.counters.subtasksCanceled + pending },
    canceledByAdmin: byAdmin?.side ?? null,
    canceledByAdminMessage: byAdmin?.message ?? null,
  };
}

/** The task ended by a failure no retry can mend: FAILED with its code, its pending work failed. */
export function failed(task: TaskState, now: Date, error: { code: string; description: string }): TaskState {
  const pending = task.counters.subtasksPending + task.counters.subtasksRetrying;
  return {
    ...task,
    status: 'FAILED',
    niceStatus: null,
    fatalError: error,
    completionTime: now,
    counters: { ...task.counters, subtasksPending: 0, subtasksRetrying: 0, subtasksFailed: task.counters.subtasksFailed + pending },
  };
}

/** The task past its deadline, unfinished: FAILED with EXPIRED. */
export function expired(task: TaskState, now: Date): TaskState {
  const pending = task.counters.subtasksPending + task.counters.subtasksRetrying;
  return {
    ...task,
    status: 'FAILED',
    niceStatus: null,
    fatalError: { code: 'EXPIRED', description: 'the task passed its deadline before it finished' },
    completionTime: now,
    counters: { ...task.counters, subtasksPending: 0, subtasksRetrying: 0, subtasksExpired: task.counters.subtasksExpired + pending },
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
