import { AuthenticationFailedError, BadRequestError, DomainError, NotFoundError, PermissionDeniedError } from '@xfer/core';
import type { NextFunction, Request, Response } from 'express';
import type nunjucks from 'nunjucks';
import { logRequestError, requestIdOf } from '@xfer/server-kit';

/** Domain errors to statuses and titles: the helper pages' one mapping, rendered as HTML. */
const PAGES: ReadonlyArray<[abstract new (...args: never[]) => DomainError, number, string]> = [
  [BadRequestError, 400, 'Bad request'],
  [AuthenticationFailedError, 401, 'Not signed in'],
  [PermissionDeniedError, 403, 'Not allowed'],
  [NotFoundError, 404, 'Not found'],
];

export function errorPages(views: nunjucks.Environment) {
  const render = (res: Response, status: number, title: string, message: string, requestId?: string) =>
    res.status(status).type('html').send(views.render('error.njk', { title, message, requestId }));

  return {
    notFound(_req: Request, res: Response): void {
      render(res, 404, 'Not found', 'There is no page at this address.');
    },
    errorHandler(error: unknown, _req: Request, res: Response, _next: NextFunction): void {
      if (error instanceof DomainError) {
        const [, status, title] = PAGES.find(([type]) => error instanceof type) ?? [DomainError, 400, 'Bad request'];
        render(res, status, title, error.message);
        return;
      }
      if ((error as { code?: string })?.code === 'EBADCSRFTOKEN') {
        render(res, 403, 'Form expired', 'The form expired or did not come from this site. Reload the page and try again.');
        return;
      }
      const status = (error as { status?: number })?.status;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        render(res, status, 'Bad request', 'The request could not be read.');
        return;
      }
      logRequestError(res, error);
      render(res, 500, 'Something went wrong', 'An internal error occurred. Please try again later.', requestIdOf(res));
    },
  };
}
