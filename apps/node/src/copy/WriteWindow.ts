import { createHash } from 'node:crypto';
import { StorageError, type ChecksumAlgorithm, type Storage } from '@xfer/core';
import { failureToWire, type ChunkBuffers, type PullLine } from '@xfer/storage';
import type { Frame } from './fileFrames';

/** Small files, received whole, are written while the next ones arrive, this many at once. */
const SMALL_WRITES_AT_ONCE = 32;

/** A file's copy whose digest differs from its source's: dropped before it takes its name. */
class DigestDiffers extends Error {}

/** The digests a copy is told with: its source's as the source sent it, its own as it was written. */
type Digests = { source: string | null; destination: string } | null;

/**
 * The destination's writes of a pull from another node, and the lines that tell them, in the
 * files' order: small files written side by side (SMALL_WRITES_AT_ONCE), a large one streamed
 * alone once those before it are told. Each copy takes its name only whole, with the bytes its
 * header said (the frames hold it to them) and, where the grant asks for digests, the source's
 * digest: one that differs is never written (F7), and told with both digests.
 */
export class WriteWindow {
  private readonly told: Promise<PullLine>[] = [];
  /** The bytes of the large file in hand so far (told now and then: progress). */
  inHand = 0;

  constructor(
    private readonly destination: Storage,
    private readonly checksum: ChecksumAlgorithm | null,
    private readonly signal: AbortSignal,
    private readonly tell: (line: PullLine) => void,
    private readonly pool: ChunkBuffers,
  ) {}

  /** A file its source could not read: told in its turn. */
  sourceFailed(error: StorageError): Promise<void> {
    return this.push(Promise.resolve({ failed: failureToWire(error), side: 'source' }), SMALL_WRITES_AT_ONCE);
  }

  /** A small file received whole: written while the next ones arrive, unless its digest differs. */
  whole(path: string, file: { bytes: Uint8Array; digest: string | null }, lastModified: Date | undefined): Promise<void> {
    const digests = this.checksum && { source: file.digest, destination: createHash(this.checksum).update(file.bytes).digest('hex') };
    if (digests && digests.source !== digests.destination) return this.push(Promise.resolve(copied(file.bytes.length, digests)), SMALL_WRITES_AT_ONCE);
    const writing = this.destination.write(path, once(file.bytes), { lastModified }).then((bytes) => copied(bytes, digests), (error: unknown) => this.destinationFailed(error));
    return this.push(writing, SMALL_WRITES_AT_ONCE);
  }

  /** A large file streamed from `frames` to its end, each chunk back to the pool once written; after the files before it are told. */
  async stream(path: string, frames: AsyncIterator<Frame>, lastModified: Date | undefined): Promise<void> {
    await this.settle(0);
    const hash = this.checksum && createHash(this.checksum);
    let digests: Digests = null;
    let sourceFailure: StorageError | null = null;
    this.inHand = 0;
    const pool = this.pool;
    const received = (bytes: number) => (this.inHand += bytes);
    async function* data(): AsyncIterable<Uint8Array> {
      let lent: Uint8Array | null = null;
      try {
        for (let frame = await nextFrame(frames); ; frame = await nextFrame(frames)) {
          if (lent !== null) pool.give(lent);
          lent = null;
          if (frame.kind === 'end') {
            digests = hash && { source: frame.digest, destination: hash.digest('hex') };
            // compared before the write renames the copy into place
            if (digests && digests.source !== digests.destination) throw new DigestDiffers();
            return;
          }
          if (frame.kind === 'fail') throw (sourceFailure = frame.error);
          if (frame.kind !== 'data') throw new Error('the stream of files is out of order');
          hash?.update(frame.bytes);
          received(frame.bytes.length);
          yield (lent = frame.bytes);
        }
      } finally {
        if (lent !== null) pool.give(lent);
      }
    }
    const line = await this.destination.write(path, data(), { lastModified }).then(
      (bytes) => copied(bytes, digests),
      (error: unknown): PullLine => (error instanceof DigestDiffers ? copied(this.inHand, digests) : sourceFailure !== null ? { failed: failureToWire(sourceFailure), side: 'source' } : this.destinationFailed(error)),
    );
    this.inHand = 0;
    await this.push(Promise.resolve(line), 0);
  }

  /** Tells the lines of the writes under way, in order, until at most `most` are left. */
  async settle(most: number): Promise<void> {
    while (this.told.length > most) this.tell(await this.told.shift()!);
  }

  /** Waits for the writes under way, telling nothing more (the stream was cut). */
  async drain(): Promise<void> {
    await Promise.allSettled(this.told.splice(0));
  }

  private async push(line: Promise<PullLine>, most: number): Promise<void> {
    line.catch(() => undefined);
    this.told.push(line);
    await this.settle(most);
  }

  /** A storage's refusal of the write, told as the destination's failure (the API decides what it means); anything else goes on up. */
  private destinationFailed(error: unknown): PullLine {
    if (error instanceof StorageError && !this.signal.aborted) return { failed: failureToWire(error), side: 'destination' };
    throw error;
  }
}

const copied = (bytes: number, digests: Digests): PullLine => ({ copied: { bytes, checksums: digests && digests.source !== null ? { source: digests.source, destination: digests.destination } : null } });

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** The next frame of the stream; its end here is a failure. */
export async function nextFrame(frames: AsyncIterator<Frame>): Promise<Frame> {
  const next = await frames.next();
  if (next.done) throw new Error('the stream of files ended early');
  return next.value;
}

/** A small file's bytes read whole from the stream (and the digest its source sent), or its source's failure. */
export async function wholeFile(frames: AsyncIterator<Frame>): Promise<{ bytes: Uint8Array; digest: string | null } | { error: StorageError }> {
  const pieces: Uint8Array[] = [];
  for (;;) {
    const frame = await nextFrame(frames);
    if (frame.kind === 'data') pieces.push(frame.bytes);
    else if (frame.kind === 'end') return { bytes: pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces), digest: frame.digest };
    else if (frame.kind === 'fail') return { error: frame.error };
    else throw new Error('the stream of files is out of order');
  }
}
