import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Short random ids like the hosted service's (`BHI2BHt8N`): 9 characters of base62. Random bytes
 * are drawn in blocks: one system call per 455 request ids instead of one each.
 */
export class RequestIds {
  private pool = randomBytes(4096);
  private offset = 0;

  next(): string {
    if (this.offset + 9 > this.pool.length) {
      this.pool = randomBytes(4096);
      this.offset = 0;
    }
    let id = '';
    for (let i = 0; i < 9; i++) id += ALPHABET[this.pool[this.offset + i] % ALPHABET.length];
    this.offset += 9;
    return id;
  }
}

/** A middleware that gives every request an id (in the response documents, the error pages and the request log), from ids of its own. */
export function assignRequestIds(ids: RequestIds = new RequestIds()) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    res.locals.requestId = ids.next();
    next();
  };
}

export function requestIdOf(res: Response): string {
  return res.locals.requestId as string;
}
