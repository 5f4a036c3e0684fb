import { BadRequestError, isUuid, MAX_GLOB, type LabelFilter, type TaskEventState, type TaskFileState, type TaskCounters, type TaskListRequest, type TaskOrderField, type TaskState, type TaskStatus } from '@xfer/core';
import { firstValue as first } from '@xfer/server-kit';
import { integer } from './paging';

/** Times in task documents as the hosted service writes them: ISO 8601 with +00:00. */
const isoUtc = (date: Date | null) => (date === null ? null : date.toISOString().replace(/\.\d{3}Z$/, '+00:00'));

/** A task's counters as the hosted task document names them. */
function countersDocument(counters: TaskCounters): Record<string, number> {
  return {
    files: counters.files,
    directories: counters.directories,
    symlinks: counters.symlinks,
    files_skipped: counters.filesSkipped,
    files_transferred: counters.filesTransferred,
    bytes_transferred: counters.bytesTransferred,
    bytes_checksummed: counters.bytesChecksummed,
    faults: counters.faults,
    subtasks_total: counters.subtasksTotal,
    subtasks_pending: counters.subtasksPending,
    subtasks_retrying: counters.subtasksRetrying,
    subtasks_succeeded: counters.subtasksSucceeded,
    subtasks_failed: counters.subtasksFailed,
    subtasks_canceled: counters.subtasksCanceled,
    subtasks_expired: counters.subtasksExpired,
    subtasks_skipped_errors: counters.subtasksSkippedErrors,
  };
}

/** A task as the hosted task document shows it (every field of the SDK's task_list fixture). */
export function taskDocument(task: TaskState, username: string | null): Record<string, unknown> {
  const { request, counters } = task;
  const transfer = request.type === 'TRANSFER' ? request : null;
  const elapsed = ((task.completionTime ?? new Date()).getTime() - task.requestTime.getTime()) / 1000;
  return {
    DATA_TYPE: 'task',
    task_id: task.id,
    type: request.type,
    status: task.status,
    label: request.label,
    owner_id: task.ownerId,
    username,
    command: 'API 0.10',
    request_time: isoUtc(task.requestTime),
    completion_time: isoUtc(task.completionTime),
    deadline: isoUtc(task.deadline),
    source_endpoint: transfer ? transfer.source_endpoint : request.type === 'DELETE' ? request.endpoint : null,
    source_endpoint_id: transfer ? transfer.source_endpoint : request.type === 'DELETE' ? request.endpoint : null,
    source_endpoint_display_name: task.sourceDisplayName,
    destination_endpoint: transfer?.destination_endpoint ?? null,
    destination_endpoint_id: transfer?.destination_endpoint ?? null,
    destination_endpoint_display_name: transfer ? task.destinationDisplayName : null,
    // the accounts a mapped collection's files were used as (hosted: "OK" beside each named one)
    source_local_user: task.sourceLocalUser,
    source_local_user_status: task.sourceLocalUser === null ? null : 'OK',
    destination_local_user: task.destinationLocalUser,
    destination_local_user_status: task.destinationLocalUser === null ? null : 'OK',
    ...countersDocument(counters),
    effective_bytes_per_second: elapsed > 0 ? Math.round(counters.bytesTransferred / elapsed) : 0,
    fatal_error: task.fatalError,
    is_ok: task.status === 'ACTIVE' ? task.niceStatus === null || task.niceStatus === 'Queued' : null,
    is_paused: task.isPaused,
    nice_status: task.niceStatus,
    nice_status_details: null,
    nice_status_expires_in: null,
    nice_status_short_description: task.niceStatus,
    canceled_by_admin: task.canceledByAdmin,
    canceled_by_admin_message: task.canceledByAdminMessage,
    history_deleted: false,
    sync_level: transfer?.options.sync_level ?? null,
    verify_checksum: transfer?.options.verify_checksum ?? false,
    preserve_timestamp: transfer?.options.preserve_timestamp ?? false,
    encrypt_data: transfer?.options.encrypt_data ?? false,
    skip_source_errors: transfer?.options.skip_source_errors ?? false,
    fail_on_quota_errors: transfer?.options.fail_on_quota_errors ?? false,
    delete_destination_extra: transfer?.options.delete_destination_extra ?? false,
    filter_rules: transfer?.options.filter_rules?.map((rule) => ({ DATA_TYPE: 'filter_rule', ...rule })) ?? null,
    recursive_symlinks: 'ignore',
  };
}

export function eventDocument(event: TaskEventState): Record<string, unknown> {
  return { DATA_TYPE: 'event', code: event.code, description: event.description, details: event.details, is_error: event.isError, time: isoUtc(event.time) };
}

export function successfulTransferDocument(file: TaskFileState): Record<string, unknown> {
  return { DATA_TYPE: 'successful_transfer', source_path: file.sourcePath, destination_path: file.destinationPath };
}

export function skippedErrorDocument(file: TaskFileState): Record<string, unknown> {
  return {
    DATA_TYPE: 'skipped_error',
    source_path: file.sourcePath,
    destination_path: file.destinationPath,
    error_code: file.errorCode,
    error_details: file.errorDetails,
    error_time: isoUtc(file.time),
    is_directory: file.isDirectory,
    is_symlink: false,
    is_delete_destination_extra: false,
    checksum_algorithm: null,
    external_checksum: null,
  };
}

const STATUSES: TaskStatus[] = ['ACTIVE', 'INACTIVE', 'SUCCEEDED', 'FAILED'];

/** The task document's fields a list may be ordered by, and core's names of them. */
const ORDER_FIELDS: Record<string, TaskOrderField> = { task_id: 'id', type: 'type', status: 'status', label: 'label', request_time: 'requestTime', completion_time: 'completionTime', deadline: 'deadline' };

/** The most values one filter clause may list. */
const MAX_CLAUSE_VALUES = 100;

/**
 * `task_list`'s query as the hosted grammar writes it: limit/offset; `filter`, `/`-separated
 * clauses that all hold: `task_id:<ids>`, `status:<statuses>`, `type:TRANSFER,DELETE`,
 * `label:` values each `=exact`, `!exact`, `~pattern` or `!~pattern` (`*` any run, either case;
 * a bare value is exact), `request_time:` and `completion_time:` `<from>,<to>` (either empty);
 * `orderby`, fields of the task document each ASC or DESC. Anything else is refused by name.
 */
export function taskListQuery(query: Record<string, unknown>): TaskListRequest {
  const result: TaskListRequest = { limit: integer('limit', first(query.limit)), offset: integer('offset', first(query.offset)), order: taskOrder(query.orderby) };
  for (const clause of (first(query.filter) ?? '').split('/').filter((c) => c !== '')) {
    const colon = clause.indexOf(':');
    const field = colon === -1 ? clause : clause.slice(0, colon);
    const values = clause.slice(colon + 1).split(',');
    const refuse = (expected: string): never => {
      throw new BadRequestError(`Invalid filter '${clause.slice(0, 100)}': ${expected}`);
    };
    if (colon === -1 || values.length > MAX_CLAUSE_VALUES) refuse(`<field>:<values>, at most ${MAX_CLAUSE_VALUES} values`);
    const upper = values.map((v) => v.trim().toUpperCase());
    switch (field) {
      case 'task_id':
        if (!values.every((v) => isUuid(v.trim()))) refuse('task_id:<task ids>');
        result.ids = values.map((v) => v.trim().toLowerCase());
        break;
      case 'status':
        if (!upper.every((v) => (STATUSES as string[]).includes(v))) refuse('status:<ACTIVE,INACTIVE,SUCCEEDED,FAILED>');
        result.status = upper as TaskStatus[];
        break;
      case 'type':
        if (!upper.every((v) => v === 'TRANSFER' || v === 'DELETE')) refuse('type:<TRANSFER,DELETE>');
        result.type = upper as ('TRANSFER' | 'DELETE')[];
        break;
      case 'label':
        result.label = labelFilter(values, refuse);
        break;
      case 'request_time':
      case 'completion_time': {
        if (values.length !== 2) refuse(`${field}:<from>,<to> (either may be empty)`);
        const [from, to] = values.map((v) => timeBound(v, () => refuse(`${field}:<from>,<to>, each a date and time such as 2026-05-01 00:00:00`)));
        result[field === 'request_time' ? 'requested' : 'completed'] = { from: from ?? null, to: to ?? null };
        break;
      }
      default:
        refuse('task_id:, status:, type:, label:, request_time: or completion_time:');
    }
  }
  return result;
}

function labelFilter(values: readonly string[], refuse: (expected: string) => never): LabelFilter {
  const filter = { is: [] as string[], isNot: [] as string[], like: [] as string[], notLike: [] as string[] };
  for (const value of values) {
    const [kind, text] = value.startsWith('!~') ? (['notLike', value.slice(2)] as const) : value.startsWith('~') ? (['like', value.slice(1)] as const) : value.startsWith('!') ? (['isNot', value.slice(1)] as const) : (['is', value.startsWith('=') ? value.slice(1) : value] as const);
    if ([...text].length > MAX_GLOB) refuse(`label:<label or pattern> of at most ${MAX_GLOB} characters`);
    filter[kind].push(text);
  }
  return filter;
}

/** A bound of a time range: empty (open), or a date with an optional time, UTC unless it names a zone. */
function timeBound(value: string, refuse: () => never): Date | undefined {
  const text = value.trim().replace(' ', 'T');
  if (text === '') return undefined;
  const zoned = /([zZ]|[+-]\d{2}:?\d{2})$/.test(text) || !text.includes('T') ? text : `${text}Z`;
  const time = Date.parse(zoned);
  return Number.isNaN(time) ? refuse() : new Date(time);
}

/** `orderby`: `field [ASC|DESC]`, comma-separated or one per parameter. */
function taskOrder(orderby: unknown): TaskListRequest['order'] {
  const parts = (Array.isArray(orderby) ? orderby : orderby === undefined ? [] : [orderby]).flatMap((item) => String(item).split(',')).filter((part) => part.trim() !== '');
  return parts.map((part) => {
    const [field = '', direction = 'ASC', ...rest] = part.trim().split(/\s+/);
    const upper = direction.toUpperCase();
    const known = ORDER_FIELDS[field];
    if (known === undefined || !Object.hasOwn(ORDER_FIELDS, field) || rest.length > 0 || (upper !== 'ASC' && upper !== 'DESC')) {
      throw new BadRequestError(`Invalid orderby '${part.trim().slice(0, 100)}': a field (${Object.keys(ORDER_FIELDS).join(', ')}) and ASC or DESC`);
    }
    return { field: known, descending: upper === 'DESC' };
  });
}

/** The marker of a file list: the seq after which the next page starts. */
export function marker(query: Record<string, unknown>): number {
  return integer('marker', first(query.marker)) ?? 0;
}
