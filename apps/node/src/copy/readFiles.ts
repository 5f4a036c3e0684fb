import { ChunkBuffers, NODE_STORAGE_PATH, READ_FILES } from '@xfer/storage';
import type { Peers } from './Peers';
import { FrameReader } from './fileFrames';

/** A read-files call that answers nothing for this long: the source node is not reachable. */
const SOURCE_ANSWER_MS = 20_000;
/** A larger file is written in chunks of this size, received up to this many chunks ahead of the disk. */
export const WRITE_CHUNK = 2 ** 20;
export const WRITES_AHEAD = 4;
/** The most of a source's refusal read for its message. */
const REFUSAL_BYTES = 64 * 1024;

/** The source's answer to read-files: its frames as they arrive (`stop` ends the call), or its refusal. */
export type ReadFilesAnswer = { frames: FrameReader; stop: () => void } | { refused: { status: number; message: string | null } };

/**
 * Asks the source's node for the files `names` of `source.grant` (`read-files`): each piece of the answer
 * goes to a FrameReader as it is read, the connection paused while WRITES_AHEAD chunks wait for
 * the disk. Rejects when the node cannot be reached or answers nothing within SOURCE_ANSWER_MS;
 * an abort of `signal` cuts the stream.
 */
export function readFiles(peers: Peers, source: { url: string; grant: string }, names: readonly string[], signal: AbortSignal, pool: ChunkBuffers): Promise<ReadFilesAnswer> {
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

