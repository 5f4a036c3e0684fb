import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A short random id like the hosted service's (`BHI2BHt8N`): 9 characters of base62. */
export function newRequestId(): string {
  let id = '';
  for (const byte of randomBytes(9)) id += ALPHABET[byte % ALPHABET.length];
  return id;
}

/** Gives every request an id: in the response documents, the error pages and the request log. */
export function assignRequestId(_req: Request, res: Response, next: NextFunction): void {
  res.locals.requestId = newRequestId();
  next();
}

export function requestIdOf(res: Response): string {
  return res.locals.requestId as string;
}
