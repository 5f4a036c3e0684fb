/**
 * Typed domain errors. Each has a stable `code` (the one clients see on the wire); the apps map
 * classes to HTTP statuses in one place each.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The request breaks a rule of the spec: a bad field value, an unknown field, a forbidden change. */
export class BadRequestError extends DomainError {
  readonly code: string = 'BadRequest';
}

/**
 * A refusal of one field of what a caller sent, the field named as core names it
 * (`items[3].source_path`, `servers`): an app names it as its own document does (`renamed`).
 */
export class InvalidFieldError extends BadRequestError {
  constructor(
    readonly field: string,
    readonly reason: string,
    override readonly code: string = 'BadRequest',
    /** The message, for a field of this name. */
    private readonly say: (field: string) => string = (name) => `Invalid ${name}: ${reason}`,
  ) {
    super(say(field));
  }

  /** The same refusal, naming the field `field`. */
  renamed(field: string): InvalidFieldError {
    return new InvalidFieldError(field, this.reason, this.code, this.say);
  }
}

export class AuthenticationFailedError extends DomainError {
  readonly code: string = 'ClientError.AuthenticationFailed';
}

/** A data node's own credentials (its id and secret) refused: the node's operator must act, not its client. */
export class NodeAuthenticationFailedError extends AuthenticationFailedError {
  static readonly CODE = 'ClientError.AuthenticationFailed.DataNode';
  override readonly code = NodeAuthenticationFailedError.CODE;
}

export class PermissionDeniedError extends DomainError {
  readonly code: string = 'PermissionDenied';
}

export abstract class NotFoundError extends DomainError {}

export class EndpointNotFoundError extends NotFoundError {
  readonly code = 'EndpointNotFound';
  constructor(readonly endpointXid: string) {
    super(`No such endpoint '${endpointXid}'`);
  }
}

export class ServerNotFoundError extends NotFoundError {
  readonly code = 'ClientError.NotFound.ServerNotFound';
  constructor(endpointId: string, serverId: string | number) {
    super(`No server '${serverId}' on endpoint '${endpointId}'`);
  }
}

/** Used by the admin side (CLI) for identities, groups, subscriptions and the like. */
export class ResourceNotFoundError extends NotFoundError {
  readonly code = 'ClientError.NotFound';
}

export class RoleNotFoundError extends NotFoundError {
  readonly code = 'RoleNotFound';
  constructor(roleId: string) {
    super(`No such role '${roleId}'`);
  }
}

export class AccessRuleNotFoundError extends NotFoundError {
  readonly code = 'AccessRuleNotFound';
  constructor(ruleId: string) {
    super(`No such access rule '${ruleId}'`);
  }
}

/** A path an access rule cannot name. */
/** The code of a path that cannot be used (InvalidPathError, or a field refusal of a path). */
export const INVALID_PATH = 'InvalidPath';

export class InvalidPathError extends BadRequestError {
  override readonly code = INVALID_PATH;
}

/** The same thing exists already (an access rule for the same principal and path). */
export class ExistsError extends DomainError {
  readonly code: string = 'Exists';
}

export class EndpointDeletedError extends DomainError {
  readonly code = 'EndpointDeleted';
  constructor(endpointXid: string) {
    super(`Endpoint '${endpointXid}' has been deleted`);
  }
}

export class ConflictError extends DomainError {
  readonly code: string = 'ClientError.Conflict';
}

/** The storage behind an endpoint refused the caller a path (the hosted EndpointPermissionDenied). */
export class EndpointPermissionDeniedError extends PermissionDeniedError {
  override readonly code: string = 'EndpointPermissionDenied';
}

/** No file or directory at a path of an endpoint's storage. */
export class FileNotFoundError extends NotFoundError {
  readonly code = 'NotFound';
  constructor(path: string) {
    super(`Path not found: '${path}' does not exist`);
  }
}

/** mkdir of a path that exists (the hosted ExternalError.MkdirFailed.Exists, which clients never retry). */
export class MkdirExistsError extends ExistsError {
  override readonly code: string = 'ExternalError.MkdirFailed.Exists';
  constructor(path: string) {
    super(`Path already exists: '${path}'`);
  }
}

/** A file operation that a pause rule affecting the caller pauses. */
export class OperationPausedError extends ConflictError {
  override readonly code = 'OperationPaused';
}

/**
 * An endpoint served by a data node that this server cannot reach: the node's fault, not the
 * service's, so a 4xx whose code says ExternalError (the SDK does not retry those).
 */
export class NodeNotReachableError extends ConflictError {
  override readonly code = 'ExternalError.NodeNotReachable';
  constructor(endpointId: string, nodeId: string, reason?: string) {
    super(`Endpoint '${endpointId}' is served by data node '${nodeId}', which this server cannot reach${reason ? ` (${reason})` : ''}`);
  }
}

/**
 * An identity set that maps to no local account of a mapped collection (the hosted LOGIN_DENIED,
 * in its words): a 4xx whose code says ExternalError, as NodeNotReachable (the SDK does not retry it).
 */
export class IdentityNotMappedError extends ConflictError {
  constructor(
    override readonly code: string,
    endpoint: { id: string; displayName: string | null },
    readonly detail: string,
  ) {
    super(`Command Failed: Error (login)\nEndpoint: ${endpoint.displayName ?? endpoint.id} (${endpoint.id})\nMessage: Login Failed\n---\nDetails: 530-Login incorrect. : Mapping collection to specified ID failed.\n530-GlobusError: v=1 c=LOGIN_DENIED\n530-GridFTP-Message: ${detail}\n530 End.`);
  }
}

/** An endpoint without storage: nothing can be listed or moved on it. */
export class EndpointNotConnectedError extends ConflictError {
  override readonly code = 'EndpointNotConnected';
  constructor(endpointId: string) {
    super(`No storage is attached to endpoint '${endpointId}'`);
  }
}

/** A resource would grow past what one endpoint may hold (servers, access rules). */
export class LimitExceededError extends DomainError {
  readonly code = 'LimitExceeded';
}

/** The caller asked for more than its share in a while (a rate limit): try again after `retryAfterSeconds`. */
export class TooManyRequestsError extends DomainError {
  readonly code: string = 'TooManyRequests';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** Too many failed sign-ins from this address or on this account: try again later. */
export class TooManySignInAttemptsError extends TooManyRequestsError {
  override readonly code = 'TooManyAttempts';
}

/** Another writer changed the aggregate first; the use case retries on fresh state. */
export class ConcurrentModificationError extends DomainError {
  readonly code = 'ClientError.Conflict';
}

export class ServiceUnavailableError extends DomainError {
  readonly code = 'ServiceUnavailable';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The token lacks a scope this service requires (the hosted service's ConsentRequired). */
export class ConsentRequiredError extends DomainError {
  readonly code = 'ConsentRequired';
  constructor(
    message: string,
    readonly requiredScopes: string[],
  ) {
    super(message);
  }
}
