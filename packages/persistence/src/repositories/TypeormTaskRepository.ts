import { endpointsOf, UNFINISHED, type TaskCounters, type TaskEventState, type TaskFileState, type TaskFilter, type TaskOrderField, type TaskQuery, type TaskRepository, type TaskRequest, type TaskState, type TaskStatus } from '@xfer/core';
import { In, type EntityManager } from 'typeorm';
import { TaskEventSchema, TaskFileSchema, TaskSchema, type TaskEventRecord, type TaskFileRecord, type TaskRecord } from '../records/schemas';
import { insertRowsSql, type Sql } from '../engine/Sql';
import { bool, fromTime, fromTimeOrNull, toTime, toTimeOrNull, uniqueViolation } from './mapping';

/** A request as JSON, its deadline as ISO text. */
const requestToJson = (request: TaskRequest): string => JSON.stringify(request);
const requestFromJson = (json: string): TaskRequest => {
  const parsed = JSON.parse(json) as TaskRequest & { deadline: string | null };
  return { ...parsed, deadline: parsed.deadline === null ? null : new Date(parsed.deadline) };
};

/**
 * The counters as stored JSON, under the names they were first written with (the hosted
 * document's), whatever core calls them; written out as literals both ways (a queue read parses a
 * thousand tasks' counters).
 */
const countersToJson = (c: TaskCounters): string =>
  JSON.stringify({
    files: c.files,
    directories: c.directories,
    symlinks: c.symlinks,
    files_skipped: c.filesSkipped,
    files_transferred: c.filesTransferred,
    bytes_transferred: c.bytesTransferred,
    bytes_checksummed: c.bytesChecksummed,
    faults: c.faults,
    subtasks_total: c.subtasksTotal,
    subtasks_pending: c.subtasksPending,
    subtasks_retrying: c.subtasksRetrying,
    subtasks_succeeded: c.subtasksSucceeded,
    subtasks_failed: c.subtasksFailed,
    subtasks_canceled: c.subtasksCanceled,
    subtasks_expired: c.subtasksExpired,
    subtasks_skipped_errors: c.subtasksSkippedErrors,
  });

const countersFromJson = (json: string): TaskCounters => {
  const c = JSON.parse(json) as Partial<Record<string, number>>;
  return {
    files: c.files ?? 0,
    directories: c.directories ?? 0,
    symlinks: c.symlinks ?? 0,
    filesSkipped: c.files_skipped ?? 0,
    filesTransferred: c.files_transferred ?? 0,
    bytesTransferred: c.bytes_transferred ?? 0,
    bytesChecksummed: c.bytes_checksummed ?? 0,
    faults: c.faults ?? 0,
    subtasksTotal: c.subtasks_total ?? 0,
    subtasksPending: c.subtasks_pending ?? 0,
    subtasksRetrying: c.subtasks_retrying ?? 0,
    subtasksSucceeded: c.subtasks_succeeded ?? 0,
    subtasksFailed: c.subtasks_failed ?? 0,
    subtasksCanceled: c.subtasks_canceled ?? 0,
    subtasksExpired: c.subtasks_expired ?? 0,
    subtasksSkippedErrors: c.subtasks_skipped_errors ?? 0,
  };
};

/** The columns of what running or ending a task changes (core's PROGRESS_FIELDS). */
type ProgressRecord = Pick<TaskRecord, 'status' | 'nice_status' | 'fatal_error' | 'completion_time' | 'counters' | 'is_paused' | 'canceled_by_admin' | 'canceled_by_admin_message'>;

const progressToRecord = (task: TaskState): ProgressRecord => ({
  status: task.status,
  nice_status: task.niceStatus,
  fatal_error: task.fatalError === null ? null : JSON.stringify(task.fatalError),
  completion_time: toTimeOrNull(task.completionTime),
  counters: countersToJson(task.counters),
  is_paused: task.isPaused,
  canceled_by_admin: task.canceledByAdmin,
  canceled_by_admin_message: task.canceledByAdminMessage,
});

const toRecord = (task: TaskState): TaskRecord => ({
  ...progressToRecord(task),
  id: task.id,
  owner_id: task.ownerId,
  submission_id: task.request.submission_id,
  type: task.request.type,
  label: task.request.label,
  source_endpoint_id: endpointsOf(task).source,
  destination_endpoint_id: endpointsOf(task).destination,
  request: requestToJson(task.request),
  source_display_name: task.sourceDisplayName,
  destination_display_name: task.destinationDisplayName,
  source_local_user: task.sourceLocalUser,
  destination_local_user: task.destinationLocalUser,
  request_time: toTime(task.requestTime),
  deadline: toTime(task.deadline),
});

const fromRecord = (r: TaskRecord): TaskState => ({
  id: r.id,
  ownerId: r.owner_id,
  request: requestFromJson(r.request),
  sourceDisplayName: r.source_display_name,
  destinationDisplayName: r.destination_display_name,
  sourceLocalUser: r.source_local_user,
  destinationLocalUser: r.destination_local_user,
  status: r.status as TaskStatus,
  niceStatus: r.nice_status,
  fatalError: r.fatal_error === null ? null : (JSON.parse(r.fatal_error) as TaskState['fatalError']),
  requestTime: fromTime(r.request_time),
  completionTime: fromTimeOrNull(r.completion_time),
  deadline: fromTime(r.deadline),
  counters: countersFromJson(r.counters),
  canceledByAdmin: r.canceled_by_admin as TaskState['canceledByAdmin'],
  canceledByAdminMessage: r.canceled_by_admin_message,
  isPaused: bool(r.is_paused),
});

/** The column of each field a task list is ordered by. */
const ORDER_COLUMNS: Record<TaskOrderField, string> = { id: 'id', type: 'type', status: 'status', label: 'label', requestTime: 'request_time', completionTime: 'completion_time', deadline: 'deadline' };

/** A LIKE pattern (escaped with \\) of a label pattern: `*` any run, everything else itself. */
const likePattern = (glob: string): string => glob.toLowerCase().replace(/[\\%_]/g, '\\$&').replace(/\*/g, '%');

/** The conditions of a task filter (matchesTaskFilter's rule) and their parameters. */
function taskFilterSql(filter: TaskFilter, sql: Sql): { conditions: string[]; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (condition: string, ...values: unknown[]) => {
    conditions.push(condition);
    params.push(...values);
  };
  if (filter.ids) add(`id IN (${sql.list(filter.ids)})`, ...filter.ids);
  if (filter.status) add(`status IN (${sql.list(filter.status)})`, ...filter.status);
  if (filter.type) add(`type IN (${sql.list(filter.type)})`, ...filter.type);
  if (filter.label) {
    const { is, isNot, like, notLike } = filter.label;
    const likes = (patterns: readonly string[]) => patterns.map(() => "LOWER(label) LIKE ? ESCAPE '\\'").join(' OR ');
    const wanted = [...(is.length > 0 ? [`label IN (${sql.list(is)})`] : []), ...(like.length > 0 ? [likes(like)] : [])];
    if (wanted.length > 0) add(`label IS NOT NULL AND (${wanted.join(' OR ')})`, ...is, ...like.map(likePattern));
    if (isNot.length > 0) add(`(label IS NULL OR label NOT IN (${sql.list(isNot)}))`, ...isNot);
    if (notLike.length > 0) add(`(label IS NULL OR NOT (${likes(notLike)}))`, ...notLike.map(likePattern));
  }
  for (const [column, range] of [['request_time', filter.requested], ['completion_time', filter.completed]] as const) {
    if (range === undefined) continue;
    add(`${column} IS NOT NULL`);
    if (range.from !== null) add(`${column} >= ?`, toTime(range.from));
    if (range.to !== null) add(`${column} <= ?`, toTime(range.to));
  }
  return { conditions, params };
}

/** Tries at an event's number when others take it first. */
const EVENT_ATTEMPTS = 5;

/** Rows of task_files in one INSERT: 9,000 parameters, under SQLite's 32,766 and Postgres's 65,535. */
const FILE_ROWS_AT_ONCE = 1000;
const FILE_COLUMNS = ['task_id', 'kind', 'seq', 'source_path', 'destination_path', 'error_code', 'error_details', 'is_directory', 'time'] as const satisfies readonly (keyof TaskFileRecord)[];

export class TypeormTaskRepository implements TaskRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly sql: Sql,
  ) {}

  async add(task: TaskState) {
    await this.manager.insert(TaskSchema, toRecord(task));
  }

  async findById(id: string) {
    // raw: a polled task is read many times a second, and TypeORM's query building was most of a read
    const [r] = await this.sql.rows<TaskRecord>('SELECT * FROM tasks WHERE id = ?', [id]);
    return r ? fromRecord(r) : null;
  }

  async findBySubmission(ownerIds: readonly string[], submissionId: string) {
    if (ownerIds.length === 0) return null;
    const r = await this.manager.findOneBy(TaskSchema, { owner_id: In([...ownerIds]), submission_id: submissionId });
    return r ? fromRecord(r) : null;
  }

  async saveProgress(task: TaskState) {
    // the progress columns only: the request (every item, as JSON) is not written again each time
    return this.changeUnfinished(task.id, progressToRecord(task));
  }

  async saveLabelAndDeadline(task: TaskState) {
    return this.changeUnfinished(task.id, { label: task.request.label, request: requestToJson(task.request), deadline: toTime(task.deadline) });
  }

  /** One UPDATE that finds the row only while the task is unfinished. */
  private async changeUnfinished(id: string, fields: Partial<TaskRecord>): Promise<boolean> {
    const result = await this.manager.update(TaskSchema, { id, status: In([...UNFINISHED]) }, fields);
    return result.affected === 1;
  }

  /** On every endpoint read and search (`in_use`): raw SQL, from the read cache while nothing changed (TypeORM's find cost more than the search's own reads). */
  async activeEndpointIds(ownerIds: readonly string[]) {
    if (ownerIds.length === 0) return [];
    const rows = await this.sql.cachedRows<{ source_endpoint_id: string; destination_endpoint_id: string }>(
      `SELECT source_endpoint_id, destination_endpoint_id FROM tasks WHERE status = 'ACTIVE' AND owner_id IN (${this.sql.list(ownerIds)})`,
      ownerIds,
    );
    return [...new Set(rows.flatMap((r) => [r.source_endpoint_id, r.destination_endpoint_id]))];
  }

  async listActive(limit: number, perOwner = limit) {
    const records = await this.sql.rows<TaskRecord>(
      `SELECT * FROM (SELECT t.*, ROW_NUMBER() OVER (PARTITION BY owner_id, type ORDER BY request_time, id) AS owner_rank FROM tasks t WHERE status = 'ACTIVE') ranked
       WHERE owner_rank <= ? ORDER BY request_time, id LIMIT ?`,
      [perOwner, limit],
    );
    return records.map(fromRecord);
  }

  async listForEndpoints(endpointIds: readonly string[], query: TaskQuery) {
    if (endpointIds.length === 0) return { tasks: [], total: 0 };
    const list = this.sql.list(endpointIds);
    return this.listWhere(`(source_endpoint_id IN (${list}) OR destination_endpoint_id IN (${list}))`, [...endpointIds, ...endpointIds], query);
  }

  async listForOwners(ownerIds: readonly string[], query: TaskQuery) {
    if (ownerIds.length === 0) return { tasks: [], total: 0 };
    return this.listWhere(`owner_id IN (${this.sql.list(ownerIds)})`, ownerIds, query);
  }

  /** A page of the tasks `where` selects and the query's filter keeps, in its order (matchesTaskFilter and compareTasks, in SQL). */
  private async listWhere(where: string, params: readonly unknown[], query: TaskQuery): Promise<{ tasks: TaskState[]; total: number }> {
    const filter = taskFilterSql(query, this.sql);
    const condition = [where, ...filter.conditions].join(' AND ');
    const all = [...params, ...filter.params];
    const order = [...(query.order ?? []), { field: 'requestTime' as const, descending: true }, { field: 'id' as const, descending: true }]
      .map(({ field, descending }) => {
        const column = `${ORDER_COLUMNS[field]}${field === 'label' ? this.sql.byCodePoint : ''}`;
        // a missing value first, as compareTasks orders it, on both databases
        return `(${ORDER_COLUMNS[field]} IS NULL) ${descending ? 'ASC' : 'DESC'}, ${column} ${descending ? 'DESC' : 'ASC'}`;
      })
      .join(', ');
    const records = await this.sql.adHocRows<TaskRecord>(`SELECT * FROM tasks WHERE ${condition} ORDER BY ${order} LIMIT ? OFFSET ?`, [...all, query.limit, query.offset]);
    const [count] = await this.sql.adHocRows<{ n: number | string }>(`SELECT COUNT(*) AS n FROM tasks WHERE ${condition}`, all);
    return { tasks: records.map(fromRecord), total: Number(count?.n ?? 0) };
  }

  /**
   * The task's next number: its runner and its owner (a cancel) may add an event at the same
   * moment, so a number taken meanwhile is read again rather than refused.
   */
  async addEvent(event: Omit<TaskEventState, 'seq'>) {
    for (let attempt = 1; ; attempt += 1) {
      const last = (await this.manager.createQueryBuilder(TaskEventSchema, 'e').select('MAX(e.seq)', 'seq').where('e.task_id = :id', { id: event.taskId }).getRawOne()) as { seq: number | string | null } | undefined;
      const seq = Number(last?.seq ?? 0) + 1;
      try {
        const record: TaskEventRecord = { task_id: event.taskId, seq, code: event.code, description: event.description, details: event.details, is_error: event.isError, time: toTime(event.time) };
        await this.manager.insert(TaskEventSchema, record);
        return { ...event, seq };
      } catch (error) {
        if (attempt >= EVENT_ATTEMPTS || uniqueViolation(error) === null) throw error;
      }
    }
  }

  async listEvents(taskId: string, query: { errorsOnly: boolean; limit: number; offset: number }) {
    const where = { task_id: taskId, ...(query.errorsOnly && { is_error: true }) };
    const [records, total] = await this.manager.findAndCount(TaskEventSchema, { where, order: { seq: 'DESC' }, skip: query.offset, take: query.limit });
    return { events: records.map((r): TaskEventState => ({ taskId: r.task_id, seq: r.seq, code: r.code, description: r.description, details: r.details, isError: bool(r.is_error), time: fromTime(r.time) })), total };
  }

  async addFiles(files: readonly Omit<TaskFileState, 'seq'>[]) {
    const next = new Map<string, number>();
    // FILE_ROWS_AT_ONCE rows a statement, their values side by side in FILE_COLUMNS' order, built
    // in place: per-row arrays flattened after cost more than the insert (a copy batch's 1,000)
    let params: unknown[] = [];
    // a batch's records share one time: written once
    let lastDate: Date | null = null;
    let lastText = '';
    for (const file of files) {
      const key = `${file.taskId} ${file.kind}`;
      let seq = next.get(key);
      if (seq === undefined) {
        const [last] = await this.sql.rows<{ seq: number | string | null }>('SELECT MAX(seq) AS seq FROM task_files WHERE task_id = ? AND kind = ?', [file.taskId, file.kind]);
        seq = Number(last?.seq ?? 0);
      }
      next.set(key, seq + 1);
      if (file.time !== lastDate) [lastDate, lastText] = [file.time, toTime(file.time)];
      params.push(file.taskId, file.kind, seq + 1, file.sourcePath, file.destinationPath, file.errorCode, file.errorDetails, file.isDirectory, lastText);
      if (params.length === FILE_ROWS_AT_ONCE * FILE_COLUMNS.length) {
        await this.sql.run(insertRowsSql('task_files', FILE_COLUMNS, FILE_ROWS_AT_ONCE), params);
        params = [];
      }
    }
    if (params.length > 0) await this.sql.run(insertRowsSql('task_files', FILE_COLUMNS, params.length / FILE_COLUMNS.length), params);
  }

  async listFiles(taskId: string, kind: TaskFileState['kind'], after: number, limit: number) {
    const records = await this.manager.createQueryBuilder(TaskFileSchema, 'f').where('f.task_id = :taskId AND f.kind = :kind AND f.seq > :after', { taskId, kind, after }).orderBy('f.seq', 'ASC').limit(limit).getMany();
    return records.map(
      (r): TaskFileState => ({ taskId: r.task_id, kind: r.kind, seq: r.seq, sourcePath: r.source_path, destinationPath: r.destination_path, errorCode: r.error_code, errorDetails: r.error_details, isDirectory: bool(r.is_directory), time: fromTime(r.time) }),
    );
  }

  async clearFiles(taskId: string) {
    await this.manager.delete(TaskFileSchema, { task_id: taskId });
  }
}
