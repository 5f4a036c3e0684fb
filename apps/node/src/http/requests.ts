import { DomainError, resolveStoragePath, type Storage } from '@xfer/core';

/**
 * The storages of this node's directories, from `base` down (a share's): only those the API's
 * endpoints are bound to (another is refused, 403), named by the directory (the API's calls) or
 * by its endpoint (a grant).
 */
export interface NodeStorages {
  at(root: string, base: string): Promise<Storage>;
  ofEndpoint(endpointId: string, base: string): Promise<Storage>;
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
