import { createHash } from 'node:crypto';
import { NO_FEATURES, StorageError, type ChecksumAlgorithm, type FileReadOptions, type FileEntry, type Storage, type StorageFeatures } from '../storage/Storage';

interface Node {
  content: Buffer | null;
  lastModified: Date;
}

/**
 * A storage with content, in a map of paths: the core's test double of the port for tasks (the
 * adapters of packages/storage have their own contract suite). `faults` makes a path fail.
 */
export class MemoryStorage implements Storage {
  readonly nodes = new Map<string, Node>([['/', { content: null, lastModified: new Date(0) }]]);
  /** Paths whose reads fail with this failure, for tests of skipped errors and retries. */
  readonly faults = new Map<string, StorageError['failure']>();
  /** Symbolic links: a path and its target (a path of this storage, or outside it: invalid). */
  readonly links = new Map<string, string>();
  /** None of its own: a test gives it the faster paths it tries. */
  features: StorageFeatures = NO_FEATURES;

  constructor(
    files: Record<string, string | null> = {},
    private readonly now: () => Date = () => new Date('2026-01-01T00:00:00Z'),
  ) {
    for (const [path, content] of Object.entries(files)) this.put(path, content);
  }

  /** A symbolic link at `path` to `target`. */
  link(path: string, target: string): void {
    this.put(path, '');
    this.links.set(path, target);
  }

  /** A file (content) or a directory (null), with its parents. */
  put(path: string, content: string | null, lastModified = this.now()): void {
    const clean = path.replace(/\/+$/, '') || '/';
    for (let at = clean.indexOf('/', 1); at > 0; at = clean.indexOf('/', at + 1)) if (!this.nodes.has(clean.slice(0, at))) this.nodes.set(clean.slice(0, at), { content: null, lastModified });
    this.nodes.set(clean, { content: content === null ? null : Buffer.from(content), lastModified });
  }

  text(path: string): string | null {
    const node = this.nodes.get(path);
    return node?.content ? node.content.toString() : null;
  }

  private node(path: string): Node {
    const fault = this.faults.get(path);
    if (fault) throw new StorageError(fault, path, `${fault} (a test's fault)`);
    const node = this.nodes.get(path);
    if (!node) throw new StorageError('not_found', path, 'no such file or directory');
    return node;
  }

  private entry(path: string, node: Node): FileEntry {
    const target = this.links.get(path);
    if (target !== undefined) {
      const pointed = this.nodes.get(target);
      const name = path.slice(path.lastIndexOf('/') + 1);
      if (!pointed) return { name, type: 'invalid_symlink', size: target.length, lastModified: node.lastModified, permissions: 0o777, user: null, group: null, link: null };
      return { ...this.entry(target, pointed), name, link: { target, size: target.length, lastModified: node.lastModified, user: null, group: null } };
    }
    return { name: path === '/' ? '/' : path.slice(path.lastIndexOf('/') + 1), type: node.content === null ? 'dir' : 'file', size: node.content?.length ?? 4096, lastModified: node.lastModified, permissions: node.content === null ? 0o755 : 0o644, user: null, group: null, link: null };
  }

  private children(path: string): string[] {
    const prefix = path === '/' ? '/' : `${path}/`;
    return [...this.nodes.keys()].filter((key) => key !== '/' && key.startsWith(prefix) && !key.slice(prefix.length).includes('/')).map((key) => key.slice(prefix.length));
  }

  private parentMustBeDirectory(path: string): void {
    const parent = path.slice(0, path.lastIndexOf('/')) || '/';
    const node = this.nodes.get(parent);
    if (!node) throw new StorageError('not_found', path, 'no parent directory');
    if (node.content !== null) throw new StorageError('not_directory', path, 'the parent is a file');
  }

  async stat(path: string): Promise<FileEntry> {
    return this.entry(path, this.node(path));
  }

  async *names(path: string): AsyncIterable<readonly string[]> {
    if (this.node(path).content !== null) throw new StorageError('not_directory', path, 'a file');
    yield this.children(path);
  }

  async entries(dir: string, names: readonly string[]): Promise<(FileEntry | null)[]> {
    if (this.node(dir).content !== null) throw new StorageError('not_directory', dir, 'a file');
    return names.map((name) => {
      const path = dir === '/' ? `/${name}` : `${dir}/${name}`;
      const node = this.nodes.get(path);
      return node ? this.entry(path, node) : null;
    });
  }

  async mkdir(path: string): Promise<void> {
    if (this.nodes.has(path)) throw new StorageError('exists', path, 'exists');
    this.parentMustBeDirectory(path);
    this.nodes.set(path, { content: null, lastModified: this.now() });
  }

  async rename(from: string, to: string): Promise<void> {
    this.node(from);
    if (this.nodes.has(to)) throw new StorageError('exists', to, 'exists');
    this.parentMustBeDirectory(to);
    for (const [key, node] of [...this.nodes]) {
      if (key === from || key.startsWith(`${from}/`)) {
        this.nodes.delete(key);
        this.nodes.set(to + key.slice(from.length), node);
      }
    }
  }

  async *read(path: string, { range }: FileReadOptions = {}): AsyncIterable<Uint8Array> {
    const node = this.node(path);
    if (node.content === null) throw new StorageError('is_directory', path, 'a directory');
    const content = range ? node.content.subarray(range.start, range.end + 1) : node.content;
    // two chunks, so that readers see a stream
    yield content.subarray(0, Math.ceil(content.length / 2));
    yield content.subarray(Math.ceil(content.length / 2));
  }

  async write(path: string, data: AsyncIterable<Uint8Array>, options: { lastModified?: Date } = {}): Promise<number> {
    const fault = this.faults.get(path);
    if (fault) throw new StorageError(fault, path, `${fault} (a test's fault)`);
    if (this.nodes.get(path)?.content === null) throw new StorageError('is_directory', path, 'a directory');
    this.parentMustBeDirectory(path);
    const chunks: Buffer[] = [];
    for await (const chunk of data) chunks.push(Buffer.from(chunk));
    const content = Buffer.concat(chunks);
    this.nodes.set(path, { content, lastModified: options.lastModified ?? this.now() });
    return content.length;
  }

  async remove(path: string): Promise<void> {
    if (path === '/') throw new StorageError('denied', path, 'the root');
    const node = this.node(path);
    if (node.content === null && this.children(path).length > 0) throw new StorageError('exists', path, 'not empty');
    this.nodes.delete(path);
    this.links.delete(path);
  }

  async checksum(path: string, algorithm: ChecksumAlgorithm): Promise<string> {
    const node = this.node(path);
    if (node.content === null) throw new StorageError('is_directory', path, 'a directory');
    return createHash(algorithm).update(node.content).digest('hex');
  }
}
