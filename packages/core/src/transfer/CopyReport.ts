import { UnsafeNameError } from '../storage/paths';
import { StorageError, type StorageFailure } from '../storage/Storage';

/** What a copy counts as it goes. */
export interface CopyCounts {
  files: number;
  directories: number;
  symlinks: number;
  filesSkipped: number;
  filesTransferred: number;
  bytesTransferred: number;
  bytesChecksummed: number;
  /** Failures listed as skipped (a source the copy goes on after). */
  skippedErrors: number;
}

/**
 * Why a copy could not go on: a storage's failure, a digest that differs, a tree that cannot be
 * copied (into itself, or too deep), a source whose bytes are not as many as it said, a path a
 * delete names that is not there, or a name from a storage that is no name (UnsafeNameError).
 */
export type CopyFailureReason = StorageFailure | 'checksum_mismatch' | 'size_mismatch' | 'into_itself' | 'too_deep' | 'delete_missing' | 'unsafe_name';

export interface CopyFailure {
  reason: CopyFailureReason;
  message: string;
}

/** How a copy (or a delete) ended: all done; stopped by its signal; ended by someone else (a checkpoint refused); or failed. */
export type CopyOutcome = { kind: 'done' } | { kind: 'stopped' } | { kind: 'ended' } | { kind: 'failed'; failure: CopyFailure };

export const DONE: CopyOutcome = Object.freeze({ kind: 'done' });
export const STOPPED: CopyOutcome = Object.freeze({ kind: 'stopped' });
export const ENDED: CopyOutcome = Object.freeze({ kind: 'ended' });

export function failedWith(reason: CopyFailureReason, message: string): CopyOutcome {
  return { kind: 'failed', failure: { reason, message } };
}

/** A storage's refusal as the copy's failure (its path named). */
export function storageFailure(error: StorageError): CopyFailure {
  return { reason: error.failure, message: `${error.path}: ${error.message}` };
}

/** A file copied, as its record shows it. */
export interface CopiedFile {
  source: string;
  destination: string;
}

/**
 * Where a copy reports what it does (the task's attempt: its counters, its file lists, its
 * saves). A copy owns nothing of tasks: it counts, lists, and asks for checkpoints.
 */
export interface CopyReport {
  count(change: Partial<CopyCounts>): void;
  /** Files copied, in order. */
  copied(files: readonly CopiedFile[]): Promise<void>;
  /** A file (or an item) listed as skipped, with why. */
  skipped(source: string, destination: string | null, failure: CopyFailure): Promise<void>;
  /**
   * Bytes copied of files not counted yet (a large file between nodes, as its node tells them):
   * shown with the bytes transferred when progress is written back, until they are counted. One
   * value, the last told: where copies run side by side (a folder's files, a tree's folders) it is
   * one of theirs, a glimpse of progress, never counted twice.
   */
  inFlight(bytes: number): void;
  /** Progress written back now: false when someone ended the work meanwhile (the copy ends). */
  checkpoint(): Promise<boolean>;
  /** After a file: progress written back when enough files have passed since the last checkpoint (false: ended). */
  progressed(): Promise<boolean>;
  /** Refuses (throws) when the item's access is gone (a rule revoked, a pause); checked at most every few hundred ms. */
  recheck(): Promise<void>;
}

/** What a storage step's StorageError (or a name it listed that is no name) means to the copy: its failure as the outcome; anything else goes on up. */
export async function outcomeOf(work: () => Promise<CopyOutcome>): Promise<CopyOutcome> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StorageError) return { kind: 'failed', failure: storageFailure(error) };
    if (error instanceof UnsafeNameError) return failedWith('unsafe_name', error.message);
    throw error;
  }
}
