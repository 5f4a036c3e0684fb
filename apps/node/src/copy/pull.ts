import { createHash } from 'node:crypto';
import { joinStoragePath, StorageError, type DirectoryCopyOptions, type Storage } from '@xfer/core';
import { ChunkBuffers, failureToWire, NODE_STORAGE_PATH, READ_FILES, type PullLine, type PullRequest } from '@xfer/storage';
import type { Peers } from './Peers';
import { FrameReader, SMALL_FILE, type Frame } from './fileFrames';
import { describeError } from '../describeError';

/** A pull that answers nothing for this long: the source node is not reachable. */
const SOURCE_ANSWER_MS = 20_000;
/** How often the bytes of the file in hand are told (it keeps the API's answer alive). */
const PROGRESS_MS = 1_000;
/** Small files (SMALL_FILE) are received whole, then written while the next ones arrive, this many at once. */
const SMALL_WRITES_AT_ONCE = 32;
/** A larger file is written in chunks of this size, received up to this many chunks ahead of the disk. */
const WRITE_CHUNK = 2 ** 20;
const WRITES_AHEAD = 4;
/** The most of a source's refusal read for its message. */
const REFUSAL_BYTES = 64 * 1024;

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
export async function pullFiles(request: PullRequest, destination: Storage, source: PullSource, peers: Peers, signal: AbortSignal, tell: (line: PullLine) => void): Promise<void> {
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
  const pool = new ChunkBuffers(WRITE_CHUNK, WRITES_AHEAD + 2);
  let answer: ReadFilesAnswer;
  try {
    answer = await readFiles(peers, source, request.files.map((file) => file.name), signal, pool);
  } catch (error) {
    if (signal.aborted) return;
    tell({ unreachable: `the destination's node could not reach it (${describeError(error)})` });
    return;
  }
  if ('refused' in answer) {
    tell({ unreachable: `it refused the destination's node (${answer.refused.status}${answer.refused.message !== null ? `: ${answer.refused.message.slice(0, 200)}` : ''})` });
    return;
  }
  const frames = answer.frames[Symbol.asyncIterator]();
  let inHand = 0;
  const progress = setInterval(() => tell({ progress: inHand }), PROGRESS_MS);
  // outcomes in the files' order; small files' writes overlap, told as each in turn is known
  const window: Promise<Told>[] = [];
  let halted = false;
  const settle = async (most: number) => {
    while (window.length > most) {
      const told = await window.shift()!;
      if (halted) continue;
      tell(told.line);
      halted = told.halts;
    }
  };
  const sourceFailed = (error: StorageError): Told => ({ line: { failed: failureToWire(error), side: 'source' }, halts: !request.skipSourceFailures.includes(error.failure) });
  try {
    let bytesSoFar = 0;
    for (const [at, file] of files.entries()) {
      if (halted || signal.aborted) break;
      const first = await nextFrame(frames);
      if (first.kind === 'fail') {
        window.push(Promise.resolve(sourceFailed(first.error)));
        await settle(SMALL_WRITES_AT_ONCE);
        continue;
      }
      if (first.kind !== 'header' || first.header.name !== file.name) throw new Error('the stream of files is out of order');
      // the bytes of one call: the caller goes on from here (never before the first file)
      if (at > 0 && request.maxBytes !== null && bytesSoFar + first.header.size > request.maxBytes) break;
      bytesSoFar += first.header.size;
      const path = joinStoragePath(request.to, `/${file.as}`);
      const lastModified = file.lastModified ?? (request.sourceTimes ? new Date(first.header.mtime) : undefined);
      const hash = request.checksum ? createHash(request.checksum) : null;
      /** The copy's line: its bytes, and both digests where the grant asked (a pair that differs: the copy was never placed). */
      const copied = (bytes: number, digests: { source: string | null; destination: string } | null): Told => ({ line: { copied: { bytes, checksums: digests && digests.source !== null ? { source: digests.source, destination: digests.destination } : null } }, halts: false });
      const written = (error: unknown): Told => {
        if (error instanceof StorageError && !signal.aborted) return { line: { failed: failureToWire(error), side: 'destination' }, halts: true };
        throw error;
      };
      if (first.header.size <= SMALL_FILE) {
        // whole in memory, then written while the next files arrive
        const whole = await wholeFile(frames);
        if ('error' in whole) {
          window.push(Promise.resolve(sourceFailed(whole.error)));
        } else {
          const digests = hash && { source: whole.digest, destination: hash.update(whole.bytes).digest('hex') };
          // a copy whose digest differs is never written: the file at its name stays as it was
          if (digests && digests.source !== digests.destination) window.push(Promise.resolve(copied(whole.bytes.length, digests)));
          else window.push(destination.write(path, once(whole.bytes), { lastModified }).then((bytes) => copied(bytes, digests), written));
        }
        await settle(SMALL_WRITES_AT_ONCE);
        continue;
      }
      await settle(0);
      if (halted) break;
      let digests: { source: string | null; destination: string } | null = null;
      let sourceFailure: StorageError | null = null;
      inHand = 0;
      // each chunk goes back to the pool once the storage asks for the next (it has written it)
      async function* data(): AsyncIterable<Uint8Array> {
        let lent: Uint8Array | null = null;
        try {
          for (;;) {
            const frame = await nextFrame(frames);
            if (lent !== null) pool.give(lent);
            lent = null;
            if (frame.kind === 'data') {
              hash?.update(frame.bytes);
              inHand += frame.bytes.length;
              lent = frame.bytes;
              yield frame.bytes;
            } else if (frame.kind === 'end') {
              digests = hash && { source: frame.digest, destination: hash.digest('hex') };
              // compared before the write renames the copy into place: one that differs never takes its name
              if (digests && digests.source !== digests.destination) throw new DigestDiffers();
              return;
            } else if (frame.kind === 'fail') {
              sourceFailure = frame.error;
              throw frame.error;
            } else throw new Error('the stream of files is out of order');
          }
        } finally {
          if (lent !== null) pool.give(lent);
        }
      }
      let told: Told;
      try {
        const bytes = await destination.write(path, data(), { lastModified });
        told = copied(bytes, digests);
      } catch (error) {
        told = error instanceof DigestDiffers ? copied(inHand, digests) : sourceFailure !== null ? sourceFailed(sourceFailure) : written(error);
      }
      inHand = 0;
      window.push(Promise.resolve(told));
      await settle(0);
    }
    await settle(0);
    if (!signal.aborted) tell({ end: true });
  } catch (error) {
    // the writes under way end before the answer does
    await Promise.allSettled(window);
    if (signal.aborted) return;
    tell({ unreachable: `its stream of files was cut (${describeError(error)})` });
  } finally {
    clearInterval(progress);
    await frames.return?.();
    answer.stop();
  }
}

/** A file's copy whose digest differs from its source's: dropped before it takes its name. */
class DigestDiffers extends Error {}

/** A file's line to tell, and whether the copy stops after it. */
interface Told {
  line: PullLine;
  halts: boolean;
}

/** A small file's bytes read whole from the stream (and the digest its source sent), or its source's failure. */
async function wholeFile(frames: AsyncIterator<Frame>): Promise<{ bytes: Uint8Array; digest: string | null } | { error: StorageError }> {
  const pieces: Uint8Array[] = [];
  for (;;) {
    const frame = await nextFrame(frames);
    if (frame.kind === 'data') pieces.push(frame.bytes);
    else if (frame.kind === 'end') return { bytes: pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces), digest: frame.digest };
    else if (frame.kind === 'fail') return { error: frame.error };
    else throw new Error('the stream of files is out of order');
  }
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** The source's answer to read-files: its frames as they arrive (`stop` ends the call), or its refusal. */
type ReadFilesAnswer = { frames: FrameReader; stop: () => void } | { refused: { status: number; message: string | null } };

/**
 * Asks the source's node for the files `names` of `source.grant` (`read-files`): each piece of the answer
 * goes to a FrameReader as it is read, the connection paused while WRITES_AHEAD chunks wait for
 * the disk. Rejects when the node cannot be reached or answers nothing within SOURCE_ANSWER_MS;
 * an abort of `signal` cuts the stream.
 */
function readFiles(peers: Peers, source: { url: string; grant: string }, names: readonly string[], signal: AbortSignal, pool: ChunkBuffers): Promise<ReadFilesAnswer> {
  const url = new URL(`${source.url.replace(/\/+$/, '')}${NODE_STORAGE_PATH}/${READ_FILES}`);
  return new Promise<ReadFilesAnswer>((resolve, reject) => {
    let frames: FrameReader | null = null;
    let refusal: { status: number; pieces: Buffer[]; bytes: number } | null = null;
    const stop = () => call.stop(new Error('the copy ended'));
    const call = peers.post(url, source.grant, JSON.stringify({ names }), SOURCE_ANSWER_MS, {
      status(code) {
        if (code !== 200) refusal = { status: code, pieces: [], bytes: 0 };
        else {
          frames = new FrameReader(pool, WRITE_CHUNK, WRITES_AHEAD * WRITE_CHUNK, () => call.resume());
          resolve({ frames, stop });
        }
      },
      body(piece) {
        // a refusal's words are read up to REFUSAL_BYTES, never its whole body
        if (refusal !== null && refusal.bytes < REFUSAL_BYTES) {
          refusal.pieces.push(Buffer.from(piece.subarray(0, REFUSAL_BYTES - refusal.bytes)));
          refusal.bytes += piece.length;
        }
        return frames?.push(piece) ?? true;
      },
      end() {
        signal.removeEventListener('abort', stop);
        if (refusal !== null) resolve({ refused: { status: refusal.status, message: messageOf(Buffer.concat(refusal.pieces)) } });
        else frames?.end();
      },
      failed(error) {
        signal.removeEventListener('abort', stop);
        if (frames !== null) frames.fail(error);
        else reject(error);
      },
    });
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
}

/** The message of a refusal's JSON document, if it has one. */
function messageOf(body: Buffer): string | null {
  try {
    const said = (JSON.parse(body.toString('utf8')) as { message?: unknown } | null)?.message;
    return typeof said === 'string' ? said : null;
  } catch {
    return null;
  }
}

async function nextFrame(frames: AsyncIterator<Frame>): Promise<Frame> {
  const next = await frames.next();
  if (next.done) throw new Error('the stream of files ended early');
  return next.value;
}
