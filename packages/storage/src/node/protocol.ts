import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { StorageError, type ActingAs, type ChecksumAlgorithm, type FileEntry, type StorageFailure } from '@xfer/core';

/**
 * The storage protocol between the API and a data node: the Storage port's members as HTTPS
 * requests under NODE_STORAGE_PATH, each naming the storage by its directory on the node (`root`)
 * and, for a share, the base it is seen from (`base`). The node answers what its own storage
 * adapter answers; a refusal is a StorageError, sent as 409 with WireFailure.
 */
export const NODE_STORAGE_PATH = '/_xfer/storage';

/** Who signs the API's calls to a node (the JWT issuer; NodeCallSigner signs them). */
export const API_ISSUER = 'xfer-api';

/** The status of a storage's refusal on the wire. */
export const STORAGE_REFUSED = 409;

/** The members of the port, as the last segment of their path. */
export type StorageOperation = 'stat' | 'names' | 'typed-names' | 'entries' | 'mkdir' | 'rename' | 'read' | 'write' | 'remove' | 'checksum' | 'pull';

/**
 * Node to node, the destination pulls: the API asks the destination node (`pull`) to copy files
 * of a directory from the source node, handing it a READ_GRANT that the API signed for the source
 * node (its id as audience, READ_GRANT_SECONDS): it opens those files of that directory for
 * reading (`read-files`, the grant in the body: a batch names up to 1,000 files), nothing else.
 */
export const READ_FILES = 'read-files';
/** The JWT claim of a grant; a token with it is refused by every other call. */
export const READ_GRANT_CLAIM = 'xfer_read';

/**
 * A grant as it is signed: the names it opens stand in it as their digest (a batch's thousand long
 * names would not fit an HTTP header), and come in the body of `read-files`, read only once the
 * grant is verified and held to the digest.
 */
export interface ReadGrantClaim {
  endpoint: string;
  base: string;
  dir: string;
  names_sha256: string;
  checksum: ChecksumAlgorithm | null;
  /** The local account the files are read as (a mapped collection's), and the policy the API decided under. */
  actingAs?: ActingAs;
}

/** The digest of a grant's names, in their order. */
export function namesDigest(names: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(names)).digest('hex');
}

/** A grant's claim, its names as their digest. */
export function grantClaim({ names, ...grant }: ReadGrant): ReadGrantClaim {
  return { ...grant, names_sha256: namesDigest(names) };
}
export const READ_GRANT_SECONDS = 120;

/**
 * Which files of a node's directory a grant opens, and the digest their reader computes as it sends
 * them. The directory is named by its endpoint (the source node knows where that endpoint's
 * storage lies): the destination, which holds the grant, learns nothing of the source's disk.
 */
export interface ReadGrant {
  endpoint: string;
  base: string;
  dir: string;
  names: string[];
  checksum: ChecksumAlgorithm | null;
  /** The local account the files are read as (a mapped collection's), and the policy the API decided under. */
  actingAs?: ActingAs;
}

/**
 * What the API asks of the destination node: the files of `from` (on this node, or on another
 * under a grant) copied into `to`, in order, each whatever became of the ones before (what a
 * failure means is the API's to decide: it closes the call where it stops).
 */
export interface PullRequest {
  source: { root: string; base: string } | { url: string; grant: string };
  from: string;
  to: string;
  /** Each file by its name in `from`, and its name in `to` where that is another (`as`). */
  files: { name: string; as?: string; lastModified?: string }[];
  checksum: ChecksumAlgorithm | null;
  sourceTimes: boolean;
  maxBytes: number | null;
}

/**
 * The destination's answer, a JSON line at a time as the copy goes: each file's outcome in order,
 * the bytes of the file in hand now and then (so that a long file keeps the answer alive), and
 * `end` when it stopped as asked. `unreachable`: the source node could not be read (why).
 */
export type PullLine =
  | { copied: { bytes: number; checksums: { source: string; destination: string } | null } }
  | { failed: WireFailure; side: 'source' | 'destination' }
  | { progress: number }
  | { unreachable: string }
  | { end: true };

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

/** The longest line of a node's answer the API reads (a listing's batch of 1,000 long names is well under it). */
export const MAX_LINE_BYTES = 4 * 2 ** 20;

/**
 * The JSON values of an answer sent a line each (a listing's batches, a pull's outcomes), as they
 * arrive, each piece scanned once (a node that sends one endless line costs its length, never its
 * square); the body is closed when the reader stops early. Throws on a line over `maxLine` bytes
 * (at once: the rest is not read) and on an answer that ends mid-line.
 */
export async function* jsonLines<T>(body: Readable, maxLine = MAX_LINE_BYTES): AsyncIterable<T> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const tooLong = () => new Error(`a line of its answer is longer than ${maxLine} bytes`);
  try {
    for await (const piece of body as AsyncIterable<Buffer>) {
      let start = 0;
      for (let end = piece.indexOf(0x0a); end !== -1; end = piece.indexOf(0x0a, start)) {
        if (pendingBytes + end - start > maxLine) throw tooLong();
        const line = pending.length === 0 ? piece.subarray(start, end) : Buffer.concat([...pending, piece.subarray(start, end)]);
        pending = [];
        pendingBytes = 0;
        start = end + 1;
        if (line.length > 0) yield JSON.parse(line.toString('utf8')) as T;
      }
      if (start < piece.length) {
        pendingBytes += piece.length - start;
        if (pendingBytes > maxLine) throw tooLong();
        pending.push(piece.subarray(start));
      }
    }
  } finally {
    if (!body.readableEnded) body.destroy();
  }
  if (pendingBytes > 0) throw new Error('the answer ended mid-line');
}

/** The JSON document of an answer, read up to `maxBytes` (beyond them it throws at once and reads no more). */
export async function boundedJson(body: Readable, maxBytes: number): Promise<unknown> {
  const pieces: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const piece of body as AsyncIterable<Buffer>) {
      bytes += piece.length;
      if (bytes > maxBytes) throw new Error(`its answer is longer than ${maxBytes} bytes`);
      pieces.push(piece);
    }
  } finally {
    if (!body.readableEnded) body.destroy();
  }
  return JSON.parse(Buffer.concat(pieces, bytes).toString('utf8'));
}

export function entryToWire(entry: FileEntry): WireEntry {
  return { ...entry, lastModified: entry.lastModified.toISOString(), link: entry.link && { ...entry.link, lastModified: entry.link.lastModified.toISOString() } };
}

export function entryFromWire(wire: WireEntry): FileEntry {
  return { ...wire, lastModified: new Date(wire.lastModified), link: wire.link && { ...wire.link, lastModified: new Date(wire.link.lastModified) } };
}

const FAILURES: ReadonlySet<string> = new Set<StorageFailure>(['not_found', 'not_directory', 'is_directory', 'exists', 'denied', 'quota', 'invalid_name', 'special_file', 'login_denied']);

export function failureToWire(error: StorageError): WireFailure {
  return { failure: error.failure, path: error.path, message: error.message };
}

/** A refusal as the node sent it; null when the body is no WireFailure. */
export function failureFromWire(body: unknown): StorageError | null {
  const wire = body as Partial<WireFailure> | null;
  if (typeof wire?.failure !== 'string' || !FAILURES.has(wire.failure) || typeof wire.path !== 'string' || typeof wire.message !== 'string') return null;
  return new StorageError(wire.failure as StorageFailure, wire.path, wire.message);
}

/** How a call names the local account the node acts as, and the digest of the policy the API decided under (`account`, `policy`). */
export function actingAsQuery(actingAs: ActingAs | undefined): { account?: string; policy?: string } {
  return actingAs ? { account: actingAs.account, policy: actingAs.policy } : {};
}
