import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// Random bytes are drawn in blocks: one system call per 455 request ids instead of one each.
let pool = randomBytes(4096);
let offset = pool.length;

/** A short random id like the hosted service's (`BHI2BHt8N`): 9 characters of base62. */
export function newRequestId(): string {
  if (offset + 9 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  let id = '';
  for (let i = 0; i < 9; i++) id += ALPHABET[pool[offset + i] % ALPHABET.length];
  offset += 9;
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
