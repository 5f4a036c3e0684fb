import type { BatchCopy, DirectoryCopyOptions, DirectoryFileCopy } from '../storage/Storage';
import { skipsFailure, type Place } from './CopyPolicy';
import { DONE, ENDED, STOPPED, storageFailure, type CopiedFile, type CopyFailure, type CopyOutcome } from './CopyReport';
import { inSync, verifyCopy, whileRunning, type CopyContext } from './fileCopy';
import type { TreeFile } from './walk';

/**
 * Files, and bytes, of one directory handed to a batch copy at a time, progress saved after
 * each: on a copy thread 1,000 small files take about 0.1-0.3 s, and each batch costs a round trip
 * and two writes; a larger file goes alone, so that a stopping process waits for one file at most.
 */
const COPY_BATCH = { files: 1000, bytes: 256 * 2 ** 20 };

/** A batch handed to the copy, and what became of each of its files. */
interface Copied {
  batch: TreeFile[];
  copied: readonly DirectoryFileCopy[];
}

/**
 * Copies a directory's files together (COPY_BATCH at a time, those in sync left out first): the
 * storages copy a batch while the one before is recorded and checkpointed; an end or a stop
 * noticed meanwhile stops the batch in flight after the file in hand (recorded, then the outcome).
 * It takes no new batch once stopped, and records what was copied before a failure. Files listed
 * without a stat (no entry) are bounded by bytes by the storages, where the batch then goes on.
 */
export async function copyBatches(ctx: CopyContext, copy: { from: BatchCopy; to: BatchCopy }, source: Place, destination: Place, files: readonly TreeFile[]): Promise<CopyOutcome> {
  const record = async (copied: Copied): Promise<CopyOutcome> => {
    const recorded = await recordCopies(ctx, copied);
    return recorded.kind !== 'done' || (await ctx.report.checkpoint()) ? recorded : ENDED;
  };
  let unrecorded: Copied | null = null;
  for (let at = 0; at < files.length; ) {
    // the first batch is copied whatever happens: an attempt moves at least one file
    if (at > 0 && ctx.signal.aborted) break;
    await ctx.report.recheck();
    const start = at;
    at += batchOf(files, at);
    const found = await outOfSync(ctx, files, start, at);
    let batch = found.batch;
    if (batch.length === 0) continue;
    const { copying, stop, signal } = startBatch(ctx, copy, source, destination, batch, start > 0);
    let ended = false;
    if (unrecorded !== null) {
      const recorded = await recordWhileCopying(ctx, unrecorded, record, copying, stop);
      unrecorded = null;
      if (recorded.kind === 'failed') return recorded;
      ended = recorded.kind === 'ended';
    }
    const watched = await whileRunning(ctx, copying, stop).finally(() => ctx.report.inFlight(0));
    const copied = watched.value;
    ended ||= watched.ended;
    const failed = copied.some((outcome) => 'error' in outcome && !skipsFailure(ctx.policy, outcome));
    // stopped at the bytes of a call: the rest go with the next batch
    if (!failed && !signal.aborted && copied.length < batch.length) {
      if (copied.length === 0) throw new Error(`${destination.shown}: a directory copy answered for no file`);
      at = found.positions[copied.length]!;
      batch = batch.slice(0, copied.length);
    }
    if (ended) {
      // what the stopped batch placed is listed; a failure among it no longer matters
      await recordCopies(ctx, { batch, copied });
      return ENDED;
    }
    unrecorded = { batch, copied };
    // a failure (the batch ended at it) or a stop is recorded before anything else is copied
    if (signal.aborted || copied.length < batch.length || failed) {
      const recorded = await record(unrecorded);
      if (recorded.kind !== 'done') return recorded;
      unrecorded = null;
      if (signal.aborted) break;
    }
  }
  const recorded = unrecorded === null ? DONE : await record(unrecorded);
  return recorded.kind === 'done' && ctx.signal.aborted ? STOPPED : recorded;
}

/**
 * A batch handed to the storages' copy, with its own stop (the process's stop reaches it too where
 * it is not the directory's first): its outcomes gathered as they are told, up to and with the
 * first failure the policy does not skip, where the copy is stopped (after the file in hand).
 */
function startBatch(ctx: CopyContext, copy: { from: BatchCopy; to: BatchCopy }, source: Place, destination: Place, batch: readonly TreeFile[], stoppable: boolean) {
  const stop = new AbortController();
  const signal = stoppable ? AbortSignal.any([stop.signal, ctx.signal]) : stop.signal;
  const files = batch.map((file) => ({ name: file.name, ...(ctx.policy.preserveTimes && file.entry !== null && { lastModified: file.entry.lastModified }) }));
  const options: DirectoryCopyOptions = { checksum: ctx.policy.verify ? 'md5' : null, sourceTimes: ctx.policy.preserveTimes, maxBytes: COPY_BATCH.bytes, signal, progress: (bytes) => ctx.report.inFlight(bytes) };
  const copying = (async () => {
    const copied: DirectoryFileCopy[] = [];
    let stopped = false;
    for await (const told of copy.to.copyFiles(copy.from, source.path, destination.path, files, options)) {
      for (const outcome of stopped ? [] : told) {
        copied.push(outcome);
        if ('error' in outcome && !skipsFailure(ctx.policy, outcome)) {
          // what the copy stops at is decided here: the storages stop after the file in hand
          stopped = true;
          stop.abort();
          break;
        }
      }
    }
    return copied;
  })();
  // it may fail while the batch before is recorded (on Postgres, over round trips): handled
  // here, so that it is no unhandled rejection meanwhile; awaited later, it still throws
  copying.catch(() => undefined);
  return { copying, stop, signal };
}

/**
 * Records the batch before while the next one copies: a failure found there stops the one in
 * flight and waits for it (the outcome); an end or a stop found meanwhile stops it after the file
 * in hand.
 */
async function recordWhileCopying(ctx: CopyContext, previous: Copied, record: (copied: Copied) => Promise<CopyOutcome>, copying: Promise<unknown>, stop: AbortController): Promise<CopyOutcome> {
  const halt = async () => {
    stop.abort();
    await copying.catch(() => null);
  };
  const recorded = await record(previous).catch(async (error: unknown) => {
    await halt();
    throw error;
  });
  if (recorded.kind === 'failed') await halt();
  else if (recorded.kind === 'ended' || ctx.signal.aborted) stop.abort();
  return recorded;
}

/** The files from `start` to `end` that the destination has not by the sync level (all without one), with where each is in `files`. */
async function outOfSync(ctx: CopyContext, files: readonly TreeFile[], start: number, end: number): Promise<{ batch: TreeFile[]; positions: number[] }> {
  const batch: TreeFile[] = [];
  const positions: number[] = [];
  for (let at = start; at < end; at += 1) {
    const file = files[at]!;
    // without a sync level every file is copied: no call a file to ask
    if (ctx.policy.syncLevel !== null && file.entry !== null && (await inSync(ctx.policy, file.source, file.destination, file.entry, 'md5'))) {
      ctx.report.count({ files: 1, filesSkipped: 1 });
      continue;
    }
    batch.push(file);
    positions.push(at);
  }
  return { batch, positions };
}

/** Records a batch's copies, up to and with a failure (the outcome), a source's failure the policy skips listed. */
async function recordCopies(ctx: CopyContext, { batch, copied }: Copied): Promise<CopyOutcome> {
  const records: CopiedFile[] = [];
  // counted once for the batch, up to and with a failure
  const counted = { files: 0, bytesTransferred: 0, filesTransferred: 0 };
  let failure: CopyFailure | null = null;
  for (const [i, outcome] of copied.entries()) {
    const { source, destination } = batch[i]!;
    counted.files += 1;
    if ('error' in outcome) {
      if (!skipsFailure(ctx.policy, outcome)) {
        failure = storageFailure(outcome.error);
        break;
      }
      await ctx.report.skipped(source.shown, destination.shown, { reason: outcome.error.failure, message: outcome.error.message });
      continue;
    }
    counted.bytesTransferred += outcome.bytes;
    counted.filesTransferred += 1;
    if (outcome.checksums !== null) failure = verifyCopy(ctx.report, destination, outcome.bytes, 'md5', outcome.checksums.destination, outcome.checksums.source);
    if (failure !== null) break;
    records.push({ source: source.shown, destination: destination.shown });
  }
  ctx.report.count(counted);
  await ctx.report.copied(records);
  return failure === null ? DONE : { kind: 'failed', failure };
}

/** How many of `files` from `at` go in one batch (at least one): sizes unknown (no entry) count as none, the storages bounding those. */
function batchOf(files: readonly TreeFile[], at: number): number {
  const size = (file: TreeFile) => file.entry?.size ?? 0;
  let bytes = size(files[at]!);
  let taken = 1;
  while (at + taken < files.length && taken < COPY_BATCH.files && bytes + size(files[at + taken]!) <= COPY_BATCH.bytes) bytes += size(files[at + taken++]!);
  return taken;
}
