import type { ChunkPool } from '@xfer/core';

/**
 * Buffers of one size, taken and given back as a stream of chunks is read and sent: one stream
 * holds a few at a time however long it is, so sending 1 GiB allocates a few MiB, not 1,024
 * buffers for V8 to collect (in a process with a heap of some size, each collection of them is
 * a full one: a third of a TLS stream's time, measured). A chunk given back that is no whole
 * buffer of this pool is left to the collector.
 */
export class ChunkBuffers implements ChunkPool {
  private readonly free: Buffer[] = [];

  constructor(
    private readonly size: number,
    /** At most this many kept for the next take. */
    private readonly keep = 8,
  ) {}

  take(length: number): Uint8Array {
    if (length > this.size) return Buffer.allocUnsafe(length);
    return this.free.pop() ?? Buffer.allocUnsafeSlow(this.size);
  }

  give(chunk: Uint8Array): void {
    if (chunk.buffer.byteLength !== this.size || this.free.length >= this.keep) return;
    this.free.push(Buffer.from(chunk.buffer, 0, this.size));
  }
}
