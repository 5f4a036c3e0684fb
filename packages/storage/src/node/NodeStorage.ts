import { NodeNotReachableError, NO_FEATURES, type ChecksumAlgorithm, type FileEntry, type ListedName, type FileReadOptions, type Storage, type StorageFeatures, type ActingAs } from '@xfer/core';
import { NodeBatchCopy, NodeKernelCopy } from './NodeBatchCopy';
import { DIGEST_MS, ENTRIES_BYTES, type NodeCall, type NodeClient } from './NodeClient';
import { actingAsQuery, entryFromWire, jsonLines, type WireEntry } from './protocol';

/**
 * A directory of a data node (from `base` down, for a share), reached through the node: every
 * member is one call to it, bytes streamed both ways. The API's side of an endpoint bound to a
 * node; it never opens a file of this host.
 */
export class NodeStorage implements Storage {
  readonly features: StorageFeatures;

  constructor(
    private readonly node: NodeClient,
    private readonly endpointId: string,
    private readonly root: string,
    private readonly base: string,
    /** The local account the node acts as for these files (a mapped collection's); none: the node's own. */
    private readonly actingAs?: ActingAs,
  ) {
    const place = { client: node, endpointId, root, base, actingAs };
    this.features = { ...NO_FEATURES, typedNames: (path) => this.lines<ListedName>('typed-names', path), batchCopy: new NodeBatchCopy(place), kernelCopy: new NodeKernelCopy(place) };
  }

  async stat(path: string): Promise<FileEntry> {
    return this.entryOf(await this.node.json<unknown>(this.call('stat', { path })));
  }

  names(path: string): AsyncIterable<readonly string[]> {
    return this.lines<string>('names', path);
  }

  async entries(dir: string, names: readonly string[]): Promise<(FileEntry | null)[]> {
    const wire = await this.node.json<unknown>({ ...this.call('entries', { path: dir }), method: 'POST', body: JSON.stringify({ names }) }, ENTRIES_BYTES);
    if (!Array.isArray(wire) || wire.length !== names.length) throw this.cut(new Error(`it answered no entry for each of ${names.length} names`));
    return wire.map((entry: unknown) => (entry === null ? null : this.entryOf(entry)));
  }

  async mkdir(path: string): Promise<void> {
    await this.done(this.call('mkdir', { path }, 'POST'));
  }

  async rename(from: string, to: string): Promise<void> {
    await this.done(this.call('rename', { path: from, to }, 'POST'));
  }

  async *read(path: string, { range }: FileReadOptions = {}): AsyncIterable<Uint8Array> {
    const { body } = await this.node.call(this.call('read', { path, start: range && String(range.start), end: range && String(range.end) }));
    try {
      for await (const chunk of body) yield chunk as Uint8Array;
    } catch (error) {
      throw this.cut(error);
    } finally {
      // a reader that stopped early: the rest is not wanted
      if (!body.readableEnded) body.destroy();
    }
  }

  async write(path: string, data: AsyncIterable<Uint8Array>, options: { lastModified?: Date } = {}): Promise<number> {
    // a failure of the data is the data's, not the node's: it is what the caller is told
    let dataFailure: { error: unknown } | null = null;
    async function* watched(): AsyncIterable<Uint8Array> {
      try {
        yield* data;
      } catch (error) {
        dataFailure = { error };
        throw error;
      }
    }
    try {
      const answer = await this.node.json<{ bytes: number }>({ ...this.call('write', { path, lastModified: options.lastModified?.toISOString() }, 'PUT'), body: watched() });
      return answer.bytes;
    } catch (error) {
      throw dataFailure ? (dataFailure as { error: unknown }).error : error;
    }
  }

  async remove(path: string): Promise<void> {
    await this.done(this.call('remove', { path }, 'POST'));
  }

  async checksum(path: string, algorithm: ChecksumAlgorithm): Promise<string> {
    return (await this.node.json<{ digest: string }>({ ...this.call('checksum', { path, algorithm }), answerMs: DIGEST_MS })).digest;
  }

  private call(operation: NodeCall['operation'], query: NodeCall['query'], method: NodeCall['method'] = 'GET'): NodeCall {
    return { endpointId: this.endpointId, operation, method, query: { root: this.root, base: this.base, ...actingAsQuery(this.actingAs), ...query } };
  }

  private async done(call: NodeCall): Promise<void> {
    const { body } = await this.node.call(call);
    await body.dump();
  }

  /** A listing sent as lines of JSON arrays, one batch a line (each name checked where it is used). */
  private async *lines<T>(operation: 'names' | 'typed-names', path: string): AsyncIterable<readonly T[]> {
    const { body } = await this.node.call(this.call(operation, { path }));
    try {
      for await (const batch of jsonLines<unknown>(body)) {
        if (!Array.isArray(batch)) throw new Error('a line of its listing is no list');
        yield batch as T[];
      }
    } catch (error) {
      throw this.cut(error);
    }
  }

  /** An entry as the node sent it: one that is no entry is the node's fault. */
  private entryOf(wire: unknown): FileEntry {
    const entry = wire as Partial<WireEntry> | null;
    if (typeof entry?.name !== 'string' || typeof entry.type !== 'string' || typeof entry.size !== 'number' || typeof entry.lastModified !== 'string') throw this.cut(new Error('it answered something that is no entry'));
    return entryFromWire(entry as WireEntry);
  }

  private cut(error: unknown): NodeNotReachableError {
    return new NodeNotReachableError(this.endpointId, this.node.nodeId, `the answer was cut: ${error instanceof Error ? error.message : String(error)}`);
  }
}
