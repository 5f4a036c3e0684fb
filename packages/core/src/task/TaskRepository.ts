import type { TaskEventState, TaskFileState, TaskState } from './Task';
import type { TaskQuery } from './TaskQuery';

/** Where tasks and their events are kept. */
export interface TaskRepository {
  add(task: TaskState): Promise<void>;
  findById(id: string): Promise<TaskState | null>;
  /** The task a submission id made for one of these identities, if any. */
  findBySubmission(ownerIds: readonly string[], submissionId: string): Promise<TaskState | null>;
  /**
   * Writes what running or ending a task changes (PROGRESS_FIELDS), in one statement and only while
   * the stored task is unfinished: false, with nothing written, when it ended meanwhile, so that a
   * cancel and a finish never overwrite each other. Its request and deadline stay as stored.
   */
  saveProgress(task: TaskState): Promise<boolean>;
  /** Writes a task's request (its label) and deadline, only while it is unfinished: false when it ended meanwhile. */
  saveLabelAndDeadline(task: TaskState): Promise<boolean>;
  /**
   * Unfinished tasks (ACTIVE), oldest request first, at most `perOwner` of each owner's tasks of a
   * type (their oldest): what workers take up, every owner in turn, however many tasks one has.
   */
  listActive(limit: number, perOwner?: number): Promise<TaskState[]>;
  /** The source and destination endpoints of these owners' ACTIVE tasks, each once (`in_use`). */
  activeEndpointIds(ownerIds: readonly string[]): Promise<string[]>;
  /** Tasks whose source or destination is one of these endpoints, newest request first (the endpoint manager's view). */
  listForEndpoints(endpointIds: readonly string[], query: TaskQuery): Promise<{ tasks: TaskState[]; total: number }>;
  /** Tasks of these owners, newest request first. */
  listForOwners(ownerIds: readonly string[], query: TaskQuery): Promise<{ tasks: TaskState[]; total: number }>;
  addEvent(event: Omit<TaskEventState, 'seq'>): Promise<TaskEventState>;
  listEvents(taskId: string, query: { errorsOnly: boolean; limit: number; offset: number }): Promise<{ events: TaskEventState[]; total: number }>;
  /** Records files a task moved or skipped, numbered in the order given (per task and kind). */
  addFiles(files: readonly Omit<TaskFileState, 'seq'>[]): Promise<void>;
  /** A task's files of one kind after the marker `after` (a seq; 0 from the start), in order. */
  listFiles(taskId: string, kind: TaskFileState['kind'], after: number, limit: number): Promise<TaskFileState[]>;
  /** Forgets the files of a task (a new attempt lists them again). */
  clearFiles(taskId: string): Promise<void>;
}
