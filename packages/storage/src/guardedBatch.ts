import { joinStoragePath, StorageError, type DirectoryCopyOptions, type DirectoryFile, type DirectoryFileCopy, type StorageGuard } from '@xfer/core';

/** A guard's checks and digests, then the next one's. */
export function chained(first: StorageGuard | null, next: StorageGuard): StorageGuard {
  if (first === null) return next;
  return { check: (path) => (first.check(path), next.check(path)), digest: (path, digest) => next.digest(path, first.digest(path, digest)) };
}

/** A batch copy's own call on some files of the directories (what BatchCopy.copyFiles does without guards). */
export type CopyBatch = (files: readonly DirectoryFile[]) => Promise<DirectoryFileCopy[]>;

/**
 * A batch copy with guards (injected faults) on either side: the files up to the first one a
 * guard fails, copied by `copy`; that file's failure as its outcome, then the rest when the
 * failure is one the copy goes on after; digests as the guards report them.
 */
export async function guardedBatch(copy: CopyBatch, guards: { source: StorageGuard | null; destination: StorageGuard | null }, from: string, to: string, files: readonly DirectoryFile[], options: DirectoryCopyOptions): Promise<DirectoryFileCopy[]> {
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
  const outcomes: DirectoryFileCopy[] = [];
  for (let at = 0; at < files.length; ) {
    let end = at;
    let failure: ReturnType<typeof failureOf> = null;
    while (end < files.length && (failure = failureOf(files[end]!)) === null) end += 1;
    const copied = end > at ? await copy(files.slice(at, end)) : [];
    for (const [i, outcome] of copied.entries()) {
      const file = files[at + i]!;
      outcomes.push('error' in outcome || outcome.checksums === null ? outcome : { ...outcome, checksums: { source: guards.source?.digest(sourcePath(file), outcome.checksums.source) ?? outcome.checksums.source, destination: guards.destination?.digest(destinationPath(file), outcome.checksums.destination) ?? outcome.checksums.destination } });
    }
    const stoppedAt = (outcome: DirectoryFileCopy) => 'error' in outcome && !(outcome.side === 'source' && options.skipSourceFailures.includes(outcome.error.failure));
    // the call stopped short (a failure, its bytes, a stop): the caller goes on from there
    if (copied.length < end - at || copied.some(stoppedAt) || failure === null || options.signal?.aborted) return outcomes;
    outcomes.push(failure);
    if (stoppedAt(failure)) return outcomes;
    at = end + 1;
  }
  return outcomes;
}
