import { joinStoragePath, StorageError, type DirectoryCopyOptions, type DirectoryFile, type DirectoryFileCopy, type StorageGuard } from '@xfer/core';

/** A guard's checks and digests, then the next one's. */
export function chained(first: StorageGuard | null, next: StorageGuard): StorageGuard {
  if (first === null) return next;
  return { check: (path) => (first.check(path), next.check(path)), digest: (path, digest) => next.digest(path, first.digest(path, digest)) };
}

/** A batch copy's own call on some files of the directories (what BatchCopy.copyFiles does without guards). */
export type CopyBatch = (files: readonly DirectoryFile[]) => AsyncIterable<readonly DirectoryFileCopy[]>;

/**
 * A batch copy with guards (injected faults) on either side: the files up to each one a guard
 * fails copied by `copy`, then that file's failure as its outcome, and on; digests as the guards
 * report them. It stops where `copy` stopped short (its bytes, an abort), never at a failure.
 */
export async function* guardedBatch(copy: CopyBatch, guards: { source: StorageGuard | null; destination: StorageGuard | null }, from: string, to: string, files: readonly DirectoryFile[], options: DirectoryCopyOptions): AsyncIterable<readonly DirectoryFileCopy[]> {
  const sourcePath = (file: DirectoryFile) => joinStoragePath(from, `/${file.name}`);
  const destinationPath = (file: DirectoryFile) => joinStoragePath(to, `/${file.name}`);
  const failureOf = (file: DirectoryFile): Extract<DirectoryFileCopy, { error: StorageError }> | null => {
    for (const [side, guard, path] of [['source', guards.source, sourcePath(file)], ['destination', guards.destination, destinationPath(file)]] as const) {
      try {
        guard?.check(path);
      } catch (error) {
        if (error instanceof StorageError) return { error, side };
        throw error;
      }
    }
    return null;
  };
  const digested = (file: DirectoryFile, outcome: DirectoryFileCopy): DirectoryFileCopy =>
    'error' in outcome || outcome.checksums === null ? outcome : { ...outcome, checksums: { source: guards.source?.digest(sourcePath(file), outcome.checksums.source) ?? outcome.checksums.source, destination: guards.destination?.digest(destinationPath(file), outcome.checksums.destination) ?? outcome.checksums.destination } };
  for (let at = 0; at < files.length; ) {
    let end = at;
    let failure: ReturnType<typeof failureOf> = null;
    while (end < files.length && (failure = failureOf(files[end]!)) === null) end += 1;
    let told = 0;
    if (end > at) {
      for await (const outcomes of copy(files.slice(at, end))) {
        yield outcomes.map((outcome, i) => digested(files[at + told + i]!, outcome));
        told += outcomes.length;
      }
    }
    // the call stopped short (its bytes, an abort): the caller goes on from there
    if (told < end - at || failure === null || options.signal?.aborted) return;
    yield [failure];
    at = end + 1;
  }
}
