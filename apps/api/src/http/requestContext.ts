import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export const API_VERSION = '0.10';
export const VERSION_PREFIX = `/v${API_VERSION}`;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A short random id like the hosted service's (`BHI2BHt8N`): 9 characters of base62. */
export function newRequestId(): string {
  const bytes = randomBytes(9);
  let id = '';
  for (const byte of bytes) id += ALPHABET[byte % ALPHABET.length];
  return id;
}

/** The request path without the version prefix: the `resource` of result and error documents. */
export function resourceOf(req: Request): string {
  const path = (req.originalUrl ?? req.url).split('?')[0];
  return path.startsWith(`${VERSION_PREFIX}/`) ? path.slice(VERSION_PREFIX.length) : path;
}

export function requestId(res: Response): string {
  return res.locals.requestId as string;
}

/** Gives every request its id and the API version header. */
export function requestContext(_req: Request, res: Response, next: NextFunction): void {
  res.locals.requestId = newRequestId();
  res.setHeader('X-Transfer-API-Version', API_VERSION);
  next();
}
