import { joinStoragePath, StorageError, type ChecksumAlgorithm, type FileReadOptions, type FileEntry, type ListedName, type Storage, type StorageFeatures, type StorageGuard } from '@xfer/core';

/** The storage failures a test may inject (the stand-in's POST /_xfer/faults with an endpoint). */
export const STORAGE_FAULTS = ['PERMISSION_DENIED', 'FILE_NOT_FOUND', 'QUOTA_EXCEEDED', 'CHECKSUM_MISMATCH'] as const;
export type StorageFaultError = (typeof STORAGE_FAULTS)[number];

export interface StorageFault {
  id: string;
  /** The endpoint whose storage it is (for a share: its host). */
  endpoint: string;
  /** A path of that storage: the fault hits it and everything below it. */
  path: string;
  error: StorageFaultError;
  /** Calls it still fails. */
  count: number;
}

const FAILURES = { PERMISSION_DENIED: 'denied', FILE_NOT_FOUND: 'not_found', QUOTA_EXCEEDED: 'quota' } as const;

/** The faults pending in a process, taken one call at a time. */
export class StorageFaults {
  private faults: StorageFault[] = [];

  add(fault: StorageFault): void {
    this.faults.push(fault);
  }

  list(): StorageFault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.faults = [];
  }

  get empty(): boolean {
    return this.faults.length === 0;
  }

  /** The fault that hits this call, counted down (gone at zero); checksum mismatches hit checksums only. */
  take(endpoint: string, path: string, checksum: boolean): StorageFault | null {
    const fault = this.faults.find((f) => f.endpoint === endpoint && (f.path === '/' || path === f.path || path.startsWith(`${f.path}/`)) && (f.error === 'CHECKSUM_MISMATCH') === checksum);
    if (!fault) return null;
    fault.count -= 1;
    if (fault.count <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault;
  }
}

/**
 * A storage whose calls fail where a pending fault says so: its faster paths are the inner
 * storage's, each call of theirs failing (and a digest of theirs differing) as its own would.
 */
export class FaultyStorage implements Storage {
  readonly features: StorageFeatures;

  constructor(
    private readonly inner: Storage,
    private readonly endpoint: string,
    private readonly faults: StorageFaults,
    /** Where `inner` begins in the endpoint's storage (a share's host_path): faults name the host's paths. */
    private readonly base = '/',
  ) {
    const guard: StorageGuard = { check: (path) => this.check(path), digest: (path, digest) => this.digest(path, digest) };
    const { typedNames, kernelCopy, batchCopy } = inner.features;
    this.features = {
      typedNames: typedNames && ((path) => this.guardedNames(typedNames, path)),
      kernelCopy: kernelCopy && kernelCopy.guarded(guard),
      batchCopy: batchCopy && batchCopy.guarded(guard),
    };
  }

  private check(path: string): void {
    const fault = this.faults.take(this.endpoint, joinStoragePath(this.base, path), false);
    if (fault && fault.error !== 'CHECKSUM_MISMATCH') throw new StorageError(FAILURES[fault.error], path, `an injected fault (${fault.error})`);
  }

  /** A mismatch: the digest of other bytes. */
  private digest(path: string, digest: string): string {
    return this.faults.take(this.endpoint, joinStoragePath(this.base, path), true) ? '0'.repeat(digest.length) : digest;
  }

  private async *guardedNames(typedNames: (path: string) => AsyncIterable<readonly ListedName[]>, path: string): AsyncIterable<readonly ListedName[]> {
    this.check(path);
    yield* typedNames(path);
  }

  async stat(path: string): Promise<FileEntry> {
    this.check(path);
    return this.inner.stat(path);
  }

  async *names(path: string): AsyncIterable<readonly string[]> {
    this.check(path);
    yield* this.inner.names(path);
  }

  async entries(dir: string, names: readonly string[]): Promise<(FileEntry | null)[]> {
    this.check(dir);
    return this.inner.entries(dir, names);
  }

  async mkdir(path: string): Promise<void> {
    this.check(path);
    return this.inner.mkdir(path);
  }

  async rename(from: string, to: string): Promise<void> {
    this.check(from);
    this.check(to);
    return this.inner.rename(from, to);
  }

  async *read(path: string, options?: FileReadOptions): AsyncIterable<Uint8Array> {
    this.check(path);
    yield* this.inner.read(path, options);
  }

  async write(path: string, data: AsyncIterable<Uint8Array>, options?: { lastModified?: Date }): Promise<number> {
    this.check(path);
    return this.inner.write(path, data, options);
  }

  async remove(path: string): Promise<void> {
    this.check(path);
    return this.inner.remove(path);
  }

  async checksum(path: string, algorithm: ChecksumAlgorithm): Promise<string> {
    this.check(path);
    return this.digest(path, await this.inner.checksum(path, algorithm));
  }
}
