import { randomBytes } from 'node:crypto';
import { baseName, joinStoragePath, parentOf } from '../storage/paths';
import { StorageError, type ChecksumAlgorithm, type FileCopyOptions, type FileEntry } from '../storage/Storage';
import { NO_DEMAND, skipsFailure, type CopyPath, type CopyPolicy, type FileDemand, type Place } from './CopyPolicy';
import { DONE, ENDED, STOPPED, type CopiedFile, type CopyFailure, type CopyOutcome, type CopyReport } from './CopyReport';
import type { TreeFile } from './walk';

/** What a copy works with: the storages' copy path, the policy, where it reports, and the signal that stops it after the file in hand. */
export interface CopyContext {
  policy: CopyPolicy;
  path: CopyPath;
  report: CopyReport;
  signal: AbortSignal;
}

/** One file's copy: copied (its record), passed over (in sync, or a source failure listed as skipped), failed, or dropped because someone ended the work meanwhile. */
export type FileCopy = { kind: 'copied'; file: CopiedFile } | { kind: 'passed' } | { kind: 'failed'; failure: CopyFailure } | { kind: 'ended' };

const PASSED: FileCopy = Object.freeze({ kind: 'passed' });
const ENDED_FILE: FileCopy = Object.freeze({ kind: 'ended' });

/** How often a copy that takes long (a large file, a copy between nodes) writes progress back and sees whether its work still runs. */
const WATCH_MS = 1000;

/**
 * Waits for `work`, writing progress back every WATCH_MS meanwhile: work ended by someone (a
 * cancel) is stopped through `stop`, whose storages drop the file in hand. Rejects as `work` does.
 */
export async function whileRunning<T>(ctx: CopyContext, work: Promise<T>, stop: AbortController): Promise<{ value: T; ended: boolean }> {
  let ended = false;
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = new Promise<typeof WATCHING>((resolve) => (timer = setTimeout(() => resolve(WATCHING), WATCH_MS)));
    const first = await Promise.race([work, tick]).finally(() => clearTimeout(timer));
    if (first !== WATCHING) return { value: first as T, ended };
    if (!ended && !(await ctx.report.checkpoint())) {
      ended = true;
      stop.abort();
    }
  }
}
const WATCHING = Symbol('still copying');

/**
 * Files of one directory copied at a time: a small file costs a dozen filesystem calls, each a
 * round trip to the thread pool, so one at a time leaves the disk idle between them.
 */
const FILES_AT_ONCE = 8;

/** Copies one file unless the destination has it by the sync level; a failure of its source the policy skips is listed. */
export async function copyOne(ctx: CopyContext, source: Place, destination: Place, entry: FileEntry, demand: FileDemand): Promise<FileCopy> {
  ctx.report.count({ files: 1 });
  if (await inSync(ctx.policy, source, destination, entry, demand.algorithm)) {
    ctx.report.count({ filesSkipped: 1 });
    return PASSED;
  }
  let bytes: number;
  const stop = new AbortController();
  try {
    // the digest the copy must have, known before it takes its name (never after: the file there stays until a verified copy replaces it)
    const verify = ctx.policy.verify || demand.expected !== null ? { algorithm: demand.algorithm, expected: demand.expected ?? (await source.storage.checksum(source.path, demand.algorithm)) } : null;
    const progress = (bytes: number) => ctx.report.inFlight(bytes);
    const copying = copyBytes(ctx.path, source, destination, entry.size, verify, { lastModified: ctx.policy.preserveTimes ? entry.lastModified : undefined, signal: stop.signal, progress });
    const copied = await whileRunning(ctx, copying, stop).finally(() => ctx.report.inFlight(0));
    if (copied.ended) return ENDED_FILE;
    if (typeof copied.value !== 'number') return { kind: 'failed', failure: copied.value.refused };
    bytes = copied.value;
    if (verify) ctx.report.count({ bytesChecksummed: bytes });
  } catch (error) {
    if (stop.signal.aborted) return ENDED_FILE;
    if (!(error instanceof StorageError && error.path === source.path && skipsFailure(ctx.policy, { error, side: 'source' }))) throw error;
    await ctx.report.skipped(source.shown, destination.shown, { reason: error.failure, message: error.message });
    return PASSED;
  }
  ctx.report.count({ bytesTransferred: bytes, filesTransferred: 1 });
  return { kind: 'copied', file: { source: source.shown, destination: destination.shown } };
}

/** What a verified copy's digest must be. */
interface Verify {
  algorithm: ChecksumAlgorithm;
  expected: string;
}

/**
 * The file's bytes copied without this process where the storages can (two directories of one
 * host, two data nodes), else streamed through it, held to the `size` its source said. Verified,
 * the copy is made under a temporary name beside its own, digested there by its storage, and only
 * then put in the place of the file at its name: one whose digest differs never replaces it. The
 * bytes copied, or what refused the copy (a digest that differs, a wrong size).
 */
async function copyBytes(path: CopyPath, source: Place, destination: Place, size: number, verify: Verify | null, options: FileCopyOptions): Promise<number | { refused: CopyFailure }> {
  // a source that lies about its size fails the write (its bytes' iterator throws): what it did is kept here
  const held: { refused: CopyFailure | null } = { refused: null };
  const copyTo = (to: string) => (path.kernel !== null ? path.kernel.to.copyFile(path.kernel.from, source.path, to, options) : destination.storage.write(to, heldTo(source.storage.read(source.path), size, destination, held), { lastModified: options.lastModified }));
  const aside = verify && joinStoragePath(parentOf(destination.path), `/${`${VERIFYING_PREFIX}${randomBytes(6).toString('hex')}-${baseName(destination.path)}`.slice(0, 255)}`);
  try {
    if (verify === null || aside === null) return await copyTo(destination.path);
    const bytes = await copyTo(aside);
    const written = await destination.storage.checksum(aside, verify.algorithm);
    if (written !== verify.expected) {
      await destination.storage.remove(aside).catch(() => undefined);
      return { refused: mismatch(destination, verify, written) };
    }
    await destination.storage.remove(destination.path).catch((error: unknown) => {
      if (!(error instanceof StorageError && error.failure === 'not_found')) throw error;
    });
    await destination.storage.rename(aside, destination.path);
    return bytes;
  } catch (error) {
    if (aside !== null) await destination.storage.remove(aside).catch(() => undefined);
    if (held.refused !== null) return { refused: held.refused };
    throw error;
  }
}

/** A copy's temporary name beside its own while it is verified. */
const VERIFYING_PREFIX = '.xfer-verifying-';

const mismatch = (destination: Place, verify: Verify, written: string): CopyFailure => ({ reason: 'checksum_mismatch', message: `${destination.shown}: ${verify.algorithm} ${written}, expected ${verify.expected}` });

/**
 * A source's bytes held to the `size` it said: one byte more fails at once (an endless stream fills
 * nothing), fewer at its end fail too; why is kept in `held` (the writer of the bytes fails).
 */
async function* heldTo(data: AsyncIterable<Uint8Array>, size: number, destination: Place, held: { refused: CopyFailure | null }): AsyncIterable<Uint8Array> {
  let bytes = 0;
  const refuse = (message: string) => {
    held.refused = { reason: 'size_mismatch', message: `${destination.shown}: ${message}` };
    return new Error(held.refused.message);
  };
  for await (const chunk of data) {
    bytes += chunk.length;
    if (bytes > size) throw refuse(`its source sent more than the ${size} bytes it said the file has`);
    yield chunk;
  }
  if (bytes < size) throw refuse(`its source sent ${bytes} of the ${size} bytes it said the file has`);
}

/** Counts a batch copy's digested bytes and compares its digests: a copy whose digest differs was never placed (the batch copy keeps it from its name), and is the copy's failure. */
export function verifyCopy(report: CopyReport, destination: Place, bytes: number, algorithm: ChecksumAlgorithm, written: string, expected: string): CopyFailure | null {
  report.count({ bytesChecksummed: bytes });
  if (written === expected) return null;
  return mismatch(destination, { algorithm, expected }, written);
}

/** Whether the destination already has the file, by the sync level asked (none: never). */
export async function inSync(policy: CopyPolicy, source: Place, destination: Place, entry: FileEntry, algorithm: ChecksumAlgorithm): Promise<boolean> {
  const level = policy.syncLevel;
  if (level === null) return false;
  const there = await destination.storage.stat(destination.path).catch((error: unknown) => {
    if (error instanceof StorageError && error.failure === 'not_found') return null;
    throw error;
  });
  if (there === null || there.type !== 'file') return false;
  if (level === 0) return true;
  if (there.size !== entry.size) return false;
  if (level === 1) return true;
  if (level === 2) return there.lastModified.getTime() >= entry.lastModified.getTime();
  return (await source.storage.checksum(source.path, algorithm)) === (await destination.storage.checksum(destination.path, algorithm));
}

/**
 * Copies a directory's files FILES_AT_ONCE at a time, taking no new one once stopped, ended or
 * failed (the first file whatever happens: an attempt moves at least one); the ones in flight
 * finish and are recorded in the listing's order, then how it ended is the outcome.
 */
export async function copyFiles(ctx: CopyContext, files: readonly (TreeFile & { entry: FileEntry })[]): Promise<CopyOutcome> {
  const copied: (CopiedFile | null)[] = files.map(() => null);
  const halts: ({ outcome: CopyOutcome } | { error: unknown })[] = [];
  let next = 0;
  const worker = async () => {
    while (next < files.length && halts.length === 0 && (next === 0 || !ctx.signal.aborted)) {
      const at = next++;
      const file = files[at]!;
      try {
        await ctx.report.recheck();
        const result = await copyOne(ctx, file.source, file.destination, file.entry, NO_DEMAND);
        if (result.kind === 'failed') halts.push({ outcome: { kind: 'failed', failure: result.failure } });
        if (result.kind === 'ended') halts.push({ outcome: ENDED });
        if (result.kind === 'copied') copied[at] = result.file;
        if (!(await ctx.report.progressed())) halts.push({ outcome: ENDED });
      } catch (error) {
        halts.push({ error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(FILES_AT_ONCE, files.length) }, worker));
  await ctx.report.copied(copied.filter((file) => file !== null));
  const [first] = halts;
  if (first !== undefined && 'error' in first) throw first.error;
  return first?.outcome ?? (ctx.signal.aborted ? STOPPED : DONE);
}
