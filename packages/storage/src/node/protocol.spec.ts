import { Readable } from 'node:stream';
import { boundedJson, jsonLines } from './protocol';

const pieces = (...parts: (string | Buffer)[]) => Readable.from(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
const all = async <T>(lines: AsyncIterable<T>) => {
  const read: T[] = [];
  for await (const line of lines) read.push(line);
  return read;
};

describe("reading a node's answers", () => {
  it('reads lines of JSON however the pieces fall, a character split between two pieces included', async () => {
    const text = Buffer.from(`${JSON.stringify(['été', 'x'])}\n\n${JSON.stringify([1])}\n`);
    for (const size of [1, 2, 3, 7, text.length]) {
      const parts: Buffer[] = [];
      for (let at = 0; at < text.length; at += size) parts.push(text.subarray(at, at + size));
      expect(await all(jsonLines(pieces(...parts)))).toEqual([['été', 'x'], [1]]);
    }
  });

  it('refuses a line over its bound at once, in one piece or in many, and an answer that ends mid-line', async () => {
    await expect(all(jsonLines(pieces('"', 'a'.repeat(20), '"\n'), 16))).rejects.toThrow('a line of its answer is longer than 16 bytes');
    await expect(all(jsonLines(pieces(`"${'a'.repeat(20)}"\n`), 16))).rejects.toThrow('a line of its answer is longer than 16 bytes');
    // the body is closed, not read to its end
    const endless = Readable.from((function* () {
      for (;;) yield Buffer.alloc(1024, 'a');
    })());
    await expect(all(jsonLines(endless, 4096))).rejects.toThrow('longer than 4096 bytes');
    expect(endless.destroyed).toBe(true);
    await expect(all(jsonLines(pieces('[1]\n[2'), 16))).rejects.toThrow('the answer ended mid-line');
    expect(await all(jsonLines(pieces(`"${'a'.repeat(14)}"\n`), 16))).toEqual(['a'.repeat(14)]);
  });

  it('reads a document up to its bound', async () => {
    expect(await boundedJson(pieces('{"a":', '1}'), 7)).toEqual({ a: 1 });
    await expect(boundedJson(pieces('{"a":', '10}'), 7)).rejects.toThrow('its answer is longer than 7 bytes');
  });
});
