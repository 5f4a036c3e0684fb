import { StorageError } from '../storage/Storage';
import * as errors from './errors';

/** The codes clients read in error documents (compat-notes), and the messages that name what is missing. */
describe('domain errors', () => {
  it("carry the hosted service's error codes", () => {
    const codes = {
      BadRequestError: 'BadRequest',
      AuthenticationFailedError: 'ClientError.AuthenticationFailed',
      PermissionDeniedError: 'PermissionDenied',
      ResourceNotFoundError: 'ClientError.NotFound',
      InvalidPathError: 'InvalidPath',
      ExistsError: 'Exists',
      ConflictError: 'ClientError.Conflict',
      LimitExceededError: 'LimitExceeded',
      ConcurrentModificationError: 'ClientError.Conflict',
    } as const;
    for (const [name, code] of Object.entries(codes)) {
      const error = new (errors[name as keyof typeof codes] as new (m: string) => errors.DomainError)('why');
      expect([error.code, error.message, error.name]).toEqual([code, 'why', name]);
    }
    expect(new errors.InvalidPathError('x')).toBeInstanceOf(errors.BadRequestError);
  });

  it('name what was not found or is gone', () => {
    expect(new errors.EndpointNotFoundError('ep-1')).toMatchObject({ code: 'EndpointNotFound', message: "No such endpoint 'ep-1'", endpointXid: 'ep-1' });
    expect(new errors.ServerNotFoundError('ep-1', 3)).toMatchObject({ code: 'ClientError.NotFound.ServerNotFound', message: "No server '3' on endpoint 'ep-1'" });
    expect(new errors.RoleNotFoundError('r-1')).toMatchObject({ code: 'RoleNotFound', message: "No such role 'r-1'" });
    expect(new errors.AccessRuleNotFoundError('a-1')).toMatchObject({ code: 'AccessRuleNotFound', message: "No such access rule 'a-1'" });
    expect(new errors.EndpointDeletedError('ep-1')).toMatchObject({ code: 'EndpointDeleted', message: "Endpoint 'ep-1' has been deleted" });
    for (const e of [new errors.EndpointNotFoundError('x'), new errors.ServerNotFoundError('x', 1), new errors.RoleNotFoundError('x'), new errors.AccessRuleNotFoundError('x')]) {
      expect(e).toBeInstanceOf(errors.NotFoundError);
    }
  });

  it("name the path or endpoint of a file operation's failure", () => {
    expect(new errors.FileNotFoundError('/a')).toMatchObject({ code: 'NotFound', message: "Path not found: '/a' does not exist" });
    expect(new errors.MkdirExistsError('/b')).toMatchObject({ message: "Path already exists: '/b'" });
    expect(new errors.EndpointNotConnectedError('ep-1')).toMatchObject({ code: 'EndpointNotConnected', message: "No storage is attached to endpoint 'ep-1'" });
    expect(new StorageError('quota', '/c', 'full')).toMatchObject({ name: 'StorageError', failure: 'quota', path: '/c', message: 'full' });
  });

  it('say when to come back, and which scopes to ask for', () => {
    expect(new errors.TooManyRequestsError('slow down', 30)).toMatchObject({ code: 'TooManyRequests', message: 'slow down', retryAfterSeconds: 30 });
    expect(new errors.TooManySignInAttemptsError('later', 900)).toMatchObject({ code: 'TooManyAttempts', message: 'later', retryAfterSeconds: 900 });
    expect(new errors.ServiceUnavailableError('down', 60)).toMatchObject({ code: 'ServiceUnavailable', message: 'down', retryAfterSeconds: 60 });
    expect(new errors.ConsentRequiredError('consent', ['s'])).toMatchObject({ code: 'ConsentRequired', message: 'consent', requiredScopes: ['s'] });
  });
});
