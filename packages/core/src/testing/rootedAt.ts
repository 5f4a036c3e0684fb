import { joinStoragePath } from '../storage/paths';
import { NO_FEATURES, StorageError, type ChecksumAlgorithm, type FileEntry, type FileReadOptions, type Storage, type StorageDirectory } from '../storage/Storage';

/**
 * A test double's storage from `base` down, as StorageDirectory.storageOf gives a share's: its
 * paths are the share's, and so are the paths of its failures. (The adapters hold `base` as a
 * boundary through links too; a double has no links out.)
 */
export function rootedAt(storage: Storage, base: string): Storage {
  if (base === '/') return storage;
  const inner = (path: string) => joinStoragePath(base, path);
  const outer = (error: unknown): unknown => {
    if (!(error instanceof StorageError)) return error;
    const path = error.path === base ? '/' : error.path.startsWith(`${base}/`) ? error.path.slice(base.length) : error.path;
    return new StorageError(error.failure, path, error.message);
  };
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw outer(error);
    }
  };
  async function* stream<T>(source: AsyncIterable<T>): AsyncIterable<T> {
    try {
      yield* source;
    } catch (error) {
      throw outer(error);
    }
  }
  return {
    stat: (path: string): Promise<FileEntry> => call(() => storage.stat(inner(path))),
    names: (path: string) => stream(storage.names(inner(path))),
    entries: (dir: string, names: readonly string[]) => call(() => storage.entries(inner(dir), names)),
    mkdir: (path: string) => call(() => storage.mkdir(inner(path))),
    rename: (from: string, to: string) => call(() => storage.rename(inner(from), inner(to))),
    read: (path: string, options?: FileReadOptions) => stream(storage.read(inner(path), options)),
    write: (path: string, data: AsyncIterable<Uint8Array>, options?: { lastModified?: Date }) => call(() => storage.write(inner(path), data, options)),
    remove: (path: string) => call(() => storage.remove(inner(path))),
    checksum: (path: string, algorithm: ChecksumAlgorithm) => call(() => storage.checksum(inner(path), algorithm)),
    // masked: a double's faster paths take its own paths, not the share's
    features: NO_FEATURES,
  };
}

/** A directory of test doubles by endpoint, each share's rooted at its base. */
export function directoryOf(storages: (endpointId: string) => Storage | null): StorageDirectory {
  return {
    storageOf: (endpointId, _attachment, base = '/') => {
      const storage = storages(endpointId);
      return storage === null ? null : rootedAt(storage, base);
    },
  };
}
