import type { Principal } from '../auth/Principal';
import { endpointsHeld } from '../endpoint/EndpointManager';
import type { Endpoint } from '../endpoint/Endpoint';
import { mappedAccountOf } from '../gcs/mappedAccount';
import { effectiveRoles, MONITOR_ROLES, type EndpointRole } from '../role/Role';
import { checkText } from '../shared/text';
import { endpointWithFiles } from '../storage/FileService';
import type { Clock, IdGenerator } from '../shared/ports';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { BadRequestError, LimitExceededError, PermissionDeniedError } from '../shared/errors';
import { alreadyFinished, canceled, endpointsOf, isFinished, labelAndDeadlineKept, MAX_UNFINISHED_TASKS, newTask, TaskNotFoundError, updated, type TaskEventState, type TaskFileState, type TaskState } from './Task';
import type { TaskFilter, TaskOrder } from './TaskQuery';
import { IdenticalTransferError, sameTransfer, TaskInProgressError } from './TaskRefusals';
import { checkTaskRequest, type TaskRequest } from './TaskRequest';

/** A submission's answer: the task made, or the one an earlier submission with the same id made. */
export interface Submitted {
  task: TaskState;
  duplicate: boolean;
}

/** A task list as asked: what it keeps, its order, and its page (by default the first MAX_PAGE). */
export type TaskListRequest = TaskFilter & { order?: TaskOrder; limit?: number; offset?: number };
export interface TaskPage {
  tasks: TaskState[];
  total: number;
  limit: number;
  offset: number;
}

/** A list's page, checked: limit 1 to MAX_PAGE (default MAX_PAGE), offset from 0. */
function pageOf(query: { limit?: number; offset?: number }): { limit: number; offset: number } {
  const limit = query.limit ?? MAX_PAGE;
  const offset = query.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new BadRequestError(`Invalid limit: a whole number from 1 to ${MAX_PAGE}`);
  if (!Number.isInteger(offset) || offset < 0) throw new BadRequestError('Invalid offset: a whole number from 0');
  return { limit, offset };
}

/** Who may cancel the tasks of an endpoint (the endpoint manager's admin_cancel). */
const TASK_MANAGERS: readonly EndpointRole[] = ['administrator', 'activity_manager'];

/** The most tasks or events one page lists. */
export const MAX_PAGE = 1000;

/**
 * Transfer and delete tasks as their owners see them: submission ids, submit (once per
 * submission id), read, list, relabel, cancel, and their events. A task is its submitter's and
 * their linked identities'; to anyone else it does not exist.
 */
export class TaskService {
  constructor(
    private readonly uow: RepositoriesOf<'endpoints' | 'accessRules' | 'tasks' | 'storageGateways' | 'identities'>,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly submitted: (taskId: string) => void = () => undefined,
  ) {}

  /** A fresh submission id (GET /submission_id). */
  submissionId(): string {
    return this.ids.uuid();
  }

  /** The endpoints the caller's ACTIVE tasks use, as source or destination (an endpoint's `in_use`). */
  async endpointsInUse(caller: Principal): Promise<ReadonlySet<string>> {
    return new Set(await this.uow.repositories.tasks.activeEndpointIds([...caller.identityIds]));
  }

  /**
   * Queues a task. The caller must be able to use the files of the endpoints it names (the rule of
   * the file operations; each path's access is checked as the task reaches it); a submission id
   * already used by the caller answers the first task (the hosted `Duplicate`), never a second.
   */
  async submit(caller: Principal, request: TaskRequest): Promise<Submitted> {
    checkTaskRequest(request);
    const earlier = await this.uow.repositories.tasks.findBySubmission([...caller.identityIds], request.submission_id);
    if (earlier) return { task: earlier, duplicate: true };
    const unfinished = await this.uow.repositories.tasks.listForOwners([...caller.identityIds], { status: ['ACTIVE', 'INACTIVE'], type: [request.type], limit: MAX_UNFINISHED_TASKS, offset: 0 });
    // the same paths again while the first copy of them runs (a rerun of a script): refused, as the hosted service does
    const identical = unfinished.tasks.find((task) => sameTransfer(task.request, request));
    if (identical) throw new IdenticalTransferError(identical.id);
    if (unfinished.total >= MAX_UNFINISHED_TASKS) {
      throw new LimitExceededError(`At most ${MAX_UNFINISHED_TASKS} unfinished ${request.type.toLowerCase()} tasks a user: ${unfinished.total} are queued or running; wait for some to end or cancel them`);
    }
    const endpoints = request.type === 'TRANSFER' ? [request.source_endpoint, request.destination_endpoint] : [request.endpoint];
    const now = this.clock.now();
    const names: (string | null)[] = [];
    const localUsers: (string | null)[] = [];
    for (const id of endpoints) {
      const { endpoint } = await endpointWithFiles(this.uow.repositories, caller, id, now);
      names.push(endpoint.snapshot.display_name);
      localUsers.push(await this.localUserOf(endpoint, caller));
    }
    const task = newTask(this.ids.uuid(), caller.primary.id, request, now, { source: names[0] ?? null, destination: names[1] ?? null }, { source: localUsers[0] ?? null, destination: localUsers[1] ?? null });
    // the task and its first event, or neither: no task is ever without its SUBMITTED event
    await this.uow.transaction(async ({ tasks }) => {
      await tasks.add(task);
      await tasks.addEvent({ taskId: task.id, code: 'SUBMITTED', description: 'submitted', details: `${task.request.type.toLowerCase()} task queued`, isError: false, time: task.requestTime });
    });
    this.submitted(task.id);
    return { task, duplicate: false };
  }

  /** The local account the caller's files are used as on a mapped collection (a refusal is the run's to meet: none named); null elsewhere. */
  private async localUserOf(endpoint: Endpoint, caller: Principal): Promise<string | null> {
    const { repositories } = this.uow;
    const host = endpoint.kind === 'shared' ? await repositories.endpoints.findById(endpoint.hostEndpointId!) : endpoint;
    const mapped = host ? await mappedAccountOf(repositories, endpoint, host, caller) : null;
    return mapped !== null && 'account' in mapped ? mapped.account : null;
  }

  async get(caller: Principal, taskId: string): Promise<TaskState> {
    const task = await this.uow.repositories.tasks.findById(taskId.toLowerCase());
    if (!task || !caller.identityIds.has(task.ownerId)) throw new TaskNotFoundError(taskId);
    return task;
  }

  async list(caller: Principal, query: TaskListRequest = {}): Promise<TaskPage> {
    const page = pageOf(query);
    const { tasks, total } = await this.uow.repositories.tasks.listForOwners([...caller.identityIds], { ...query, ...page });
    return { tasks, total, ...page };
  }

  async update(caller: Principal, taskId: string, change: { label?: string | null; deadline?: Date }): Promise<TaskState> {
    const task = updated(await this.get(caller, taskId), change, this.clock.now());
    // a task that ended since it was read keeps its label and deadline, as any finished one
    if (!(await this.uow.repositories.tasks.saveLabelAndDeadline(task))) throw labelAndDeadlineKept(task);
    return task;
  }

  /** Cancels an unfinished task (a finished one: TaskComplete). */
  async cancel(caller: Principal, taskId: string): Promise<TaskState> {
    const now = this.clock.now();
    const task = canceled(await this.get(caller, taskId), now);
    // a task that ended since it was read (its runner finished it) stays as it ended
    if (!(await this.uow.repositories.tasks.saveProgress(task))) throw alreadyFinished(await this.get(caller, taskId));
    await this.uow.repositories.tasks.addEvent({ taskId: task.id, code: 'CANCELED', description: 'canceled', details: 'canceled by its owner', isError: false, time: now });
    return task;
  }

  /**
   * The endpoint manager's view: tasks whose source or destination the caller holds
   * administrator, activity_manager or activity_monitor on, whoever submitted them.
   */
  async managedList(caller: Principal, query: TaskListRequest = {}): Promise<TaskPage> {
    const page = pageOf(query);
    const endpointIds = (await endpointsHeld(this.uow.repositories, caller, MONITOR_ROLES)).map((held) => held.endpoint.id);
    const { tasks, total } = await this.uow.repositories.tasks.listForEndpoints(endpointIds, { ...query, ...page });
    return { tasks, total, ...page };
  }

  /** A task, to those who monitor one of its endpoints (to anyone else it does not exist). */
  async managedTask(caller: Principal, taskId: string): Promise<TaskState> {
    const task = await this.uow.repositories.tasks.findById(taskId.toLowerCase());
    if (!task || (await this.sidesHeld(caller, task, MONITOR_ROLES)) === null) throw new TaskNotFoundError(taskId);
    return task;
  }

  /**
   * Cancels tasks as an administrator or activity manager of their endpoints (the hosted
   * admin_cancel): each task ends CANCELED with `canceled_by_admin` naming the side held and the
   * message. All or none: a task the caller may not cancel refuses the request. Finished ones are left as they are.
   */
  async adminCancel(caller: Principal, taskIds: readonly string[], message: string): Promise<TaskState[]> {
    if (taskIds.length === 0 || taskIds.length > MAX_PAGE) throw new BadRequestError(`Invalid task_id_list: 1 to ${MAX_PAGE} task ids`);
    const text = checkText('message', message, { max: 2048 });
    const now = this.clock.now();
    const chosen: { task: TaskState; side: 'SOURCE' | 'DESTINATION' | 'BOTH' }[] = [];
    for (const id of new Set(taskIds.map((t) => t.toLowerCase()))) {
      const task = await this.uow.repositories.tasks.findById(id);
      const side = task ? await this.sidesHeld(caller, task, TASK_MANAGERS) : null;
      if (!task || side === null) {
        if (task && (await this.sidesHeld(caller, task, MONITOR_ROLES)) !== null) throw new PermissionDeniedError(`You need the 'administrator' or 'activity_manager' role on an endpoint of task '${id}' to cancel it`);
        throw new TaskNotFoundError(id);
      }
      chosen.push({ task, side });
    }
    const ended: TaskState[] = [];
    for (const { task, side } of chosen) {
      if (isFinished(task)) continue;
      const done = canceled(task, now, { side, message: text });
      if (!(await this.uow.repositories.tasks.saveProgress(done))) continue; // it ended since it was read
      await this.uow.repositories.tasks.addEvent({ taskId: task.id, code: 'CANCELED', description: 'canceled', details: `canceled by an administrator of its ${side.toLowerCase()}: ${text}`, isError: false, time: now });
      ended.push(done);
    }
    return ended;
  }

  /** Which of a task's endpoints the caller holds one of `roles` on: SOURCE, DESTINATION, BOTH, or null. */
  private async sidesHeld(caller: Principal, task: TaskState, roles: readonly EndpointRole[]): Promise<'SOURCE' | 'DESTINATION' | 'BOTH' | null> {
    const { source, destination } = endpointsOf(task);
    const holdsOn = async (id: string) => {
      const found = await this.uow.repositories.endpoints.findWithRolesOf({ id }, caller.principalIds);
      return found !== null && effectiveRoles(found.endpoint, caller, found.assignments).some((role) => roles.includes(role));
    };
    const onSource = await holdsOn(source);
    // Stryker disable next-line ConditionalExpression: asking again about the same endpoint gives the same answer
    const onDestination = source === destination ? onSource : await holdsOn(destination);
    // a delete has one endpoint, its source
    if (onSource && onDestination) return task.request.type === 'DELETE' ? 'SOURCE' : 'BOTH';
    return onSource ? 'SOURCE' : onDestination ? 'DESTINATION' : null;
  }

  /** A task's successful transfers (once it has finished) or skipped errors, a page after the marker `after`. */
  async files(caller: Principal, taskId: string, kind: TaskFileState['kind'], after: number, limit = MAX_PAGE): Promise<{ files: TaskFileState[]; next: number | null }> {
    const task = await this.get(caller, taskId);
    if (kind === 'succeeded' && !isFinished(task)) throw new TaskInProgressError(task.id);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new BadRequestError(`Invalid limit: a whole number from 1 to ${MAX_PAGE}`);
    const files = await this.uow.repositories.tasks.listFiles(task.id, kind, after, limit + 1);
    return { files: files.slice(0, limit), next: files.length > limit ? files[limit - 1]!.seq : null };
  }

  async events(caller: Principal, taskId: string, query: { errorsOnly?: boolean; limit?: number; offset?: number } = {}): Promise<{ events: TaskEventState[]; total: number; limit: number; offset: number }> {
    const task = await this.get(caller, taskId);
    const limit = query.limit ?? 10;
    const offset = query.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new BadRequestError(`Invalid limit: a whole number from 1 to ${MAX_PAGE}`);
    if (!Number.isInteger(offset) || offset < 0) throw new BadRequestError('Invalid offset: a whole number from 0');
    const { events, total } = await this.uow.repositories.tasks.listEvents(task.id, { errorsOnly: query.errorsOnly ?? false, limit, offset });
    return { events, total, limit, offset };
  }
}
