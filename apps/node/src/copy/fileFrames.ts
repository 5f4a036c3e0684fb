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
 * The files a grant names, read from `storage` and framed, in order. Frames of small files are
 * gathered into writes of COALESCE_BYTES (each chunk read is given back to `pool` once copied);
 * a large chunk goes out as it is, to be given back by whoever sends it.
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
  for (const name of grant.names) {
    const path = joinStoragePath(grant.dir, `/${name}`);
    const hash = grant.checksum ? createHash(grant.checksum) : null;
    try {
      const entry = await storage.stat(path);
      if (entry.type === 'dir') throw new StorageError('is_directory', path, `${path}: a directory, not a file`);
      gather(jsonFrame(HEADER, { name, size: entry.size, mtime: entry.lastModified.getTime() } satisfies FileHeader));
      for await (const chunk of storage.read(path, { pool })) {
        hash?.update(chunk);
        gather(head(DATA, chunk.length));
        if (chunk.length < COALESCE_BYTES / 4) {
          gather(Buffer.from(chunk));
          pool.give(chunk);
        } else {
          yield* flush();
          yield chunk;
        }
        if (gatheredBytes >= COALESCE_BYTES) yield* flush();
      }
      gather(jsonFrame(END, { digest: hash?.digest('hex') ?? null }));
    } catch (error) {
      if (!(error instanceof StorageError)) throw error;
      gather(jsonFrame(FAIL, failureToWire(error)));
    }
    if (gatheredBytes >= COALESCE_BYTES) yield* flush();
  }
  yield* flush();
}

/** The frames of a stream of them, DATA as its bytes arrive (no frame is held whole); throws on a stream that ends mid-frame. */
export async function* readFrames(stream: AsyncIterable<Uint8Array>): AsyncIterable<Frame> {
  let pending: Buffer = Buffer.alloc(0);
  let dataLeft = 0;
  for await (const chunk of stream) {
    const incoming = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const bytes = pending.length > 0 ? Buffer.concat([pending, incoming]) : incoming;
    let at = 0;
    for (;;) {
      if (dataLeft > 0) {
        const taken = Math.min(dataLeft, bytes.length - at);
        if (taken === 0) break;
        yield { kind: 'data', bytes: bytes.subarray(at, at + taken) };
        at += taken;
        dataLeft -= taken;
        continue;
      }
      if (bytes.length - at < FRAME_HEAD) break;
      const kind = bytes[at]!;
      const length = bytes.readUInt32BE(at + 1);
      if (kind === DATA) {
        at += FRAME_HEAD;
        dataLeft = length;
        continue;
      }
      if (bytes.length - at - FRAME_HEAD < length) break;
      const value: unknown = JSON.parse(bytes.toString('utf8', at + FRAME_HEAD, at + FRAME_HEAD + length));
      at += FRAME_HEAD + length;
      yield frameOf(kind, value);
    }
    pending = bytes.subarray(at);
  }
  if (pending.length > 0 || dataLeft > 0) throw new Error('the stream of files ended mid-frame');
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
