import { DomainError, resolveStoragePath, type ActingAs, type Storage } from '@xfer/core';
import type { NodeClient } from '@xfer/storage';
import type { Request } from 'express';

/**
 * The storages of this node's directories, from `base` down (a share's): only those the API's
 * endpoints are bound to (another is refused, 403), named by the directory (the API's calls) or
 * by its endpoint (a grant).
 */
export interface NodeStorages {
  /** `actingAs`: the local account a mapped collection's files are used as (the API names it). */
  at(root: string, base: string, actingAs?: ActingAs): Promise<Storage>;
  ofEndpoint(endpointId: string, base: string, actingAs?: ActingAs): Promise<Storage>;
  /**
   * The helper that acts as the account a call names, to hand a copy's whole work (a pull, a
   * grant's files) on a directory (by `root`, or by its endpoint): its client and the directory.
   * Null where this process does the work itself (no account, or one the node is).
   */
  helperOf?(where: { root: string } | { endpointId: string }, actingAs: ActingAs | undefined): Promise<{ client: NodeClient; socketPath: string; root: string } | null>;
}

/** The local account a call names (`account`) and the digest of the policy the API decided under (`policy`), or none. */
export function actingAsOf(account: unknown, policy: unknown): ActingAs | undefined {
  if (account === undefined) return undefined;
  if (typeof account !== 'string' || account === '' || account.length > 64) throw new BadRequest('account: a local account name');
  if (typeof policy !== 'string' || policy.length > 64) throw new BadRequest("policy: the digest of the gateway's policy");
  return { account, policy };
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
