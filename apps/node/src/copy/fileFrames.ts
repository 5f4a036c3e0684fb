import { createHash } from 'node:crypto';
import { joinStoragePath, StorageError, type ChunkPool, type Storage } from '@xfer/core';
import { failureFromWire, failureToWire, type ReadGrant, type WireFailure } from '@xfer/storage';

/**
 * The stream of files a source node sends the destination of a copy (`read-files`): frames of a
 * kind byte and a 32-bit length. Each file is a HEADER (name, size, modification time), its bytes
 * in DATA frames, then END (the digest computed as it was read, when the grant asks for one); a
 * file that cannot be read is a FAIL (the StorageError), before or among its DATA frames.
 */
const HEADER = 0x48;
const DATA = 0x44;
const END = 0x45;
const FAIL = 0x58;
const FRAME_HEAD = 5;
/** The longest control frame (a header, an end, a failure: a name and a path at most, well under it); a longer one fails the stream at once. */
export const MAX_CONTROL_FRAME = 64 * 1024;
/** Small files' frames go out together, in writes of about this many bytes. */
const COALESCE_BYTES = 64 * 1024;

export interface FileHeader {
  name: string;
  size: number;
  /** Milliseconds since the epoch. */
  mtime: number;
}

export type Frame = { kind: 'header'; header: FileHeader } | { kind: 'data'; bytes: Uint8Array } | { kind: 'end'; digest: string | null } | { kind: 'fail'; error: StorageError };

function head(kind: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(FRAME_HEAD);
  bytes[0] = kind;
  bytes.writeUInt32BE(length, 1);
  return bytes;
}

function jsonFrame(kind: number, value: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(value));
  return Buffer.concat([head(kind, payload.length), payload]);
}

/**
 * A small file, up to this size: the source reads it whole ahead of its turn, FILES_AHEAD files
 * ahead (each costs several calls to the filesystem: one after another they leave it idle); the
 * destination gathers it into one buffer of its size and writes several at once.
 */
export const SMALL_FILE = 256 * 1024;
const FILES_AHEAD = 32;

/** A file of the grant as it is sent: read whole already, to be streamed at its turn, or its failure. */
type Loaded = { kind: 'whole'; header: FileHeader; bytes: Buffer; digest: string | null } | { kind: 'stream'; header: FileHeader; path: string } | { kind: 'fail'; error: StorageError };

async function load(storage: Storage, path: string, name: string, checksum: ReadGrant['checksum']): Promise<Loaded> {
  try {
    const entry = await storage.stat(path);
    if (entry.type === 'dir') throw new StorageError('is_directory', path, `${path}: a directory, not a file`);
    if (entry.size > SMALL_FILE) return { kind: 'stream', header: { name, size: entry.size, mtime: entry.lastModified.getTime() }, path };
    const pieces: Buffer[] = [];
    for await (const chunk of storage.read(path)) pieces.push(Buffer.from(chunk));
    const bytes = Buffer.concat(pieces);
    // its size as read (a file that changed since its stat is sent as it was read)
    return { kind: 'whole', header: { name, size: bytes.length, mtime: entry.lastModified.getTime() }, bytes, digest: checksum ? createHash(checksum).update(bytes).digest('hex') : null };
  } catch (error) {
    if (error instanceof StorageError) return { kind: 'fail', error };
    throw error;
  }
}

/**
 * The files a grant names, read from `storage` and framed, in order. Small files are read whole
 * FILES_AHEAD ahead of their turn; their frames are gathered into writes of COALESCE_BYTES. A
 * larger file is read at its turn into `pool`'s chunks, each sent as it is (given back by whoever
 * sends it).
 */
export async function* fileFrames(storage: Storage, grant: ReadGrant, pool: ChunkPool): AsyncIterable<Uint8Array> {
  let gathered: Buffer[] = [];
  let gatheredBytes = 0;
  const gather = (bytes: Buffer) => {
    gathered.push(bytes);
    gatheredBytes += bytes.length;
  };
  const flush = function* (): Iterable<Uint8Array> {
    if (gathered.length === 0) return;
    yield gathered.length === 1 ? gathered[0]! : Buffer.concat(gathered, gatheredBytes);
    gathered = [];
    gatheredBytes = 0;
  };
  const loading: Promise<Loaded>[] = [];
  let next = 0;
  const fill = () => {
    while (loading.length < FILES_AHEAD && next < grant.names.length) {
      const name = grant.names[next++]!;
      const loaded = load(storage, joinStoragePath(grant.dir, `/${name}`), name, grant.checksum);
      // awaited at its turn (or dropped with the stream)
      loaded.catch(() => undefined);
      loading.push(loaded);
    }
  };
  fill();
  while (loading.length > 0) {
    const loaded = await loading.shift()!;
    fill();
    if (loaded.kind === 'fail') {
      gather(jsonFrame(FAIL, failureToWire(loaded.error)));
    } else if (loaded.kind === 'whole') {
      gather(jsonFrame(HEADER, loaded.header));
      gather(head(DATA, loaded.bytes.length));
      gather(loaded.bytes);
      gather(jsonFrame(END, { digest: loaded.digest }));
    } else {
      gather(jsonFrame(HEADER, loaded.header));
      const hash = grant.checksum ? createHash(grant.checksum) : null;
      try {
        // no more than its header said (a file that grew since its stat): the destination holds it to that
        for await (const chunk of storage.read(loaded.path, { pool, range: { start: 0, end: loaded.header.size - 1 } })) {
          hash?.update(chunk);
          gather(head(DATA, chunk.length));
          yield* flush();
          yield chunk;
        }
        gather(jsonFrame(END, { digest: hash?.digest('hex') ?? null }));
      } catch (error) {
        if (!(error instanceof StorageError)) throw error;
        gather(jsonFrame(FAIL, failureToWire(error)));
      }
    }
    if (gatheredBytes >= COALESCE_BYTES) yield* flush();
  }
  yield* flush();
}

/** No bytes pending (one empty buffer, not one a push). */
const NOTHING = Buffer.alloc(0);

/**
 * The frames of a stream of them, read as its pieces arrive (`push`, from the connection's
 * callback) by one consumer (an async iterator). A file's bytes are gathered as they come,
 * synchronously: a file of up to SMALL_FILE into one buffer of its size, a larger one into chunks of
 * `pool` (each `chunkSize`, given back by the consumer), each handed on when full or at the file's
 * end. The consumer so awaits once a chunk, not once a 16 KiB TLS record (through a stream and
 * three generators those cost a GiB's copy about a second of CPU, measured). `push` answers false
 * once `aheadBytes` wait for the consumer: the producer pauses until `resume` is called.
 */
export class FrameReader implements AsyncIterable<Frame> {
  private readonly ready: Frame[] = [];
  private readyBytes = 0;
  private waiting: (() => void) | null = null;
  private paused = false;
  private ended: { error: unknown } | 'whole' | null = null;
  /** A frame's head or a JSON frame, in part. */
  private pending: Buffer = NOTHING;
  /** Bytes of the DATA frame in hand still to come. */
  private dataLeft = 0;
  /** The bytes the file in hand's header announced, less those gathered. */
  private fileLeft = 0;
  private gathering: { bytes: Uint8Array; filled: number } | null = null;

  constructor(
    private readonly pool: ChunkPool,
    private readonly chunkSize: number,
    private readonly aheadBytes: number,
    /** Called once the consumer has taken enough, after a push answered false. */
    private readonly resume: () => void,
  ) {}

  /**
   * A piece of the stream; false: pause until `resume`. A stream that breaks the protocol (a
   * control frame over MAX_CONTROL_FRAME, a file's bytes more or fewer than its header said) fails
   * at once: the consumer is given the failure, and every later piece is ignored.
   */
  push(piece: Uint8Array): boolean {
    if (this.ended !== null) return false;
    const incoming = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    const bytes = this.pending.length > 0 ? Buffer.concat([this.pending, incoming]) : incoming;
    let at = 0;
    for (;;) {
      if (this.dataLeft > 0) {
        const taken = Math.min(this.dataLeft, bytes.length - at);
        if (taken === 0) break;
        this.gather(bytes, at, taken);
        at += taken;
        this.dataLeft -= taken;
        continue;
      }
      if (bytes.length - at < FRAME_HEAD) break;
      const kind = bytes[at]!;
      const length = bytes.readUInt32BE(at + 1);
      if (kind === DATA) {
        if (length > this.fileLeft) return this.broken(`it sent more bytes of a file than its header said (${this.fileLeft} left)`);
        at += FRAME_HEAD;
        this.dataLeft = length;
        continue;
      }
      if (length > MAX_CONTROL_FRAME) return this.broken(`a control frame of ${length} bytes (at most ${MAX_CONTROL_FRAME})`);
      if (bytes.length - at - FRAME_HEAD < length) break;
      let frame: Frame;
      try {
        frame = frameOf(kind, JSON.parse(bytes.toString('utf8', at + FRAME_HEAD, at + FRAME_HEAD + length)));
      } catch (error) {
        return this.broken(error instanceof Error ? error.message : String(error));
      }
      at += FRAME_HEAD + length;
      if (frame.kind === 'end' && this.fileLeft > 0) return this.broken(`a file ended ${this.fileLeft} bytes short of what its header said`);
      this.handOn();
      if (frame.kind === 'header') {
        if (!(Number.isSafeInteger(frame.header.size) && frame.header.size >= 0)) return this.broken('a header without a size');
        this.fileLeft = frame.header.size;
      }
      // a file the source could not read ends where it is
      if (frame.kind === 'fail') this.fileLeft = 0;
      this.add(frame);
    }
    // copied: the piece's buffer may be the connection's own
    this.pending = at < bytes.length ? Buffer.from(bytes.subarray(at)) : NOTHING;
    this.paused = this.readyBytes >= this.aheadBytes;
    return !this.paused;
  }

  /** The stream broke the protocol: it fails (why), and the producer is paused for good. */
  private broken(why: string): false {
    this.pending = NOTHING;
    this.fail(new Error(`the stream of files broke the protocol: ${why}`));
    return false;
  }

  /** The stream ended: a frame left in part is its failure. */
  end(): void {
    if (this.pending.length > 0 || this.dataLeft > 0) return this.fail(new Error('the stream of files ended mid-frame'));
    this.handOn();
    this.finish('whole');
  }

  fail(error: unknown): void {
    this.finish({ error });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Frame> {
    for (;;) {
      const frame = this.ready.shift();
      if (frame !== undefined) {
        if (frame.kind === 'data') this.readyBytes -= frame.bytes.length;
        if (this.paused && this.readyBytes < this.aheadBytes) {
          this.paused = false;
          this.resume();
        }
        yield frame;
        continue;
      }
      if (this.ended === 'whole') return;
      if (this.ended !== null) throw this.ended.error;
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  private finish(ended: { error: unknown } | 'whole'): void {
    this.ended ??= ended;
    this.wake();
  }

  private gather(bytes: Buffer, at: number, length: number): void {
    for (let done = 0; done < length; ) {
      if (this.gathering === null) {
        // a small file in one buffer of its size; a larger one (or more than announced) in the pool's chunks
        const whole = this.fileLeft > 0 && this.fileLeft <= SMALL_FILE;
        this.gathering = { bytes: whole ? Buffer.allocUnsafe(this.fileLeft) : this.pool.take(this.chunkSize), filled: 0 };
      }
      const room = this.gathering.bytes.length - this.gathering.filled;
      const taken = Math.min(room, length - done);
      this.gathering.bytes.set(bytes.subarray(at + done, at + done + taken), this.gathering.filled);
      this.gathering.filled += taken;
      this.fileLeft = Math.max(0, this.fileLeft - taken);
      done += taken;
      if (taken === room) this.handOn();
    }
  }

  /** The bytes gathered so far, handed on as a DATA frame. */
  private handOn(): void {
    const gathering = this.gathering;
    this.gathering = null;
    if (gathering === null || gathering.filled === 0) return;
    this.add({ kind: 'data', bytes: gathering.filled === gathering.bytes.length ? gathering.bytes : gathering.bytes.subarray(0, gathering.filled) });
  }

  private add(frame: Frame): void {
    this.ready.push(frame);
    if (frame.kind === 'data') this.readyBytes += frame.bytes.length;
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }
}

function frameOf(kind: number, value: unknown): Frame {
  if (kind === HEADER) {
    const header = value as Partial<FileHeader>;
    if (typeof header.name === 'string' && typeof header.size === 'number' && typeof header.mtime === 'number') return { kind: 'header', header: header as FileHeader };
  } else if (kind === END) {
    const digest = (value as { digest?: unknown }).digest;
    if (digest === null || typeof digest === 'string') return { kind: 'end', digest };
  } else if (kind === FAIL) {
    const error = failureFromWire(value as WireFailure);
    if (error) return { kind: 'fail', error };
  }
  throw new Error(`the stream of files holds a frame it should not (${kind})`);
}
