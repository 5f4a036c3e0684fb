import { BadRequestError, type TaskEventState, type TaskFileState, type TaskState, type TaskStatus } from '@xfer/core';
import { firstValue as first } from '@xfer/server-kit';
import { integer } from './paging';

/** Times in task documents as the hosted service writes them: ISO 8601 with +00:00. */
const isoUtc = (date: Date | null) => (date === null ? null : date.toISOString().replace(/\.\d{3}Z$/, '+00:00'));

/** A task as the hosted task document shows it (every field of the SDK's task_list fixture). */
export function taskDocument(task: TaskState, username: string | null): Record<string, unknown> {
  const { request, counters } = task;
  const transfer = request.type === 'TRANSFER' ? request : null;
  const elapsed = ((task.completion_time ?? new Date()).getTime() - task.request_time.getTime()) / 1000;
  return {
    DATA_TYPE: 'task',
    task_id: task.id,
    type: request.type,
    status: task.status,
    label: request.label,
    owner_id: task.owner_id,
    username,
    command: 'API 0.10',
    request_time: isoUtc(task.request_time),
    completion_time: isoUtc(task.completion_time),
    deadline: isoUtc(task.deadline),
    source_endpoint: transfer ? transfer.source_endpoint : request.type === 'DELETE' ? request.endpoint : null,
    source_endpoint_id: transfer ? transfer.source_endpoint : request.type === 'DELETE' ? request.endpoint : null,
    source_endpoint_display_name: task.source_display_name,
    destination_endpoint: transfer?.destination_endpoint ?? null,
    destination_endpoint_id: transfer?.destination_endpoint ?? null,
    destination_endpoint_display_name: transfer ? task.destination_display_name : null,
    ...counters,
    effective_bytes_per_second: elapsed > 0 ? Math.round(counters.bytes_transferred / elapsed) : 0,
    fatal_error: task.fatal_error,
    is_ok: task.status === 'ACTIVE' ? task.nice_status === null || task.nice_status === 'Queued' : null,
    is_paused: task.is_paused,
    nice_status: task.nice_status,
    nice_status_details: null,
    nice_status_expires_in: null,
    nice_status_short_description: task.nice_status,
    canceled_by_admin: task.canceled_by_admin,
    canceled_by_admin_message: task.canceled_by_admin_message,
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
  return { DATA_TYPE: 'event', code: event.code, description: event.description, details: event.details, is_error: event.is_error, time: isoUtc(event.time) };
}

export function successfulTransferDocument(file: TaskFileState): Record<string, unknown> {
  return { DATA_TYPE: 'successful_transfer', source_path: file.source_path, destination_path: file.destination_path };
}

export function skippedErrorDocument(file: TaskFileState): Record<string, unknown> {
  return {
    DATA_TYPE: 'skipped_error',
    source_path: file.source_path,
    destination_path: file.destination_path,
    error_code: file.error_code,
    error_details: file.error_details,
    error_time: isoUtc(file.time),
    is_directory: file.is_directory,
    is_symlink: false,
    is_delete_destination_extra: false,
    checksum_algorithm: null,
    external_checksum: null,
  };
}

const STATUSES: TaskStatus[] = ['ACTIVE', 'INACTIVE', 'SUCCEEDED', 'FAILED'];

/**
 * `task_list`'s query: limit/offset, and the filter clauses xfer answers (`status:`, `type:`,
 * `/`-separated); any other clause is refused by name rather than ignored.
 */
export function taskListQuery(query: Record<string, unknown>): { status?: TaskStatus[]; type?: ('TRANSFER' | 'DELETE')[]; limit?: number; offset?: number } {
  const result: ReturnType<typeof taskListQuery> = { limit: integer('limit', first(query.limit)), offset: integer('offset', first(query.offset)) };
  const filter = first(query.filter);
  for (const clause of (filter ?? '').split('/').filter((c) => c !== '')) {
    const [field = '', values = ''] = clause.split(':', 2);
    const list = values.split(',').map((v) => v.trim().toUpperCase());
    if (field === 'status' && list.every((v) => (STATUSES as string[]).includes(v))) result.status = list as TaskStatus[];
    else if (field === 'type' && list.every((v) => v === 'TRANSFER' || v === 'DELETE')) result.type = list as ('TRANSFER' | 'DELETE')[];
    else throw new BadRequestError(`Invalid filter '${clause.slice(0, 100)}': status:<ACTIVE,INACTIVE,SUCCEEDED,FAILED> or type:<TRANSFER,DELETE>`);
  }
  return result;
}

/** The marker of a file list: the seq after which the next page starts. */
export function marker(query: Record<string, unknown>): number {
  return integer('marker', first(query.marker)) ?? 0;
}
