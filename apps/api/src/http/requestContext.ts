import { assignRequestIds, requestIdOf } from '@xfer/server-kit';
import type { NextFunction, Request, Response } from 'express';

export const API_VERSION = '0.10';
export const VERSION_PREFIX = `/v${API_VERSION}`;

/** The request path without the version prefix: the `resource` of result and error documents. */
export function resourceOf(req: Request): string {
  const path = (req.originalUrl ?? req.url).split('?')[0];
  return path.startsWith(`${VERSION_PREFIX}/`) ? path.slice(VERSION_PREFIX.length) : path;
}

export const requestId = requestIdOf;

/** A middleware that gives every request its id (from ids of its own), the API version header, and no content sniffing of our JSON. */
export function requestContext() {
  const assignRequestId = assignRequestIds();
  return (req: Request, res: Response, next: NextFunction): void => {
    res.setHeader('X-Transfer-API-Version', API_VERSION);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    assignRequestId(req, res, next);
  };
}
