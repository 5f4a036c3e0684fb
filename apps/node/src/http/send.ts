import type { ChunkPool } from '@xfer/core';
import type { Response } from 'express';

/** Resolves once the response takes more; rejects when the client has gone. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      res.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      res.off('drain', onDrain);
      reject(new Error('the client closed the connection'));
    };
    res.once('drain', onDrain).once('close', onClose);
  });
}

/**
 * Sends `chunks` as the socket takes them, each given back to `pool` once written, and ends the
 * response. The next chunk is read while one is sent (waiting for the socket, then reading, left
 * each idle in turn: a third of a node-to-node copy's rate). A client that goes stops the reading
 * (the reader's `finally` closes its file).
 */
export async function sendChunks(res: Response, chunks: AsyncIterable<Uint8Array>, pool?: ChunkPool): Promise<void> {
  const reader = chunks[Symbol.asyncIterator]();
  let next = reader.next();
  try {
    for (let read = await next; !read.done; read = await next) {
      const chunk = read.value;
      next = reader.next();
      // awaited on the next turn, or dropped with the reader when the client goes
      next.catch(() => undefined);
      if (!res.write(chunk, () => pool?.give(chunk))) await drained(res);
    }
  } finally {
    await next.catch(() => undefined);
    await reader.return?.();
  }
  res.end();
}
