import { childPath, isWithin, UnsafeNameError } from '../storage/paths';
import { onOneHost, type BatchCopy, type ChecksumAlgorithm, type KernelCopy, type ListedName, type Storage, type StorageFailure } from '../storage/Storage';

/**
 * A place on a storage: its path there, the path as events and file lists show it, and the path
 * (as shown) that the access which placed it covers (an access rule's path; `/` for the endpoint's
 * administrators): nothing a copy reaches from it lies outside.
 */
export interface Place {
  storage: Storage;
  path: string;
  shown: string;
  within: string;
}

/**
 * The place of `name` (a storage listed it) inside a directory's place: a name that is no name
 * (`..`, `a/b`, empty) or a place outside the access that placed the directory is UnsafeNameError.
 */
export function childOf(place: Place, name: string): Place {
  const shown = childPath(place.shown, name);
  if (!isWithin(shown, place.within)) throw new UnsafeNameError(place.shown, name);
  return { storage: place.storage, path: childPath(place.path, name), shown, within: place.within };
}

/** How a copy treats what it finds: what a transfer's options mean to the copy, nothing of tasks. */
export interface CopyPolicy {
  /** When a file at the destination counts as copied already: it exists (0), has the source's size (1), and is not older (2), or the same digest (3); null: never. */
  syncLevel: 0 | 1 | 2 | 3 | null;
  /** Both sides of each file copied are digested and compared. */
  verify: boolean;
  /** A copy gets its source's modification time. */
  preserveTimes: boolean;
  /** Failures of a source file that are listed as skipped and gone on after. */
  skippedSourceFailures: readonly StorageFailure[];
  /** What a destination directory holds that its source (as filtered) does not is removed. */
  deleteExtras: boolean;
  /** Whether a name met in a tree is copied (the filter rules). */
  keeps(name: string, type: 'file' | 'dir'): boolean;
}

/** Whether a copy goes on after this file's failure (a failure of its source the policy skips: it is listed as skipped) or stops at it. */
export function skipsFailure(policy: CopyPolicy, failure: { error: { failure: StorageFailure }; side: 'source' | 'destination' }): boolean {
  return failure.side === 'source' && policy.skippedSourceFailures.includes(failure.error.failure);
}

/** The source's failures a copy that skips source errors lists and goes on after. */
export const SKIPPABLE_SOURCE_FAILURES: readonly StorageFailure[] = ['not_found', 'denied'];

/** A source that is no regular file (a FIFO, a socket, a device) is listed as skipped by every copy, as the hosted service skips special files. */
export const ALWAYS_SKIPPED: readonly StorageFailure[] = ['special_file'];

/** What one file asks beyond the policy (a transfer item's own checksum): the algorithm, and the digest its copy must have. */
export interface FileDemand {
  algorithm: ChecksumAlgorithm;
  expected: string | null;
}

/** A file with no demand of its own: digests, where the policy asks, in md5. */
export const NO_DEMAND: FileDemand = { algorithm: 'md5', expected: null };

/**
 * How the files between two storages are copied, chosen once from their features: a directory's
 * files together off the event loop where both have a batch copy on one host, else each file in
 * the kernel where both have a kernel copy on one host, else streamed through the process; a
 * directory's names listed without a stat where the batch copy takes sizes and times itself.
 */
export interface CopyPath {
  batch: { from: BatchCopy; to: BatchCopy } | null;
  kernel: { from: KernelCopy; to: KernelCopy } | null;
  typedNames: ((path: string) => AsyncIterable<readonly ListedName[]>) | null;
}

export function copyPathOf(source: Storage, destination: Storage): CopyPath {
  const [batchFrom, batchTo] = [source.features.batchCopy, destination.features.batchCopy];
  const [kernelFrom, kernelTo] = [source.features.kernelCopy, destination.features.kernelCopy];
  const batch = batchFrom !== null && batchTo !== null && onOneHost(batchFrom, batchTo) ? { from: batchFrom, to: batchTo } : null;
  return {
    batch,
    kernel: kernelFrom !== null && kernelTo !== null && onOneHost(kernelFrom, kernelTo) ? { from: kernelFrom, to: kernelTo } : null,
    typedNames: batch === null ? null : source.features.typedNames,
  };
}
