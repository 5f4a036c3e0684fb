import { joinStoragePath, StorageError, type Storage } from '@xfer/core';
import { ChunkBuffers, failureToWire, type PullLine, type PullRequest } from '@xfer/storage';
import { describeError } from '../describeError';
import { SMALL_FILE } from './fileFrames';
import type { Peers } from './Peers';
import { readFiles, WRITE_CHUNK, WRITES_AHEAD } from './readFiles';
import { nextFrame, wholeFile, WriteWindow } from './WriteWindow';

/** How often the bytes of the file in hand are told (it keeps the API's answer alive). */
const PROGRESS_MS = 1_000;

/** Where a pull's files come from: a storage of this node, or another node under the API's grant. */
export type PullSource = { local: Storage } | { url: string; grant: string };

/**
 * The destination's side of a copy between nodes: the files of `request.from` copied into
 * `request.to` of `destination` in order, each whatever became of the ones before (what a failure
 * means is the API's to decide: it closes the call where it stops), each outcome told through
 * `tell` as it is known, then `end`. From this node's own storage, its storages' copies; from
 * another node, the files streamed from it (`read-files`). Aborted (the API closed the call), the
 * file in hand is dropped, never left at its name.
 */
export function pullFiles(request: PullRequest, destination: Storage, source: PullSource, peers: Peers, signal: AbortSignal, tell: (line: PullLine) => void): Promise<void> {
  return 'local' in source ? pullLocal(request, destination, source.local, signal, tell) : pullRemote(request, destination, source, peers, signal, tell);
}

/** From this node's own storage: a directory's files by the batch copy (its copy threads), files under other names each by the kernel copy. */
async function pullLocal(request: PullRequest, destination: Storage, local: Storage, signal: AbortSignal, tell: (line: PullLine) => void): Promise<void> {
  const files = request.files.map((file) => ({ name: file.name, as: file.as ?? file.name, ...(file.lastModified !== undefined && { lastModified: new Date(file.lastModified) }) }));
  if (request.files.some((file) => file.as !== undefined)) {
    const [from, to] = [local.features.kernelCopy, destination.features.kernelCopy];
    if (from === null || to === null || from.host !== to.host) throw new Error("this node's storages have no kernel copy between them");
    for (const file of files) {
      if (signal.aborted) return;
      const path = joinStoragePath(request.from, `/${file.name}`);
      try {
        tell({ copied: { bytes: await to.copyFile(from, path, joinStoragePath(request.to, `/${file.as}`), { lastModified: file.lastModified }), checksums: null } });
      } catch (error) {
        if (!(error instanceof StorageError)) throw error;
        tell({ failed: failureToWire(error), side: error.path === path ? 'source' : 'destination' });
      }
    }
  } else {
    const [from, to] = [local.features.batchCopy, destination.features.batchCopy];
    if (from === null || to === null || from.host !== to.host) throw new Error("this node's storages have no batch copy between them");
    const options = { checksum: request.checksum, sourceTimes: request.sourceTimes, signal, ...(request.maxBytes !== null && { maxBytes: request.maxBytes }) };
    for await (const outcomes of to.copyFiles(from, request.from, request.to, files, options)) {
      for (const outcome of outcomes) tell('error' in outcome ? { failed: failureToWire(outcome.error), side: outcome.side } : { copied: outcome });
    }
  }
  if (!signal.aborted) tell({ end: true });
}

/** From another node: its stream of the files, each written through the write window as it arrives, until the call's bytes. */
async function pullRemote(request: PullRequest, destination: Storage, source: { url: string; grant: string }, peers: Peers, signal: AbortSignal, tell: (line: PullLine) => void): Promise<void> {
  const pool = new ChunkBuffers(WRITE_CHUNK, WRITES_AHEAD + 2);
  const answer = await readFiles(peers, source, request.files.map((file) => file.name), signal, pool).catch((error: unknown) => ({ failed: error }));
  if ('failed' in answer || 'refused' in answer) {
    if (!signal.aborted) tell({ unreachable: 'refused' in answer ? `it refused the destination's node (${answer.refused.status}${answer.refused.message !== null ? `: ${answer.refused.message.slice(0, 200)}` : ''})` : `the destination's node could not reach it (${describeError(answer.failed)})` });
    return;
  }
  const frames = answer.frames[Symbol.asyncIterator]();
  const window = new WriteWindow(destination, request.checksum, signal, tell, pool);
  const progress = setInterval(() => tell({ progress: window.inHand }), PROGRESS_MS);
  try {
    let bytesSoFar = 0;
    for (const [at, file] of request.files.entries()) {
      if (signal.aborted) break;
      const first = await nextFrame(frames);
      if (first.kind === 'fail') {
        await window.sourceFailed(first.error);
        continue;
      }
      if (first.kind !== 'header' || first.header.name !== file.name) throw new Error('the stream of files is out of order');
      // the bytes of one call: the caller goes on from here (never before the first file)
      if (at > 0 && request.maxBytes !== null && bytesSoFar + first.header.size > request.maxBytes) break;
      bytesSoFar += first.header.size;
      const path = joinStoragePath(request.to, `/${file.as ?? file.name}`);
      const lastModified = file.lastModified !== undefined ? new Date(file.lastModified) : request.sourceTimes ? new Date(first.header.mtime) : undefined;
      if (first.header.size > SMALL_FILE) await window.stream(path, frames, lastModified);
      else {
        const whole = await wholeFile(frames);
        await ('error' in whole ? window.sourceFailed(whole.error) : window.whole(path, whole, lastModified));
      }
    }
    await window.settle(0);
    if (!signal.aborted) tell({ end: true });
  } catch (error) {
    // the writes under way end before the answer does
    await window.drain();
    if (!signal.aborted) tell({ unreachable: `its stream of files was cut (${describeError(error)})` });
  } finally {
    clearInterval(progress);
    await frames.return?.();
    answer.stop();
  }
}
