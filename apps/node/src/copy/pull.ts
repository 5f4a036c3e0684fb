import { createHash } from 'node:crypto';
import { joinStoragePath, StorageError, type DirectoryCopyOptions, type Storage } from '@xfer/core';
import { failureToWire, NODE_STORAGE_PATH, READ_FILES, type PullLine, type PullRequest } from '@xfer/storage';
import type { PeerPools } from './PeerPools';
import { readFrames, type Frame } from './fileFrames';

/** A pull that answers nothing for this long: the source node is not reachable. */
const SOURCE_ANSWER_MS = 20_000;
/** How often the bytes of the file in hand are told (it keeps the API's answer alive). */
const PROGRESS_MS = 2_000;

/** Where a pull's files come from: a storage of this node, or another node under the API's grant. */
export type PullSource = { local: Storage } | { url: string; grant: string };

/**
 * The destination's side of a copy between nodes: the files of `request.from` copied into
 * `request.to` of `destination` in order, each outcome told through `tell` as it is known, then
 * `end`. From this node's own storage, its batch copy (the posix adapter's kernel copy, on its copy
 * threads); from another node, the files streamed from it (`read-files`), each written through a
 * temporary name, digested as it is written. Aborted (the API closed the call), the file in hand
 * is dropped, never left at its name.
 */
export async function pullFiles(request: PullRequest, destination: Storage, source: PullSource, peers: PeerPools, signal: AbortSignal, tell: (line: PullLine) => void): Promise<void> {
  const options: DirectoryCopyOptions = { checksum: request.checksum, skipSourceFailures: request.skipSourceFailures, sourceTimes: request.sourceTimes, signal, ...(request.maxBytes !== null && { maxBytes: request.maxBytes }) };
  const files = request.files.map((file) => ({ name: file.name, as: file.as ?? file.name, ...(file.lastModified !== undefined && { lastModified: new Date(file.lastModified) }) }));
  if ('local' in source && request.files.some((file) => file.as !== undefined)) {
    // files under other names: each by the storages' kernel copy
    const [from, to] = [source.local.features.kernelCopy, destination.features.kernelCopy];
    if (from === null || to === null || from.host !== to.host) throw new Error("this node's storages have no kernel copy between them");
    for (const file of files) {
      try {
        tell({ copied: { bytes: await to.copyFile(from, joinStoragePath(request.from, `/${file.name}`), joinStoragePath(request.to, `/${file.as}`), { lastModified: file.lastModified }), checksums: null } });
      } catch (error) {
        if (!(error instanceof StorageError)) throw error;
        tell({ failed: failureToWire(error), side: error.path === joinStoragePath(request.from, `/${file.name}`) ? 'source' : 'destination' });
        break;
      }
    }
    tell({ end: true });
    return;
  }
  if ('local' in source) {
    const [from, to] = [source.local.features.batchCopy, destination.features.batchCopy];
    if (from === null || to === null || from.host !== to.host) throw new Error("this node's storages have no batch copy between them");
    for (const outcome of await to.copyFiles(from, request.from, request.to, files, options)) {
      tell('error' in outcome ? { failed: failureToWire(outcome.error), side: outcome.side } : { copied: outcome });
    }
    tell({ end: true });
    return;
  }
  const url = new URL(source.url);
  let answer;
  try {
    answer = await peers.pool(url.origin).request({
      path: `${url.pathname.replace(/\/+$/, '')}${NODE_STORAGE_PATH}/${READ_FILES}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant: source.grant }),
      headersTimeout: SOURCE_ANSWER_MS,
      bodyTimeout: SOURCE_ANSWER_MS,
      signal,
    });
  } catch (error) {
    if (signal.aborted) return;
    tell({ unreachable: `the destination's node could not reach it (${describe(error)})` });
    return;
  }
  if (answer.statusCode !== 200) {
    const said = ((await answer.body.json().catch(() => null)) as { message?: unknown } | null)?.message;
    tell({ unreachable: `it refused the destination's node (${answer.statusCode}${typeof said === 'string' ? `: ${said.slice(0, 200)}` : ''})` });
    return;
  }
  const frames = readFrames(answer.body)[Symbol.asyncIterator]();
  let inHand = 0;
  const progress = setInterval(() => tell({ progress: inHand }), PROGRESS_MS);
  try {
    let bytesSoFar = 0;
    for (const [at, file] of files.entries()) {
      const first = await nextFrame(frames);
      if (first.kind === 'fail') {
        tell({ failed: failureToWire(first.error), side: 'source' });
        if (request.skipSourceFailures.includes(first.error.failure)) continue;
        break;
      }
      if (first.kind !== 'header' || first.header.name !== file.name) throw new Error('the stream of files is out of order');
      // the bytes of one call: the caller goes on from here (never before the first file)
      if (at > 0 && request.maxBytes !== null && bytesSoFar + first.header.size > request.maxBytes) break;
      const hash = request.checksum ? createHash(request.checksum) : null;
      let sourceDigest: string | null = null;
      let sourceFailure: StorageError | null = null;
      inHand = 0;
      async function* data(): AsyncIterable<Uint8Array> {
        for (;;) {
          const frame = await nextFrame(frames);
          if (frame.kind === 'data') {
            hash?.update(frame.bytes);
            inHand += frame.bytes.length;
            yield frame.bytes;
          } else if (frame.kind === 'end') {
            sourceDigest = frame.digest;
            return;
          } else if (frame.kind === 'fail') {
            sourceFailure = frame.error;
            throw frame.error;
          } else throw new Error('the stream of files is out of order');
        }
      }
      const lastModified = file.lastModified ?? (request.sourceTimes ? new Date(first.header.mtime) : undefined);
      let bytes: number;
      try {
        bytes = await destination.write(joinStoragePath(request.to, `/${file.as}`), data(), { lastModified });
      } catch (error) {
        if (sourceFailure !== null) {
          const failure: StorageError = sourceFailure;
          tell({ failed: failureToWire(failure), side: 'source' });
          if (request.skipSourceFailures.includes(failure.failure)) continue;
          break;
        }
        if (error instanceof StorageError && !signal.aborted) {
          tell({ failed: failureToWire(error), side: 'destination' });
          break;
        }
        throw error;
      }
      bytesSoFar += bytes;
      tell({ copied: { bytes, checksums: hash && sourceDigest !== null ? { source: sourceDigest, destination: hash.digest('hex') } : null } });
      if (signal.aborted) break;
    }
    tell({ end: true });
  } catch (error) {
    if (signal.aborted) return;
    tell({ unreachable: `its stream of files was cut (${describe(error)})` });
  } finally {
    clearInterval(progress);
    await frames.return?.();
    if (!answer.body.readableEnded) answer.body.destroy();
  }
}

async function nextFrame(frames: AsyncIterator<Frame>): Promise<Frame> {
  const next = await frames.next();
  if (next.done) throw new Error('the stream of files ended early');
  return next.value;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: string }).code;
  return code ? `${code}: ${error.message}` : error.message;
}
