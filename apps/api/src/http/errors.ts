import {
  AuthenticationFailedError,
  BadRequestError,
  ConcurrentModificationError,
  ConflictError,
  ConsentRequiredError,
  DomainError,
  EndpointDeletedError,
  ExistsError,
  LimitExceededError,
  NotFoundError,
  PermissionDeniedError,
  ServiceUnavailableError,
} from '@xfer/core';
import type { NextFunction, Request, Response } from 'express';
import { logRequestError } from '@xfer/server-kit';
import { requestId, resourceOf } from './requestContext';

/** Domain error classes to HTTP statuses: the one place this mapping lives for the API. */
const STATUS_BY_ERROR: ReadonlyArray<[abstract new (...args: never[]) => DomainError, number]> = [
  [BadRequestError, 400],
  [AuthenticationFailedError, 401],
  [PermissionDeniedError, 403],
  [ConsentRequiredError, 403],
  [NotFoundError, 404],
  [EndpointDeletedError, 409],
  [ConflictError, 409],
  [ExistsError, 409],
  [LimitExceededError, 409],
  [ConcurrentModificationError, 409],
  [ServiceUnavailableError, 503],
];

export interface ErrorBody {
  code: string;
  message: string;
  request_id: string;
  resource: string;
}

export function sendError(req: Request, res: Response, status: number, code: string, message: string, extra: Record<string, unknown> = {}): void {
  const body: ErrorBody = { code, message, request_id: requestId(res), resource: resourceOf(req), ...extra };
  res.status(status).json(body);
}

/** Errors raised by express.json() carry `type` and `status`. */
interface BodyParserError {
  type?: string;
  status?: number;
}

export function errorHandler(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  if (error instanceof DomainError) {
    const status = STATUS_BY_ERROR.find(([type]) => error instanceof type)?.[1] ?? 400;
    if (error instanceof ServiceUnavailableError) res.setHeader('Retry-After', String(error.retryAfterSeconds));
    // RFC 6750 3: say how to authenticate, and whether the token given was the problem
    if (error instanceof AuthenticationFailedError) {
      res.setHeader('WWW-Authenticate', req.headers.authorization ? 'Bearer realm="xfer", error="invalid_token"' : 'Bearer realm="xfer"');
    }
    // ConsentRequired names the scopes to ask for, as the hosted service does (clients read required_scopes)
    const extra = error instanceof ConsentRequiredError ? { required_scopes: error.requiredScopes } : {};
    sendError(req, res, status, error.code, error.message, extra);
    return;
  }
  const parserError = error as BodyParserError;
  if (parserError?.type === 'entity.too.large') {
    sendError(req, res, 413, 'ClientError.RequestTooLarge', 'The request body is larger than this service accepts');
    return;
  }
  if (parserError?.type === 'entity.parse.failed') {
    sendError(req, res, 400, 'BadRequest', 'The request body is not valid JSON');
    return;
  }
  if (typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
    // e.g. a malformed percent-encoding in the path, or a body in an unsupported charset
    sendError(req, res, parserError.status, 'BadRequest', `The request could not be read: ${error instanceof Error ? error.message : 'malformed'}`);
    return;
  }
  // Unexpected: the request log line carries the error and the request id an operator will be quoted.
  logRequestError(res, error);
  sendError(req, res, 500, 'InternalError', `An internal error occurred. Quote request id ${requestId(res)} when reporting it.`);
}

export function notFoundHandler(req: Request, res: Response): void {
  sendError(req, res, 404, 'ClientError.NotFound', `No such resource: ${req.method} ${resourceOf(req)}`);
}
