import { baseName, NodeNotReachableError, parentOf, StorageError, type BatchCopy, type DirectoryCopyOptions, type DirectoryFile, type DirectoryFileCopy, type FileCopyOptions, type KernelCopy, type StorageGuard, type ActingAs } from '@xfer/core';
import { chained, guardedBatch } from '../guardedBatch';
import type { NodeClient } from './NodeClient';
import { actingAsQuery, failureFromWire, jsonLines, type PullLine, type PullRequest } from './protocol';

/**
 * What every node-bound storage shares as the "host" of its batch copy: any node can pull from any
 * other (or from itself), so the API hands a directory's files from one node to another to the
 * destination, and never carries their bytes.
 */
export const NODE_NETWORK: object = Object.freeze({ reached: 'through data nodes' });

/** Where a node-bound storage is: its node's client, its endpoint (errors name it), its directory on the node and a share's base. */
export interface NodePlace {
  client: NodeClient;
  endpointId: string;
  root: string;
  base: string;
  /** The local account the node acts as there (a mapped collection's). */
  actingAs?: ActingAs;
}

/**
 * The batch copy between node-bound storages (features.batchCopy): the destination's node copies
 * the files of a directory from the source's node (a grant of the API opens them there) or from
 * its own disk, and answers each file's outcome as a line as it goes. Aborted, the call is closed:
 * the node drops the file in hand (never left at its name) and the outcomes so far are the answer.
 */
export class NodeBatchCopy implements BatchCopy {
  readonly host = NODE_NETWORK;

  constructor(
    readonly place: NodePlace,
    private readonly guard: StorageGuard | null = null,
  ) {}

  async *copyFiles(source: BatchCopy, from: string, to: string, files: readonly DirectoryFile[], options: DirectoryCopyOptions): AsyncIterable<readonly DirectoryFileCopy[]> {
    if (!(source instanceof NodeBatchCopy)) throw new Error('a node batch copy takes a node-bound source');
    source.guard?.check(from);
    this.guard?.check(to);
    const copy = (some: readonly DirectoryFile[]) =>
      pull(this.place, source.place, {
        from,
        to,
        files: some.map((file) => ({ name: file.name, ...(file.lastModified && { lastModified: file.lastModified.toISOString() }) })),
        checksum: options.checksum,
        sourceTimes: options.sourceTimes ?? false,
        maxBytes: options.maxBytes ?? null,
      }, options.signal, options.progress);
    if (source.guard === null && this.guard === null) yield* copy(files);
    else yield* guardedBatch(copy, { source: source.guard, destination: this.guard }, from, to, files, options);
  }

  guarded(guard: StorageGuard): BatchCopy {
    return new NodeBatchCopy(this.place, chained(this.guard, guard));
  }
}

/**
 * One file between node-bound storages (features.kernelCopy, for a transfer item that names a
 * file): the destination's node pulls it as a batch of one, under its name at the destination.
 */
export class NodeKernelCopy implements KernelCopy {
  readonly host = NODE_NETWORK;

  constructor(
    readonly place: NodePlace,
    private readonly guard: StorageGuard | null = null,
  ) {}

  async copyFile(source: KernelCopy, from: string, path: string, options: FileCopyOptions = {}): Promise<number> {
    if (!(source instanceof NodeKernelCopy)) throw new Error('a node copy takes a node-bound source');
    source.guard?.check(from);
    this.guard?.check(path);
    const file = { name: baseName(from), as: baseName(path), ...(options.lastModified && { lastModified: options.lastModified.toISOString() }) };
    for await (const [outcome] of pull(this.place, source.place, { from: parentOf(from), to: parentOf(path), files: [file], checksum: null, sourceTimes: false, maxBytes: null }, options.signal, options.progress)) {
      if (outcome === undefined) continue;
      if ('error' in outcome) throw outcome.error;
      return outcome.bytes;
    }
    throw new Error('the copy was stopped');
  }

  guarded(guard: StorageGuard): KernelCopy {
    return new NodeKernelCopy(this.place, chained(this.guard, guard));
  }
}

/**
 * Asks the destination's node to copy files from the source's (from its own disk when both are one
 * node; else under a grant the API signs for the source node), telling each outcome as its line
 * comes. Aborted, the call is closed and the outcomes told so far are the answer.
 */
async function* pull(destination: NodePlace, source: NodePlace, files: Omit<PullRequest, 'source'>, signal: AbortSignal | undefined, progress?: (bytes: number) => void): AsyncIterable<readonly DirectoryFileCopy[]> {
  const { client, endpointId, root, base, actingAs } = destination;
  // one node acting as one account reads its own disk; as two accounts, the source's files come under a grant as from another node
  const sameNode = source.client.nodeId === client.nodeId && source.actingAs?.account === actingAs?.account;
  const request: PullRequest = {
    source: sameNode
      ? { root: source.root, base: source.base }
      : await source.client.grant(source.endpointId, { endpoint: source.endpointId, base: source.base, dir: files.from, names: files.files.map((file) => file.name), checksum: files.checksum, ...(source.actingAs && { actingAs: source.actingAs }) }),
    ...files,
  };
  // the bytes of the files answered for, and the node's word on the file in hand
  let done = 0;
  const stopped = () => signal?.aborted === true;
  try {
    const { body } = await client.call({ endpointId, operation: 'pull', method: 'POST', query: { root, base, ...actingAsQuery(actingAs) }, body: JSON.stringify(request), signal });
    for await (const answer of jsonLines<PullLine>(body)) {
      if ('copied' in answer) {
        done += answer.copied.bytes;
        progress?.(done);
        yield [{ bytes: answer.copied.bytes, checksums: answer.copied.checksums }];
      } else if ('progress' in answer) progress?.(done + answer.progress);
      else if ('failed' in answer) yield [{ error: failureFromWire(answer.failed) ?? new StorageError('denied', files.to, 'the node refused the file'), side: answer.side }];
      else if ('unreachable' in answer) throw new NodeNotReachableError(source.endpointId, source.client.nodeId, answer.unreachable);
      else return;
    }
    throw new Error("the copy's answer ended before the copy did");
  } catch (error) {
    // stopped as asked (the call closed): the files answered for so far
    if (stopped()) return;
    // a refusal of the destination (the account it acts as) is its own failure, not the node's
    if (error instanceof NodeNotReachableError || error instanceof StorageError) throw error;
    throw new NodeNotReachableError(endpointId, client.nodeId, `the copy's answer was cut: ${error instanceof Error ? error.message : String(error)}`);
  }
}
