import {
  BadRequestError,
  MAX_ITEMS,
  type ChecksumName,
  type DeleteOptions,
  type DeleteRequest,
  type FilterRule,
  type TaskRequest,
  type SyncLevel,
  type TransferItem,
  type TransferOptions,
  type TransferRequest,
} from '@xfer/core';

/**
 * The hosted TransferData and DeleteData documents (the SDK's and the CLI's) to typed task
 * requests: every option honoured or refused by name, never ignored. Shapes and names are checked
 * here; the domain's rules once, at submit, their refusals named as the document names its fields
 * (fieldNames.ts).
 */
const SYNC_NAMES: Record<string, SyncLevel> = { exists: 0, size: 1, mtime: 2, checksum: 3 };

/** Notifications are the hosted service's e-mails: accepted, and xfer sends none (it has no mail). */
const ACCEPTED_AND_UNUSED = ['notify_on_succeeded', 'notify_on_failed', 'notify_on_inactive'];

type Body = Record<string, unknown>;

function object(value: unknown, field: string): Body {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadRequestError(`Invalid ${field}: a JSON object`);
  return value as Body;
}

function refuseUnknown(body: Body, known: readonly string[], where: string): void {
  const unknown = Object.keys(body).find((key) => !known.includes(key));
  if (unknown !== undefined) throw new BadRequestError(`Invalid ${where === '' ? '' : `${where}.`}${unknown.slice(0, 100)}: not a field of this document`);
}

function flag(body: Body, field: string, fallback: boolean): boolean {
  const value = body[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw new BadRequestError(`Invalid ${field}: true or false`);
  return value;
}

function uuidOf(body: Body, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw new BadRequestError(`Invalid ${field}: an endpoint id (UUID)`);
  return value.toLowerCase();
}

function pathOf(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new BadRequestError(`Invalid ${field}: a path`);
  return value;
}

type Common = Pick<TaskRequest, 'submission_id' | 'label' | 'deadline'>;

function common(body: Body, dataType: string): Common {
  if (body.DATA_TYPE !== undefined && body.DATA_TYPE !== dataType) throw new BadRequestError(`Invalid DATA_TYPE: '${dataType}'`);
  const submission = body.submission_id;
  if (typeof submission !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(submission)) {
    throw new BadRequestError('Invalid submission_id: the value of GET /submission_id');
  }
  let label: string | null = null;
  if (body.label !== undefined && body.label !== null) {
    if (typeof body.label !== 'string') throw new BadRequestError('Invalid label: text');
    label = body.label;
  }
  let deadline: Date | null = null;
  if (body.deadline !== undefined && body.deadline !== null) {
    // a date alone is midnight UTC (Date.parse reads date-only ISO forms as UTC); a space may stand for the T
    const parsed = typeof body.deadline === 'string' ? Date.parse(body.deadline.trim().replace(' ', 'T')) : Number.NaN;
    if (!Number.isFinite(parsed)) throw new BadRequestError('Invalid deadline: an ISO 8601 date and time');
    deadline = new Date(parsed);
  }
  return { submission_id: submission.toLowerCase(), label, deadline };
}

/** The items, or none (the domain's rule refuses an empty task with the hosted service's own code). */
function itemsOf(body: Body): Body[] {
  const data = body.DATA ?? [];
  if (!Array.isArray(data)) throw new BadRequestError('Invalid DATA: a list of items');
  // a list far past the most a task may carry is refused before each item is read
  if (data.length > MAX_ITEMS) throw new BadRequestError(`Invalid DATA: at most ${MAX_ITEMS} items`);
  return data.map((item, i) => object(item, `DATA[${i}]`));
}

function checksumName(value: unknown, field: string): ChecksumName | null {
  if (value === undefined || value === null) return null;
  const name = typeof value === 'string' ? value.toLowerCase() : '';
  if (name === 'md5' || name === 'sha256') return name;
  throw new BadRequestError(`Invalid ${field}: MD5 or SHA256 (the algorithms xfer computes)`);
}

function filterRules(value: unknown): FilterRule[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw new BadRequestError('Invalid filter_rules: a list of filter_rule documents');
  return value.map((raw, i) => {
    const rule = object(raw, `filter_rules[${i}]`);
    refuseUnknown(rule, ['DATA_TYPE', 'method', 'name', 'type'], `filter_rules[${i}]`);
    const method = rule.method ?? 'exclude';
    if (method !== 'include' && method !== 'exclude') throw new BadRequestError(`Invalid filter_rules[${i}].method: include or exclude`);
    if (typeof rule.name !== 'string') throw new BadRequestError(`Invalid filter_rules[${i}].name: a name pattern (*, ?, [...]) without /`);
    const type = rule.type ?? null;
    if (type !== null && type !== 'file' && type !== 'dir') throw new BadRequestError(`Invalid filter_rules[${i}].type: file or dir`);
    return { method, name: rule.name, type };
  });
}

const TRANSFER_FIELDS = [
  'DATA_TYPE', 'DATA', 'submission_id', 'label', 'deadline', 'source_endpoint', 'destination_endpoint', 'sync_level', 'verify_checksum', 'preserve_timestamp',
  'encrypt_data', 'skip_source_errors', 'fail_on_quota_errors', 'delete_destination_extra', 'filter_rules', 'recursive_symlinks', 'source_local_user', 'destination_local_user',
  ...ACCEPTED_AND_UNUSED,
];

/** A TransferData document, checked. */
export function decodeTransferRequest(raw: unknown): TransferRequest {
  const body = object(raw, 'body');
  refuseUnknown(body, TRANSFER_FIELDS, '');
  const base = common(body, 'transfer');
  const source = uuidOf(body, 'source_endpoint');
  const destination = uuidOf(body, 'destination_endpoint');
  if (body.recursive_symlinks !== undefined && body.recursive_symlinks !== null && body.recursive_symlinks !== 'ignore') {
    throw new BadRequestError("Invalid recursive_symlinks: 'ignore' (xfer never follows a link in a recursive item)");
  }
  for (const field of ['source_local_user', 'destination_local_user']) {
    if (body[field] !== undefined && body[field] !== null) throw new BadRequestError(`Invalid ${field}: xfer's storage has no local users to map to`);
  }
  let sync: SyncLevel | null = null;
  if (body.sync_level !== undefined && body.sync_level !== null) {
    const level = typeof body.sync_level === 'string' ? SYNC_NAMES[body.sync_level] : body.sync_level;
    if (level !== 0 && level !== 1 && level !== 2 && level !== 3) throw new BadRequestError('Invalid sync_level: 0-3, or exists, size, mtime, checksum');
    sync = level;
  }
  const options: TransferOptions = {
    sync_level: sync,
    verify_checksum: flag(body, 'verify_checksum', false),
    preserve_timestamp: flag(body, 'preserve_timestamp', false),
    encrypt_data: flag(body, 'encrypt_data', false),
    skip_source_errors: flag(body, 'skip_source_errors', false),
    fail_on_quota_errors: flag(body, 'fail_on_quota_errors', false),
    delete_destination_extra: flag(body, 'delete_destination_extra', false),
    filter_rules: filterRules(body.filter_rules),
  };
  // Stryker disable next-line BooleanLiteral: the fallback of a flag read only to check its type is never used
  for (const field of ACCEPTED_AND_UNUSED) flag(body, field, false);
  const items = itemsOf(body).map((item, i): TransferItem => {
    const at = `DATA[${i}]`;
    refuseUnknown(item, ['DATA_TYPE', 'source_path', 'destination_path', 'recursive', 'external_checksum', 'checksum_algorithm'], at);
    if (item.DATA_TYPE !== undefined && item.DATA_TYPE !== 'transfer_item') throw new BadRequestError(`Invalid ${at}.DATA_TYPE: 'transfer_item'`);
    const recursive = item.recursive === undefined || item.recursive === null ? null : item.recursive;
    if (recursive !== null && typeof recursive !== 'boolean') throw new BadRequestError(`Invalid ${at}.recursive: true or false`);
    let external: string | null = null;
    if (item.external_checksum !== undefined && item.external_checksum !== null) {
      if (typeof item.external_checksum !== 'string') throw new BadRequestError(`Invalid ${at}.external_checksum: a hex MD5 or SHA256 digest`);
      external = item.external_checksum.toLowerCase();
    }
    const algorithm = checksumName(item.checksum_algorithm, `${at}.checksum_algorithm`);
    return { source_path: pathOf(item.source_path, `${at}.source_path`), destination_path: pathOf(item.destination_path, `${at}.destination_path`), recursive, external_checksum: external, checksum_algorithm: algorithm };
  });
  return { ...base, type: 'TRANSFER', source_endpoint: source, destination_endpoint: destination, items, options };
}

/** A DeleteData document, checked. */
export function decodeDeleteRequest(raw: unknown): DeleteRequest {
  const body = object(raw, 'body');
  refuseUnknown(body, ['DATA_TYPE', 'DATA', 'submission_id', 'label', 'deadline', 'endpoint', 'recursive', 'ignore_missing', 'interpret_globs', 'local_user', ...ACCEPTED_AND_UNUSED], '');
  const base = common(body, 'delete');
  const endpoint = uuidOf(body, 'endpoint');
  if (body.local_user !== undefined && body.local_user !== null) throw new BadRequestError("Invalid local_user: xfer's storage has no local users to map to");
  // Stryker disable next-line BooleanLiteral: the fallback of a flag read only to check its type is never used
  for (const field of ACCEPTED_AND_UNUSED) flag(body, field, false);
  const paths = itemsOf(body).map((item, i) => {
    refuseUnknown(item, ['DATA_TYPE', 'path'], `DATA[${i}]`);
    if (item.DATA_TYPE !== undefined && item.DATA_TYPE !== 'delete_item') throw new BadRequestError(`Invalid DATA[${i}].DATA_TYPE: 'delete_item'`);
    return pathOf(item.path, `DATA[${i}].path`);
  });
  const options: DeleteOptions = { recursive: flag(body, 'recursive', false), ignore_missing: flag(body, 'ignore_missing', false), interpret_globs: flag(body, 'interpret_globs', false) };
  return { ...base, type: 'DELETE', endpoint, paths, options };
}

