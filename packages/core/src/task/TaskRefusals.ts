import { BadRequestError, ConflictError } from '../shared/errors';
import type { TaskRequest } from './TaskRequest';

/** A finished task's successful transfers only: the list of an unfinished one is not known yet (the hosted words). */
export class TaskInProgressError extends BadRequestError {
  override readonly code = 'ClientError.BadRequest';
  constructor(id: string) {
    super(`Task '${id}' is still in progress, successful transfers are not yet available`);
  }
}

/** A transfer of the same paths as one of the caller's that has not finished (the hosted words). */
export class IdenticalTransferError extends ConflictError {
  override readonly code = 'Conflict';
  constructor(readonly earlier: string) {
    super('A transfer with identical paths has not yet completed');
  }
}

/** Whether two transfers move the same paths between the same endpoints (items in any order). */
export function sameTransfer(a: TaskRequest, b: TaskRequest): boolean {
  if (a.type !== 'TRANSFER' || b.type !== 'TRANSFER') return false;
  const key = (request: typeof a) => [request.source_endpoint.toLowerCase(), request.destination_endpoint.toLowerCase(), ...request.items.map((item) => `${item.source_path}\0${item.destination_path}`).sort()].join('\n');
  return key(a) === key(b);
}
