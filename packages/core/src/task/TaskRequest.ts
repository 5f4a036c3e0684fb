import { BadRequestError, INVALID_PATH, InvalidFieldError } from '../shared/errors';
import { isWithin, resolveStoragePath } from '../storage/paths';
import { Glob, MAX_GLOB } from '../shared/glob';
import { checkText } from '../shared/text';

/**
 * What a transfer or delete submission asks for, and the rules it must keep. The apps decode their
 * documents into these types (the API: TransferData and DeleteData); checkTaskRequest holds the rules.
 */
export type SyncLevel = 0 | 1 | 2 | 3;
export type ChecksumName = 'md5' | 'sha256';

export interface FilterRule {
  method: 'include' | 'exclude';
  name: string;
  type: 'file' | 'dir' | null;
}

export interface TransferItem {
  source_path: string;
  destination_path: string;
  /** null: the source's type decides. */
  recursive: boolean | null;
  external_checksum: string | null;
  checksum_algorithm: ChecksumName | null;
}

export interface TransferOptions {
  sync_level: SyncLevel | null;
  verify_checksum: boolean;
  preserve_timestamp: boolean;
  encrypt_data: boolean;
  skip_source_errors: boolean;
  fail_on_quota_errors: boolean;
  delete_destination_extra: boolean;
  filter_rules: FilterRule[] | null;
}

export interface DeleteOptions {
  recursive: boolean;
  ignore_missing: boolean;
  interpret_globs: boolean;
}

interface Common {
  submission_id: string;
  label: string | null;
  /** null: the default deadline, from the submit's time. */
  deadline: Date | null;
}

export type TransferRequest = Common & { type: 'TRANSFER'; source_endpoint: string; destination_endpoint: string; items: TransferItem[]; options: TransferOptions };
export type DeleteRequest = Common & { type: 'DELETE'; endpoint: string; paths: string[]; options: DeleteOptions };
export type TaskRequest = TransferRequest | DeleteRequest;

/** No items: the hosted service's own code for it. */
export class NoTransferItemsError extends BadRequestError {
  override readonly code = 'ClientError.BadRequest.NoTransferItems';
}

/** The most items one submission may carry. */
export const MAX_ITEMS = 10_000;

const DIGEST = /^[0-9a-f]{32}$|^[0-9a-f]{64}$/;

function checkPath(field: string, path: string): void {
  if (path === '') throw new InvalidFieldError(field, 'a path');
  checkText(field, path, { max: 4096, singleLine: true });
  // one in the home is resolved where the task runs (the home is the endpoint's); any other is checked now
  if (path.startsWith('~/') || path.startsWith('/~/')) return;
  try {
    // Stryker disable next-line StringLiteral: paths in the home returned above, so the home is never used
    resolveStoragePath(path, '/');
  } catch (error) {
    // Stryker disable next-line Regex: the message always begins so; only the quoted path's presence varies
    throw new InvalidFieldError(field, (error as Error).message.replace(/^Invalid path( '.*?')?: /s, ''), INVALID_PATH);
  }
}

/** Whether `path` lies strictly inside `outer`, both absolute (a path in the home is checked where the task runs). */
function isInside(path: string, outer: string): boolean {
  if (path.includes('~') || outer.includes('~')) return false;
  const [inner, around] = [resolveStoragePath(path, '/'), resolveStoragePath(outer, '/')];
  return inner !== around && isWithin(inner, around);
}

/**
 * The rules of a submission, whoever decoded it: a label of one trimmed line, 1 to MAX_ITEMS items,
 * paths of one line, a file's checksum only on a file, filter rules by name, extras deleted only
 * under a recursive item. Refusals name core's fields (`items[3].source_path`, `paths[0]`): an app
 * names them as its document does.
 */
export function checkTaskRequest(request: TaskRequest): void {
  if (request.label !== null) {
    checkText('label', request.label, { max: 128, singleLine: true });
    if (request.label.trim() !== request.label) throw new InvalidFieldError('label', 'must not begin or end with spaces');
  }
  const [listed, count] = request.type === 'TRANSFER' ? ['items', request.items.length] : ['paths', request.paths.length];
  if (count === 0) throw new NoTransferItemsError('A task requires at least one item');
  if (count > MAX_ITEMS) throw new InvalidFieldError(listed, `at most ${MAX_ITEMS} items`);
  if (request.type === 'DELETE') {
    request.paths.forEach((path, i) => checkPath(`paths[${i}]`, path));
    return;
  }
  const oneEndpoint = request.source_endpoint.toLowerCase() === request.destination_endpoint.toLowerCase();
  request.items.forEach((item, i) => checkItem(item, `items[${i}]`, oneEndpoint));
  (request.options.filter_rules ?? []).forEach((rule, i) => {
    if (rule.name === '' || rule.name.includes('/') || [...rule.name].length > MAX_GLOB) throw new InvalidFieldError(`filter_rules[${i}].name`, `a name pattern (*, ?, [...]) without /, of at most ${MAX_GLOB} characters`);
  });
  if (request.options.delete_destination_extra && !request.items.some((item) => item.recursive !== false)) {
    throw new InvalidFieldError('delete_destination_extra', 'only with a recursive item');
  }
}

/** An item's paths and checksum; `oneEndpoint`: its source and destination are on the same endpoint. */
function checkItem(item: TransferItem, field: string, oneEndpoint: boolean): void {
  checkPath(`${field}.source_path`, item.source_path);
  checkPath(`${field}.destination_path`, item.destination_path);
  if (oneEndpoint && item.recursive !== false && isInside(item.destination_path, item.source_path)) {
    throw new InvalidFieldError(`${field}.destination_path`, 'inside its source_path on the same endpoint (a directory cannot be copied into itself)');
  }
  if (item.external_checksum !== null) {
    if (!DIGEST.test(item.external_checksum)) throw new InvalidFieldError(`${field}.external_checksum`, 'a hex MD5 or SHA256 digest');
    if (item.recursive === true) throw new InvalidFieldError(`${field}.external_checksum`, "a file's checksum, not a directory's");
  }
}

/**
 * Whether a filter rule list keeps an entry met in a recursive item: the first rule whose pattern
 * (`*`, `?`, `[...]`, `[!...]`) matches the name and whose type fits decides; none: kept. The
 * patterns are compiled once, for every entry of a tree.
 */
export function filterRulesKeeper(rules: readonly FilterRule[] | null): (name: string, type: 'file' | 'dir') => boolean {
  // Stryker disable next-line ArrayDeclaration: a rule without a type or name matches nothing and keeps the default
  const compiled = (rules ?? []).map((rule) => ({ ...rule, glob: Glob.compile(rule.name, { classes: true }) }));
  return (name, type) => {
    for (const rule of compiled) {
      if (rule.type !== null && rule.type !== type) continue;
      if (rule.glob.matches(name)) return rule.method === 'include';
    }
    return true;
  };
}

export function keptByFilterRules(rules: readonly FilterRule[] | null, name: string, type: 'file' | 'dir'): boolean {
  return filterRulesKeeper(rules)(name, type);
}
