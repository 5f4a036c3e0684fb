import type { ActingAs, Storage, StorageAttachment, StorageDirectory } from '@xfer/core';
import { CopyThreads } from './CopyThreads';
import { FaultyStorage, StorageFaults } from './faults';
import type { FsStorage } from './FsStorage';
import { MemoryTree, type MemoryFiles } from './memory';
import { NodeClient, type NodeReach } from './node/NodeClient';
import { NodeStorage } from './node/NodeStorage';
import { posixStorage } from './posix';

/**
 * The storage behind this process's endpoints, as their attachments say: a posix directory (one
 * storage per root), or the endpoint's memory tree, made empty on first use and kept for the
 * process's life (memory trees are not shared between processes, nor kept across restarts), or a
 * directory of a data node, reached through the node. The runtime owns one, and closes it (its
 * posix storages' copy threads, its connections to nodes) after whatever used it.
 */
export class EndpointStorages implements StorageDirectory {
  private readonly trees = new Map<string, MemoryTree>();
  private readonly directories = new Map<string, FsStorage>();
  /** Failures a test injects (the stand-in); none elsewhere. */
  readonly faults = new StorageFaults();
  /** Where the posix storages copy a directory's files (started on first use). */
  private readonly copyThreads = new CopyThreads();
  private readonly clients = new Map<string, NodeClient>();

  /**
   * `unattached`: what an endpoint without attached storage has (the stand-in gives it a memory
   * tree); `nodes`: how nodes are reached (none: node-bound endpoints have no storage here).
   */
  constructor(
    private readonly unattached: 'none' | 'memory' = 'none',
    private readonly nodes: NodeReach | null = null,
  ) {}

  storageOf(endpointId: string, attachment: StorageAttachment | null, base = '/', actingAs?: ActingAs): Storage | null {
    // an account is a node's to act as: this process's own directories are its own account's
    const storage = attachment?.type === 'node' ? this.onNode(endpointId, attachment.node, attachment.root, base, actingAs) : (this.attached(endpointId, attachment)?.within(base) ?? null);
    return storage === null || this.faults.empty ? storage : new FaultyStorage(storage, endpointId, this.faults, base);
  }

  /** A node's directory, through the node (one client, and its connections, per node). */
  private onNode(endpointId: string, nodeId: string, root: string, base: string, actingAs: ActingAs | undefined): Storage | null {
    if (this.nodes === null) return null;
    let client = this.clients.get(nodeId);
    if (!client) {
      client = new NodeClient(nodeId, this.nodes);
      this.clients.set(nodeId, client);
    }
    return new NodeStorage(client, endpointId, root, base, actingAs);
  }

  private attached(endpointId: string, attachment: StorageAttachment | null): FsStorage | null {
    if (attachment === null) return this.unattached === 'memory' ? this.treeOf(endpointId).storage : null;
    if (attachment.type === 'memory') return this.treeOf(endpointId).storage;
    // a node's directory is reached only through the node, never on this host
    if (attachment.type === 'node') return null;
    let storage = this.directories.get(attachment.root);
    if (!storage) {
      storage = posixStorage(attachment.root, undefined, this.copyThreads);
      this.directories.set(attachment.root, storage);
    }
    return storage;
  }

  /** An endpoint's memory tree (empty until something is put in it). */
  treeOf(endpointId: string): MemoryTree {
    let tree = this.trees.get(endpointId);
    if (!tree) {
      tree = new MemoryTree();
      this.trees.set(endpointId, tree);
    }
    return tree;
  }

  /** Whether the endpoint has a memory tree in this process. */
  hasTree(endpointId: string): boolean {
    return this.trees.has(endpointId);
  }

  /** Every memory tree's files, to restore later (the stand-in's reset). */
  snapshot(): Map<string, MemoryFiles> {
    return new Map([...this.trees].map(([id, tree]) => [id, tree.files()]));
  }

  /** The memory trees as a snapshot had them; trees made since are emptied. */
  restore(snapshot: Map<string, MemoryFiles>): void {
    for (const [id, tree] of this.trees) tree.replace(snapshot.get(id) ?? {});
    for (const [id, files] of snapshot) if (!this.trees.has(id)) this.treeOf(id).replace(files);
  }

  /** Stops the copy threads and closes the connections to nodes (a copy still waiting on them fails). */
  async close(): Promise<void> {
    await Promise.all([this.copyThreads.close(), ...[...this.clients.values()].map((client) => client.close())]);
  }
}
