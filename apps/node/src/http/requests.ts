import { DomainError, resolveStoragePath, type Storage } from '@xfer/core';
import type { Request } from 'express';

/**
 * The storages of this node's directories, from `base` down (a share's): only those the API's
 * endpoints are bound to (another is refused, 403), named by the directory (the API's calls) or
 * by its endpoint (a grant).
 */
export interface NodeStorages {
  at(root: string, base: string): Promise<Storage>;
  ofEndpoint(endpointId: string, base: string): Promise<Storage>;
}

/** How long an upload's body may go quiet before it is cut (its whole length is not bounded). */
export const UPLOAD_IDLE_MS = 120_000;

/** The body of `req` as it arrives, cut (failing the write that reads it) once it goes quiet for `idleMs`. */
export function watchedUpload(req: Request, idleMs: number): Request {
  req.setTimeout(idleMs, () => req.destroy(new Error(`the upload sent nothing for ${idleMs / 1000} s`)));
  // once whole, the connection is no upload's any more
  req.once('end', () => req.setTimeout(0));
  return req;
}

/** A request the node cannot take: 400 with the message. */
export class BadRequest extends Error {}

/** A request without the credentials it needs: 401 (403 when `forbidden`) with the message. */
export class Unauthorized extends Error {
  constructor(
    message: string,
    readonly forbidden = false,
  ) {
    super(message);
  }
}

/** A storage path as a call names it: absolute and resolved already (no `..`, `.`, doubled or trailing slash). */
export function storagePath(value: unknown, name: string): string {
  const path = value === undefined ? '/' : String(value);
  let resolved: string;
  try {
    resolved = resolveStoragePath(path, '/');
  } catch (error) {
    if (error instanceof DomainError) throw new BadRequest(`${name}: ${error.message}`);
    throw error;
  }
  if (resolved !== path) throw new BadRequest(`${name}: a resolved path within the storage`);
  return path;
}
