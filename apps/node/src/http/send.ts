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
 * Sends `chunks` as the socket takes them (back-pressure: the next is read while one is written),
 * each given back to `pool` once written, and ends the response. A client that goes stops the
 * reading (the reader's `finally` closes its file).
 */
export async function sendChunks(res: Response, chunks: AsyncIterable<Uint8Array>, pool?: ChunkPool): Promise<void> {
  for await (const chunk of chunks) {
    if (!res.write(chunk, () => pool?.give(chunk))) await drained(res);
  }
  res.end();
}
