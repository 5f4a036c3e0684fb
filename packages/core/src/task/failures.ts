import { DomainError, PermissionDeniedError } from '../shared/errors';
import { UnsafeNameError } from '../storage/paths';
import { StorageError } from '../storage/Storage';
import { storageFailure, type CopyFailure, type CopyFailureReason } from '../transfer/CopyReport';

/** A failure as a task shows it: the hosted event code (the task's niceStatus while it waits), its details, and whether a retry could mend it. */
export interface TaskFailure {
  code: string;
  message: string;
  /** No retry mends it (a tree copied into itself): the task ends FAILED. */
  final: boolean;
  /** The fatal_error's description where the hosted service has words of its own (the event keeps the message). */
  description?: string;
}

/** A copy's failures as the hosted task events name them, and which of them end the task. */
const COPY_FAILURES: Record<CopyFailureReason, { code: string; final: boolean; description?: string }> = {
  not_found: { code: 'FILE_NOT_FOUND', final: false },
  not_directory: { code: 'NOT_A_DIRECTORY', final: false },
  is_directory: { code: 'IS_A_DIRECTORY', final: false },
  exists: { code: 'EXISTS', final: false },
  denied: { code: 'PERMISSION_DENIED', final: false },
  quota: { code: 'QUOTA_EXCEEDED', final: false },
  invalid_name: { code: 'INVALID_PATH', final: false },
  special_file: { code: 'SPECIAL_FILE', final: false },
  // the node cannot act as the mapped account (none, root, or refused): as GridFTP's code says it
  login_denied: { code: 'LOGIN_DENIED', final: false },
  checksum_mismatch: { code: 'CHECKSUM_MISMATCH', final: false },
  // a file that grew or shrank while it was read, or a source that lies about its size: tried again
  size_mismatch: { code: 'FILE_SIZE_CHANGED', final: false },
  into_itself: { code: 'INVALID_PATH', final: true },
  too_deep: { code: 'INVALID_PATH', final: true },
  // a delete of a path that is not there fails at once, as the hosted one does (ignore_missing aside)
  delete_missing: { code: 'FILE_NOT_FOUND', final: true, description: 'file not found' },
  unsafe_name: { code: 'INVALID_PATH', final: true },
};

/** The refusals of an endpoint's access (located again while a task runs) as task events name them; any other domain code as it is. */
const ACCESS_CODES: Record<string, string> = {
  OperationPaused: 'PAUSED',
  EndpointNotConnected: 'ENDPOINT_NOT_CONNECTED',
  'ExternalError.NodeNotReachable': 'ENDPOINT_NOT_CONNECTED',
};

/** The hosted code of a copy's failure (a skipped file's error_code). */
export function codeOf(failure: CopyFailure): string {
  return COPY_FAILURES[failure.reason].code;
}

export function ofCopy(failure: CopyFailure): TaskFailure {
  return { ...COPY_FAILURES[failure.reason], message: failure.message };
}

/** A storage's or the domain's refusal (access, a pause rule, no storage) met outside a copy, as the task waits it out; anything else is no task failure (null). */
export function ofError(error: unknown): TaskFailure | null {
  if (error instanceof StorageError) return ofCopy(storageFailure(error));
  if (error instanceof UnsafeNameError) return ofCopy({ reason: 'unsafe_name', message: error.message });
  if (!(error instanceof DomainError)) return null;
  const code = error instanceof PermissionDeniedError ? 'PERMISSION_DENIED' : (ACCESS_CODES[error.code] ?? error.code);
  return { code, message: error.message, final: false };
}
