import { createHash } from 'node:crypto';
import type { ReadGrant } from '@xfer/storage';
import { ChunkBuffers, MemoryTree } from '@xfer/storage';
import { fileFrames, FrameReader, type Frame } from './fileFrames';

const CHUNK = 64 * 1024;

/** A text of `length` characters that differs along its length (a misplaced piece shows). */
const text = (length: number, seed: number) => Array.from({ length: Math.ceil(length / 8) }, (_, i) => (i * 7919 + seed).toString(36).padStart(8, '.')).join('').slice(0, length);

async function streamOf(tree: MemoryTree, names: string[]): Promise<Buffer> {
  const grant: ReadGrant = { endpoint: 'e1', base: '/', dir: '/', names, checksum: 'md5' };
  const pieces: Buffer[] = [];
  for await (const piece of fileFrames(tree.storage, grant, new ChunkBuffers(CHUNK))) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces);
}

type Received = { name: string; content: string; digest: string | null } | { failed: string };

/** The files a reader gives, the stream pushed in pieces of `size` bytes (pausing as it asks). */
async function receive(stream: Buffer, size: number, aheadBytes = 4 * CHUNK): Promise<{ files: Received[]; pauses: number }> {
  const pool = new ChunkBuffers(CHUNK);
  let pauses = 0;
  let resume: () => void = () => undefined;
  const reader = new FrameReader(pool, CHUNK, aheadBytes, () => resume());
  const feeding = (async () => {
    for (let at = 0; at < stream.length; at += size) {
      if (!reader.push(stream.subarray(at, at + size))) {
        pauses += 1;
        await new Promise<void>((resolve) => (resume = resolve));
      }
    }
    reader.end();
  })();
  const files: Received[] = [];
  let current: { name: string; pieces: Buffer[] } | null = null;
  for await (const frame of reader as AsyncIterable<Frame>) {
    if (frame.kind === 'header') current = { name: frame.header.name, pieces: [] };
    else if (frame.kind === 'data') {
      current!.pieces.push(Buffer.from(frame.bytes));
      pool.give(frame.bytes);
    } else if (frame.kind === 'end') {
      files.push({ name: current!.name, content: Buffer.concat(current!.pieces).toString('utf8'), digest: frame.digest });
      current = null;
    } else files.push({ failed: frame.error.failure });
  }
  await feeding;
  return { files, pauses };
}

describe('the stream of files between nodes, as the destination reads it', () => {
  const contents: Record<string, string> = { 'small.txt': text(1000, 1), 'empty.txt': '', 'large.txt': text(300 * 1024, 2), 'larger.txt': text(5 * CHUNK + 123, 3) };
  const tree = new MemoryTree(Object.fromEntries(Object.entries(contents).map(([name, content]) => [`/${name}`, content])));
  const names = ['small.txt', 'gone.txt', 'empty.txt', 'large.txt', 'larger.txt'];
  const expected: Received[] = names.map((name) => (name in contents ? { name, content: contents[name]!, digest: createHash('md5').update(contents[name]!).digest('hex') } : { failed: 'not_found' }));

  it.each([7, 16 * 1024, CHUNK + 3, 10 * CHUNK])('gives every file whole, in order, with its digest, however the stream is cut (pieces of %i bytes)', async (size) => {
    expect((await receive(await streamOf(tree, names), size)).files).toEqual(expected);
  });

  it('gives small files whole from a stream pushed byte by byte', async () => {
    expect((await receive(await streamOf(tree, ['small.txt', 'gone.txt', 'empty.txt']), 1)).files).toEqual(expected.slice(0, 3));
  });

  it('pauses the connection while the bytes ahead of the consumer reach its limit, and resumes it once taken', async () => {
    const stream = await streamOf(tree, ['larger.txt']);
    const { files, pauses } = await receive(stream, 16 * 1024, 2 * CHUNK);
    expect(files).toEqual([expected[4]]);
    expect(pauses).toBeGreaterThan(0);
  });

  it('fails a stream cut mid-frame, after the files it held whole', async () => {
    const stream = await streamOf(tree, ['small.txt', 'larger.txt']);
    const reader = new FrameReader(new ChunkBuffers(CHUNK), CHUNK, Infinity, () => undefined);
    reader.push(stream.subarray(0, stream.length - 3));
    reader.end();
    const kinds: string[] = [];
    await expect(
      (async () => {
        for await (const frame of reader as AsyncIterable<Frame>) kinds.push(frame.kind);
      })(),
    ).rejects.toThrow('the stream of files ended mid-frame');
    expect(kinds.slice(0, 3)).toEqual(['header', 'data', 'end']);
    expect(kinds.slice(3)).not.toContain('end');
  });
});
