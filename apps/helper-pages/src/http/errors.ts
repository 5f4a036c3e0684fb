import {
  AuthenticationFailedError,
  BadRequestError,
  ConsentRequiredError,
  DomainError,
  NotFoundError,
  OAuthProtocolError,
  PermissionDeniedError,
  TooManyRequestsError,
} from '@xfer/core';
import type { NextFunction, Request, Response } from 'express';
import type nunjucks from 'nunjucks';
import { logRequestError, requestIdOf } from '@xfer/server-kit';

/** How the auth app answers one kind of error: as a page, and as the OAuth protocol's JSON. */
interface ErrorAnswer {
  status: number;
  title: string;
  /** The OAuth 2.0 error code (RFC 6749 5.2, RFC 6750 3.1). */
  oauthError: OAuthProtocolError['code'] | 'invalid_token' | 'insufficient_scope';
  /** RFC 6750 3: a bearer-token endpoint names what was wrong with the token. */
  wwwAuthenticate?: string;
}

/** Domain errors to answers, in order: the auth app's one mapping, for its pages and its OAuth endpoints. */
const ANSWERS: ReadonlyArray<[abstract new (...args: never[]) => DomainError, ErrorAnswer]> = [
  [OAuthProtocolError, { status: 400, title: 'Bad request', oauthError: 'invalid_request' }],
  [BadRequestError, { status: 400, title: 'Bad request', oauthError: 'invalid_request' }],
  [AuthenticationFailedError, { status: 401, title: 'Not signed in', oauthError: 'invalid_token', wwwAuthenticate: 'Bearer error="invalid_token"' }],
  [ConsentRequiredError, { status: 403, title: 'Not allowed', oauthError: 'insufficient_scope', wwwAuthenticate: 'Bearer error="insufficient_scope", scope="openid"' }],
  [PermissionDeniedError, { status: 403, title: 'Not allowed', oauthError: 'access_denied' }],
  [NotFoundError, { status: 404, title: 'Not found', oauthError: 'invalid_request' }],
  [TooManyRequestsError, { status: 429, title: 'Too many attempts', oauthError: 'invalid_request' }],
];
const FALLBACK: ErrorAnswer = { status: 400, title: 'Bad request', oauthError: 'invalid_request' };

export function answerTo(error: DomainError): ErrorAnswer {
  const answer = ANSWERS.find(([type]) => error instanceof type)?.[1] ?? FALLBACK;
  // a protocol error carries its own code
  return error instanceof OAuthProtocolError ? { ...answer, oauthError: error.code } : answer;
}

/** A client error that Express or a body parser raised (a malformed body, an unsupported charset). */
function unreadableRequestStatus(error: unknown): number | null {
  const status = (error as { status?: number })?.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : null;
}

/**
 * A protocol error of the authorization endpoint goes back to the client's registered redirect URI,
 * with the state: the one place the redirect is built (RFC 6749 4.1.2.1).
 */
export function protocolErrorRedirect(error: Pick<OAuthProtocolError, 'message'> & { code: string }, redirectUri: string, state: string | undefined): string {
  const back = new URL(redirectUri);
  back.searchParams.set('error', error.code);
  back.searchParams.set('error_description', error.message);
  if (state) back.searchParams.set('state', state);
  return back.href;
}

/** Errors on the OAuth endpoints: the protocol's JSON, whatever the error. */
export function protocolErrorHandler(error: unknown, _req: Request, res: Response, _next: NextFunction): void {
  res.set('Cache-Control', 'no-store');
  if (error instanceof DomainError) {
    const answer = answerTo(error);
    if (answer.wwwAuthenticate) res.set('WWW-Authenticate', answer.wwwAuthenticate);
    res.status(answer.status).json({ error: answer.oauthError, error_description: error.message });
    return;
  }
  const status = unreadableRequestStatus(error);
  if (status !== null) {
    res.status(status).json({ error: 'invalid_request', error_description: 'The request body could not be read' });
    return;
  }
  // a fault of ours: the protocol's JSON still (RFC 6749 5.2 server_error), never a page
  logRequestError(res, error);
  res.status(500).json({ error: 'server_error', error_description: `An internal error occurred (request ${requestIdOf(res)})` });
}

/** Errors on the JSON API (/v2/api): the error document of compat-notes, from the same table. */
export function apiErrorHandler(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  res.set('Cache-Control', 'no-store');
  const document = (status: number, code: string, message: string) =>
    res.status(status).json({ code, message, request_id: requestIdOf(res), resource: req.originalUrl.split('?')[0] });
  if (error instanceof DomainError) {
    const answer = answerTo(error);
    if (answer.status === 401) res.set('WWW-Authenticate', 'Bearer realm="xfer"');
    if (error instanceof TooManyRequestsError) res.set('Retry-After', String(error.retryAfterSeconds));
    document(answer.status, error.code, error.message);
    return;
  }
  const status = unreadableRequestStatus(error);
  if (status !== null) {
    document(status, 'BadRequest', 'The request could not be read');
    return;
  }
  // a fault of ours: the error document still, never an HTML page or a stack
  logRequestError(res, error);
  document(500, 'InternalError', 'An internal error occurred');
}

/** Errors on the pages: an HTML page with the answer's status and title. */
export function errorPages(views: nunjucks.Environment) {
  const render = (res: Response, status: number, title: string, message: string, requestId?: string) =>
    res.status(status).type('html').send(views.render('error.njk', { title, message, requestId }));

  return {
    notFound(_req: Request, res: Response): void {
      render(res, 404, 'Not found', 'There is no page at this address.');
    },
    errorHandler(error: unknown, _req: Request, res: Response, _next: NextFunction): void {
      if (error instanceof DomainError) {
        const { status, title } = answerTo(error);
        if (error instanceof TooManyRequestsError) res.set('Retry-After', String(error.retryAfterSeconds));
        render(res, status, title, error.message);
        return;
      }
      if ((error as { code?: string })?.code === 'EBADCSRFTOKEN') {
        render(res, 403, 'Form expired', 'The form expired or did not come from this site. Reload the page and try again.');
        return;
      }
      const status = unreadableRequestStatus(error);
      if (status !== null) {
        render(res, status, 'Bad request', 'The request could not be read.');
        return;
      }
      logRequestError(res, error);
      render(res, 500, 'Something went wrong', 'An internal error occurred. Please try again later.', requestIdOf(res));
    },
  };
}
