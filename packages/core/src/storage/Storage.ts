import type { ActingAs } from '../node/Node';
/**
 * The storage behind an endpoint (a directory on the xfer host, or a tree in memory), as the file
 * operations and transfer and delete tasks use it. Paths given to a Storage are absolute within
 * its root, as `resolveStoragePath` makes them (no `.`, `..`, doubled or trailing slashes; `/` for
 * the root); a Storage never reaches outside its root, through symbolic links included.
 */
export type FileType = 'file' | 'dir' | 'invalid_symlink';

/** One entry of a directory, as the hosted `file` document describes it. */
export interface FileEntry {
  name: string;
  type: FileType;
  size: number;
  lastModified: Date;
  /** The permission bits, e.g. 0o644. */
  permissions: number;
  user: string | null;
  group: string | null;
  /** A symbolic link within the root: its target, as a path within the root; null otherwise. */
  link: { target: string; size: number; lastModified: Date; user: string | null; group: string | null } | null;
}

/**
 * Why a Storage refused: the path is missing, it (or its parent) is not a directory, it exists
 * already, it may not be used, no space is left, a name in it is longer than the storage takes, or
 * it is neither a regular file nor a directory (a FIFO, a socket, a device: never read).
 * A StorageError's message never names where the storage keeps its files (a caller sees it).
 */
/** `login_denied`: the local account a mapped collection acts as cannot be acted as on its node (none by that name, root, or refused by the gateway's policies). */
export type StorageFailure = 'not_found' | 'not_directory' | 'is_directory' | 'exists' | 'denied' | 'quota' | 'invalid_name' | 'special_file' | 'login_denied';

export class StorageError extends Error {
  constructor(
    readonly failure: StorageFailure,
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export type ChecksumAlgorithm = 'md5' | 'sha256';

/** Bytes `start` to `end` of a file, both included (as an HTTP Range names them). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Buffers a reader of many chunks takes again once its consumer gives them back: a stream of
 * fresh 1 MiB buffers makes V8 collect garbage over the whole heap every few dozen MiB.
 */
export interface ChunkPool {
  /** A buffer of at least `length` bytes. */
  take(length: number): Uint8Array;
  /** A chunk read into a buffer `take` gave (the consumer is done with it). */
  give(chunk: Uint8Array): void;
}

export interface FileReadOptions {
  range?: ByteRange;
  pool?: ChunkPool;
}

/** A name of a directory with the type its listing gives, without a stat: 'file' for anything neither a directory nor a symbolic link. */
export interface ListedName {
  name: string;
  type: 'file' | 'dir' | 'link';
}

/** A file of a directory copied by copyFilesFrom: its name on both sides, and the time its copy gets. */
export interface DirectoryFile {
  name: string;
  lastModified?: Date;
}

export interface DirectoryCopyOptions {
  /** Digest both sides of each file (the copy as written) with this algorithm. */
  checksum: ChecksumAlgorithm | null;
  /** Once aborted, the copy stops after the file in hand: it answers for the files before. */
  signal?: AbortSignal;
  /** A file that names no time gets its source's own (in whole seconds, as entries() gives it). */
  sourceTimes?: boolean;
  /**
   * The bytes of one call: it stops before a file that would take them past this (never before
   * the first) and answers for the files before, so the caller goes on from there.
   */
  maxBytes?: number;
  /** Told the bytes the call has copied so far, now and then, where it takes long enough to tell. */
  progress?: (bytes: number) => void;
}

/** What became of one file of copyFilesFrom: its bytes (with both digests when asked: a copy whose digests differ never took its name), or why it failed and on which side. */
export type DirectoryFileCopy = { bytes: number; checksums: { source: string; destination: string } | null } | { error: StorageError; side: 'source' | 'destination' };

export interface Storage {
  /** The entry at `path` (a link within the root described with its target's type and size). */
  stat(path: string): Promise<FileEntry>;
  /**
   * The names in the directory at `path`, unsorted, in batches (a directory may hold 100,000 of
   * them: one await per batch, not per name).
   */
  names(path: string): AsyncIterable<readonly string[]>;
  /**
   * The entries named in the directory at `dir`, in the order of `names` (null for one gone since
   * its name was read): a listing's, with the directory resolved once.
   */
  entries(dir: string, names: readonly string[]): Promise<(FileEntry | null)[]>;
  /** Makes one directory; its parent must exist. */
  mkdir(path: string): Promise<void>;
  /** Moves a file or directory within the storage; the new parent must exist. */
  rename(from: string, to: string): Promise<void>;
  /**
   * The bytes of the file at `path`, streamed; with `range`, those from `start` to `end` (both
   * included; the file holds them). With `pool`, a storage may read into the pool's buffers: the
   * consumer gives each chunk back once it is done with it.
   */
  read(path: string, options?: FileReadOptions): AsyncIterable<Uint8Array>;
  /**
   * Writes `data` to the file at `path` through a temporary name beside it, then renames it into
   * place: a reader never sees half a file at its final name. Returns the bytes written.
   */
  write(path: string, data: AsyncIterable<Uint8Array>, options?: { lastModified?: Date }): Promise<number>;
  /** Removes a file, or an empty directory. */
  remove(path: string): Promise<void>;
  /** The hex digest of the file at `path`. */
  checksum(path: string, algorithm: ChecksumAlgorithm): Promise<string>;
  /** What this storage can do faster than through the members above; a wrapper forwards or masks each. */
  readonly features: StorageFeatures;
}

/**
 * What a wrapper of a storage (injected faults) does to the calls of a feature it forwards, so
 * that the feature fails and reports as the wrapper's own members would.
 */
export interface StorageGuard {
  /** Throws the StorageError that a call on `path` fails with, before it is made. */
  check(path: string): void;
  /** The digest reported for the file at `path` (a wrapper may report another). */
  digest(path: string, digest: string): string;
}

/**
 * A copy that never passes the bytes through this process, between two storages of one host:
 * each storage whose `host` is the same value can take the other as a source.
 */
export interface HostCopy {
  /** The filesystem (and the threads) the storage's files are reached through. */
  readonly host: object;
}

/** How one file is copied: the time its copy gets; a signal that, aborted, may drop the copy in hand (it then fails, leaving nothing at its name). */
export interface FileCopyOptions {
  lastModified?: Date;
  signal?: AbortSignal;
  /** Told the bytes copied so far, now and then, where the copy takes long enough to tell. */
  progress?: (bytes: number) => void;
}

/**
 * Copies the file at `from` of `source` to `path` here as write() would (through a temporary
 * name), without passing its bytes through this process (in the kernel, or node to node): the
 * bytes copied.
 */
export interface KernelCopy extends HostCopy {
  copyFile(source: KernelCopy, from: string, path: string, options?: FileCopyOptions): Promise<number>;
  /** The same ability with every path it touches passed to the guard first. */
  guarded(guard: StorageGuard): KernelCopy;
}

/**
 * Copies files of the directory `from` of `source` into the directory `to` here, in order, each as
 * KernelCopy would, off the event loop (a call or two per file), and tells what became of each as
 * it is known, a batch of outcomes a yield, in order. It copies every file it is handed whatever
 * became of the ones before (what a failure means is its caller's to decide), and stops only when
 * `options.signal` aborts (after the file in hand) or before a file past `options.maxBytes`; both
 * sides' digests when `options.checksum` asks (compared before the copy takes its name: one whose
 * digests differ leaves the file there as it was).
 */
export interface BatchCopy extends HostCopy {
  copyFiles(source: BatchCopy, from: string, to: string, files: readonly DirectoryFile[], options: DirectoryCopyOptions): AsyncIterable<readonly DirectoryFileCopy[]>;
  /** The same ability with every path it touches passed to the guard first (a file it fails is that file's failure). */
  guarded(guard: StorageGuard): BatchCopy;
}

/** A storage's faster paths, each null where it has none (rclone's Features, gathered once). */
export interface StorageFeatures {
  /**
   * The names in the directory at `path` with the types its listing gives, in batches, without a
   * stat of each (what a copy of a whole tree needs, where a batch copy takes sizes and times from
   * the files themselves).
   */
  readonly typedNames: ((path: string) => AsyncIterable<readonly ListedName[]>) | null;
  readonly kernelCopy: KernelCopy | null;
  readonly batchCopy: BatchCopy | null;
}

/** A storage with no faster path: every copy streams through the process. */
export const NO_FEATURES: StorageFeatures = Object.freeze({ typedNames: null, kernelCopy: null, batchCopy: null });

/** Whether two storages share a host copy ability (both have it, on the same host). */
export function onOneHost<T extends HostCopy>(a: T | null, b: T | null): boolean {
  return a !== null && b !== null && a.host === b.host;
}

/** How an endpoint's storage is attached: a directory of the xfer host, a tree in memory, or a directory of a data node (reached only through the node). */
export type StorageAttachment = { type: 'posix'; root: string } | { type: 'memory' } | { type: 'node'; node: string; root: string };

/** The storages of this process's endpoints (the runtime owns it). */
export interface StorageDirectory {
  /**
   * The storage of an endpoint as its attachment says; without one, whatever this process gives
   * such endpoints (the stand-in: a memory tree), or null. `base` (a share's host_path): the
   * storage from there down, a boundary exactly like the root (nothing above it is reached,
   * through symbolic links included), its paths and its failures' paths the share's. `actingAs`:
   * the local account a mapped collection's files are used as (its node acts as it).
   */
  storageOf(endpointId: string, attachment: StorageAttachment | null, base?: string, actingAs?: ActingAs): Storage | null;
}

/** No endpoint has storage (a process that serves no files). */
export const NO_STORAGE: StorageDirectory = {
  storageOf: () => null,
};
