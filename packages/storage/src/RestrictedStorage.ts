import { joinStoragePath, NO_FEATURES, pathAccess, StorageError, type ChecksumAlgorithm, type FileEntry, type FileReadOptions, type PathAccess, type PathRestrictions, type RestrictionContext, type Storage, type StorageFeatures } from '@xfer/core';

/**
 * A storage under a storage gateway's path restrictions (`restrict_paths`), for one account: a
 * path its patterns give `none` is not there (hidden from listings, refused as not found), `read`
 * refuses every change. Its copies stream through the node (a faster path would pass paths the
 * restrictions never saw).
 */
export class RestrictedStorage implements Storage {
  readonly features: StorageFeatures;

  constructor(
    private readonly inner: Storage,
    private readonly restrictions: PathRestrictions,
    private readonly context: RestrictionContext,
    /** Where `inner` begins in the gateway's paths (a share's base): the patterns name the gateway's paths. */
    private readonly base = '/',
  ) {
    const typedNames = inner.features.typedNames;
    this.features = { ...NO_FEATURES, typedNames: typedNames && ((path) => this.visible(path, typedNames(path), (entry) => entry.name)) };
  }

  private accessAt(path: string): PathAccess {
    return pathAccess(this.restrictions, joinStoragePath(this.base, path), this.context);
  }

  /** Refuses a path the restrictions hide (as not there) or, for a change, do not let the account write. */
  private check(path: string, wanted: 'r' | 'rw'): void {
    const access = this.accessAt(path);
    if (access === 'none') throw new StorageError('not_found', path, 'no such file or directory');
    if (wanted === 'rw' && access !== 'rw') throw new StorageError('denied', path, 'read only: the path restrictions of this storage let nobody change it');
  }

  private async *visible<T>(dir: string, batches: AsyncIterable<readonly T[]>, nameOf: (item: T) => string): AsyncIterable<readonly T[]> {
    this.check(dir, 'r');
    for await (const batch of batches) {
      const shown = batch.filter((item) => this.accessAt(joinStoragePath(dir, `/${nameOf(item)}`)) !== 'none');
      if (shown.length > 0) yield shown;
    }
  }

  async stat(path: string): Promise<FileEntry> {
    this.check(path, 'r');
    return this.inner.stat(path);
  }

  names(path: string): AsyncIterable<readonly string[]> {
    return this.visible(path, this.inner.names(path), (name) => name);
  }

  async entries(dir: string, names: readonly string[]): Promise<(FileEntry | null)[]> {
    this.check(dir, 'r');
    const entries = await this.inner.entries(dir, names);
    return entries.map((entry, i) => (entry !== null && this.accessAt(joinStoragePath(dir, `/${names[i]!}`)) !== 'none' ? entry : null));
  }

  async mkdir(path: string): Promise<void> {
    this.check(path, 'rw');
    return this.inner.mkdir(path);
  }

  async rename(from: string, to: string): Promise<void> {
    this.check(from, 'rw');
    this.check(to, 'rw');
    return this.inner.rename(from, to);
  }

  async *read(path: string, options?: FileReadOptions): AsyncIterable<Uint8Array> {
    this.check(path, 'r');
    yield* this.inner.read(path, options);
  }

  async write(path: string, data: AsyncIterable<Uint8Array>, options?: { lastModified?: Date }): Promise<number> {
    this.check(path, 'rw');
    return this.inner.write(path, data, options);
  }

  async remove(path: string): Promise<void> {
    this.check(path, 'rw');
    return this.inner.remove(path);
  }

  async checksum(path: string, algorithm: ChecksumAlgorithm): Promise<string> {
    this.check(path, 'r');
    return this.inner.checksum(path, algorithm);
  }
}
