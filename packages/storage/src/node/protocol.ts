import { createHmac } from 'node:crypto';
import { StorageError, type FileEntry, type StorageFailure } from '@xfer/core';

/**
 * The storage protocol between the API and a data node: the Storage port's members as HTTPS
 * requests under NODE_STORAGE_PATH, each naming the storage by its directory on the node (`root`)
 * and, for a share, the base it is seen from (`base`). The node answers what its own storage
 * adapter answers; a refusal is a StorageError, sent as 409 with WireFailure.
 */
export const NODE_STORAGE_PATH = '/_xfer/storage';

/** Who signs the API's calls to a node (the JWT issuer) and how the node checks them. */
export const API_ISSUER = 'xfer-api';

/** The status of a storage's refusal on the wire. */
export const STORAGE_REFUSED = 409;

/**
 * The key the API signs its calls to a node with (HS256): derived from the hash of the node's
 * secret, which the API keeps and the node computes from its secret, so neither sends it.
 */
export function nodeCallKey(secretHash: string): Uint8Array {
  return createHmac('sha256', secretHash).update('xfer: the API calls a data node').digest();
}

/** The members of the port, as the last segment of their path. */
export type StorageOperation = 'stat' | 'names' | 'typed-names' | 'entries' | 'mkdir' | 'rename' | 'read' | 'write' | 'remove' | 'checksum';

export interface WireEntry {
  name: string;
  type: FileEntry['type'];
  size: number;
  lastModified: string;
  permissions: number;
  user: string | null;
  group: string | null;
  link: { target: string; size: number; lastModified: string; user: string | null; group: string | null } | null;
}

export interface WireFailure {
  failure: StorageFailure;
  path: string;
  message: string;
}

export function entryToWire(entry: FileEntry): WireEntry {
  return { ...entry, lastModified: entry.lastModified.toISOString(), link: entry.link && { ...entry.link, lastModified: entry.link.lastModified.toISOString() } };
}

export function entryFromWire(wire: WireEntry): FileEntry {
  return { ...wire, lastModified: new Date(wire.lastModified), link: wire.link && { ...wire.link, lastModified: new Date(wire.link.lastModified) } };
}

const FAILURES: ReadonlySet<string> = new Set<StorageFailure>(['not_found', 'not_directory', 'is_directory', 'exists', 'denied', 'quota', 'invalid_name', 'special_file']);

export function failureToWire(error: StorageError): WireFailure {
  return { failure: error.failure, path: error.path, message: error.message };
}

/** A refusal as the node sent it; null when the body is no WireFailure. */
export function failureFromWire(body: unknown): StorageError | null {
  const wire = body as Partial<WireFailure> | null;
  if (typeof wire?.failure !== 'string' || !FAILURES.has(wire.failure) || typeof wire.path !== 'string' || typeof wire.message !== 'string') return null;
  return new StorageError(wire.failure as StorageFailure, wire.path, wire.message);
}
