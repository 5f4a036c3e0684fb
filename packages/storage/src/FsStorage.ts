import { createHash, randomBytes } from 'node:crypto';
import { baseName, joinStoragePath, parentOf, StorageError, type BatchCopy, type ChecksumAlgorithm, type DirectoryCopyOptions, type DirectoryFile, type DirectoryFileCopy, type FileCopyOptions, type FileEntry, type KernelCopy, type ListedName, type FileReadOptions, type Storage, type StorageFailure, type StorageFeatures, type StorageGuard } from '@xfer/core';
import type { CopyFailure, CopyThreads } from './CopyThreads';
import type { FsApi, FsHandle, FsStats } from './fsApi';
import { chained, guardedBatch } from './guardedBatch';

/** How a storage names the owner and group of its entries (numeric ids on posix, none in memory). */
export type AccountNames = (uid: number, gid: number) => Promise<{ user: string | null; group: string | null }>;

export interface FsStorageOptions {
  /** Where the opened file or directory of a descriptor really is (Linux: /proc/self/fd), to catch a path swapped between check and use. */
  whereIs?: (fd: number) => Promise<string | null>;
  accountNames?: AccountNames;
  /** The storage this one lies within (a share's host's): its real root must lie inside that one's. */
  outer?: FsStorage;
  /** Permission bits of new directories and files (a memory tree has no umask). */
  modes?: { dir: number; file: number };
  /** The host's filesystem: copies a directory's files (copyFilesFrom) and stats a listing's names (entries) off the event loop. */
  copyThreads?: CopyThreads;
}

const FAILURES: Record<string, StorageFailure> = {
  ENOENT: 'not_found',
  ENOTDIR: 'not_directory',
  EISDIR: 'is_directory',
  EEXIST: 'exists',
  ENOTEMPTY: 'exists',
  EACCES: 'denied',
  EPERM: 'denied',
  ELOOP: 'denied',
  ENOSPC: 'quota',
  EDQUOT: 'quota',
  ENAMETOOLONG: 'invalid_name',
};

/**
 * What a failure's code means, as a caller is told it: Node's own messages name the real path
 * (`ENOENT: no such file or directory, lstat '/srv/root/data/x'`), which is the host's business.
 */
const DESCRIPTIONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  EEXIST: 'file exists',
  ENOTEMPTY: 'directory not empty',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ELOOP: 'too many levels of symbolic links',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  ENAMETOOLONG: 'file name too long',
};

/** A failure's message without paths: its code and what it means. */
export function describeCode(code: string): string {
  return `${code}: ${DESCRIPTIONS[code] ?? 'the storage refused'}`;
}

/** Names handed on at a time by `names()`. */
const NAMES_BATCH = 1000;
/** Entries of one directory stat'ed at a time by `entries()`. */
const STATS_AT_ONCE = 64;

/** The largest chunk a read hands on (and holds twice at most: one read ahead). */
export const READ_CHUNK = 1 << 20;

/** A temporary file's prefix: a write lands under it, then is renamed to its final name. */
export const PART_PREFIX = '.xfer-part-';

/**
 * The Storage port over a Node-style filesystem (the host's, or a memfs tree) from `root` down.
 * Every path is resolved through its real path before use and refused when that lies outside the
 * root; what is opened is checked again where it really is (a symlink swapped in between); a
 * directory made or a file renamed through a parent swapped in between is undone and refused.
 */
export class FsStorage implements Storage {
  private realRoot: Promise<string> | null = null;
  readonly features: StorageFeatures;

  constructor(
    private readonly fs: FsApi,
    private readonly root: string,
    private readonly options: FsStorageOptions = {},
  ) {
    // descriptors are checked where they lead (whereIs) before the kernel or a thread copies through them
    const checked = options.whereIs !== undefined;
    this.features = {
      typedNames: (path) => this.typedNames(path),
      kernelCopy: checked && fs.copyFile ? new FsKernelCopy(this, fs, null) : null,
      batchCopy: checked && options.copyThreads ? new FsBatchCopy(this, options.copyThreads, null) : null,
    };
  }

  /**
   * This storage from `base` down (a share's host_path), a boundary exactly like the root: paths
   * and links are checked against it, and it must itself lie inside this storage's root.
   */
  within(base: string): FsStorage {
    return base === '/' ? this : new FsStorage(this.fs, this.root === '/' ? base : `${this.root.replace(/\/+$/, '')}${base}`, { ...this.options, outer: this });
  }

  async stat(path: string): Promise<FileEntry> {
    return this.guard(path, async () => {
      const parent = path === '/' ? null : await this.inside(parentOf(path), path);
      const full = parent === null ? await this.rootPath() : `${parent}/${baseName(path)}`;
      const own = await this.fs.lstat(full);
      if (!own.isSymbolicLink()) return this.entryOf(baseName(path), own, null);
      return this.linkEntry(baseName(path), full, own);
    });
  }

  async entries(dir: string, names: readonly string[]): Promise<(FileEntry | null)[]> {
    const real = await this.guard(dir, () => this.inside(dir, dir));
    return this.guard(dir, () =>
      this.throughDirectory(real, dir, async (base) => {
        const stats = await this.ownStats(base, names);
        return Promise.all(
          names.map((name, i) => {
            const own = stats[i]!;
            if (own === null) return null;
            return own.isSymbolicLink() ? this.linkEntry(name, `${base}/${name}`, own) : this.entryOf(name, own, null);
          }),
        );
      }),
    );
  }

  /**
   * Each name's own stats in `base` (null: gone since listed): on the copy threads where this
   * storage has them (a call each there; through libuv's pool each costs the event loop a round
   * trip), else STATS_AT_ONCE at a time.
   */
  private async ownStats(base: string, names: readonly string[]): Promise<(FsStats | null)[]> {
    const threads = this.options.copyThreads;
    if (threads && this.options.whereIs) {
      return (await threads.lstat(base, names)).map((outcome) => {
        if (outcome !== null && 'code' in outcome) throw Object.assign(new Error(outcome.message), { code: outcome.code });
        return outcome;
      });
    }
    const lstat = (name: string) =>
      this.fs.lstat(`${base}/${name}`).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
    const found: (FsStats | null)[] = [];
    for (let at = 0; at < names.length; at += STATS_AT_ONCE) found.push(...(await Promise.all(names.slice(at, at + STATS_AT_ONCE).map(lstat))));
    return found;
  }

  async *names(path: string): AsyncIterable<readonly string[]> {
    const real = await this.guard(path, () => this.inside(path, path));
    yield* this.guardStream(path, this.listDirectory(real, path));
  }

  private async *typedNames(path: string): AsyncIterable<readonly ListedName[]> {
    const real = await this.guard(path, () => this.inside(path, path));
    // the listing at once, as names() reads it, through the directory's checked descriptor
    const listed = await this.guard(path, () => this.throughDirectory(real, path, (base) => this.fs.readdirTypes(base)));
    for (let at = 0; at < listed.length; at += NAMES_BATCH) {
      const batch: ListedName[] = [];
      for (const dirent of listed.slice(at, at + NAMES_BATCH)) {
        const name = String(dirent.name);
        if (!name.startsWith(PART_PREFIX)) batch.push({ name, type: dirent.isSymbolicLink() ? 'link' : dirent.isDirectory() ? 'dir' : 'file' });
      }
      yield batch;
    }
  }

  async mkdir(path: string): Promise<void> {
    await this.guard(path, async () => {
      const made = `${await this.inside(parentOf(path), path)}/${baseName(path)}`;
      await this.fs.mkdir(made, { mode: this.options.modes?.dir ?? 0o777 });
      if (!(await this.isInside(made))) {
        await this.fs.rmdir(made).catch(() => undefined);
        throw new StorageError('denied', path, 'its parent is outside the storage root');
      }
    });
  }

  async rename(from: string, to: string): Promise<void> {
    await this.guard(from, async () => {
      const source = `${await this.inside(parentOf(from), from)}/${baseName(from)}`;
      const target = `${await this.guard(to, () => this.inside(parentOf(to), to))}/${baseName(to)}`;
      await this.fs.lstat(source);
      if (await this.exists(target)) throw new StorageError('exists', to, `'${to}' exists already`);
      await this.fs.rename(source, target);
      if (!(await this.isInside(parentOf(target)))) {
        await this.fs.rename(target, source).catch(() => undefined);
        throw new StorageError('denied', to, 'its parent is outside the storage root');
      }
    });
  }

  /**
   * The file's bytes (or a range of them) in chunks of at most READ_CHUNK, each in a buffer of its
   * own (a consumer may keep it). The next chunk is read while the consumer handles the one before
   * (a copy reads and writes at once); a small file is read in one call sized from its length, a
   * short read being a regular file's end.
   */
  async *read(path: string, { range, pool }: FileReadOptions = {}): AsyncIterable<Uint8Array> {
    const { handle, size } = await this.guard(path, () => this.openInside(path));
    let position = range?.start ?? 0;
    // a range: its bytes; else to the end, however long the file has grown since its stat
    let left = range ? range.end - range.start + 1 : Infinity;
    let pending: Promise<{ buffer: Uint8Array; done: boolean }> | null = null;
    const readNext = (length: number) => {
      const buffer = pool?.take(length) ?? Buffer.allocUnsafe(length);
      const at = position;
      position += length;
      left -= length;
      return this.guard(path, () => handle.read(buffer, 0, length, at)).then(({ bytesRead }) => ({ buffer: buffer.subarray(0, bytesRead), done: bytesRead < length || left === 0 }));
    };
    try {
      // a whole file's first read: one byte more than its size, so that its end shows as a short read
      let next: Promise<{ buffer: Uint8Array; done: boolean }> = readNext(Math.min(READ_CHUNK, left, size + 1));
      pending = next;
      for (;;) {
        const { buffer, done }: { buffer: Uint8Array; done: boolean } = await next;
        pending = null;
        if (!done) pending = next = readNext(Math.min(READ_CHUNK, left));
        if (buffer.length > 0) yield buffer;
        if (done) return;
      }
    } finally {
      // a consumer that stopped early leaves a read in flight: it ends before the file closes
      await pending?.catch(() => undefined);
      await handle.close();
    }
  }

  async write(path: string, data: AsyncIterable<Uint8Array>, options: { lastModified?: Date } = {}): Promise<number> {
    return this.guard(path, async () => {
      const parent = await this.inside(parentOf(path), path);
      const part = `${parent}/${PART_PREFIX}${randomBytes(6).toString('hex')}-${baseName(path)}`.slice(0, parent.length + 255);
      const handle = await this.fs.open(part, this.fs.constants.O_WRONLY | this.fs.constants.O_CREAT | this.fs.constants.O_EXCL | this.fs.constants.O_NOFOLLOW, this.options.modes?.file ?? 0o666);
      let written = 0;
      try {
        await this.verifyOpened(handle, path);
        for await (const chunk of data) {
          await handle.write(chunk, 0, chunk.length, null);
          written += chunk.length;
        }
        await handle.close();
        if (options.lastModified) await this.fs.utimes(part, options.lastModified, options.lastModified);
        await this.fs.rename(part, `${parent}/${baseName(path)}`);
      } catch (error) {
        await handle.close().catch(() => undefined);
        await this.fs.unlink(part).catch(() => undefined);
        throw error;
      }
      return written;
    });
  }

  /**
   * The kernel copy (features.kernelCopy), from a storage on the same filesystem: the source opened
   * and checked as read() does, the temporary file made and checked as write() does, and the
   * kernel copying from the one descriptor to the other (through /proc/self/fd, so a path swapped
   * meanwhile changes nothing), then renamed into place.
   */
  async kernelCopyFrom(source: FsStorage, from: string, path: string, options: { lastModified?: Date } = {}): Promise<number> {
    const copyFile = this.fs.copyFile!;
    const { handle: input } = await source.guard(from, () => source.openInside(from));
    try {
      return await this.guard(path, async () => {
        const parent = await this.inside(parentOf(path), path);
        // through the parent's checked descriptor: the copy makes its temporary file there itself
        // (exclusively, never through a link); copying into one made before, libuv truncates it
        // first, and ext4 then writes the whole file back when it is closed (0.25 s a GiB)
        return await this.throughDirectory(parent, parentOf(path), async (base) => {
          const part = `${base}/${PART_PREFIX}${randomBytes(6).toString('hex')}-${baseName(path)}`.slice(0, base.length + 256);
          let made = false;
          try {
            const size = await copyFile(`/proc/self/fd/${input.fd}`, part, this.options.modes?.file ?? 0o666);
            made = true;
            if (options.lastModified) await this.fs.utimes(part, options.lastModified, options.lastModified);
            await this.fs.rename(part, `${base}/${baseName(path)}`);
            return size;
          } catch (error) {
            // what this copy made (or may have begun) and never placed goes; a name taken before is not its own
            if (made || (error as NodeJS.ErrnoException).code !== 'EEXIST') await this.fs.unlink(part).catch(() => undefined);
            throw error;
          }
        });
      });
    } finally {
      await input.close();
    }
  }

  /**
   * The batch copy (features.batchCopy), from a storage on the same copy threads: both directories
   * resolved inside their roots here, then opened there and checked again where their descriptors
   * lead; each file opened through its directory's descriptor without following a link, copied to
   * a temporary name and renamed into place, as the kernel copy does.
   */
  async batchCopyFrom(source: FsStorage, from: string, to: string, files: readonly DirectoryFile[], options: DirectoryCopyOptions): Promise<DirectoryFileCopy[]> {
    const threads = this.options.copyThreads!;
    const sourceDir = await source.guard(from, () => source.inside(from, from));
    const destinationDir = await this.guard(to, () => this.inside(to, to));
    const answer = await threads.copy({
      source: { root: await source.rootPath(), dir: sourceDir },
      destination: { root: await this.rootPath(), dir: destinationDir },
      files: files.map((file) => ({ name: file.name, mtimeMs: file.lastModified?.getTime() ?? null })),
      checksum: options.checksum,
      sourceTimes: options.sourceTimes ?? false,
      maxBytes: options.maxBytes ?? Infinity,
      failures: FAILURES,
      partPrefix: PART_PREFIX,
      mode: this.options.modes?.file ?? 0o666,
    }, options.signal);
    const errorOf = (failed: CopyFailure, path: string): StorageError => {
      if (failed.failure === null) throw new Error(`${path}: ${failed.message}`);
      // the thread's own findings say nothing of paths; the system's name them
      return new StorageError(failed.failure, path, failed.code === null ? failed.message : describeCode(failed.code));
    };
    if ('failed' in answer) throw errorOf(answer.failed, answer.failed.side === 'source' ? from : to);
    return answer.files.map((copied, i) => {
      if (!('failed' in copied)) return copied;
      const { side } = copied.failed;
      return { error: errorOf(copied.failed, joinStoragePath(side === 'source' ? from : to, `/${files[i]!.name}`)), side };
    });
  }

  async remove(path: string): Promise<void> {
    if (path === '/') throw new StorageError('denied', path, 'the storage root cannot be removed');
    await this.guard(path, async () => {
      const target = `${await this.inside(parentOf(path), path)}/${baseName(path)}`;
      // a symbolic link goes itself, never what it points to
      if ((await this.fs.lstat(target)).isDirectory()) await this.removeDirectory(target, path);
      else await this.fs.unlink(target);
    });
  }

  /**
   * An empty directory, as listings show it: temporary files a stopped write left behind (they
   * are hidden from names()) go with it, through the directory checked inside the root.
   */
  private async removeDirectory(real: string, path: string): Promise<void> {
    try {
      await this.fs.rmdir(real);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw error;
      const left = await this.throughDirectory(real, path, async (base) => {
        const names = await this.fs.readdir(base);
        if (names.some((name) => !name.startsWith(PART_PREFIX))) return names.length;
        for (const name of names) await this.fs.unlink(`${base}/${name}`);
        return 0;
      });
      if (left > 0) throw error;
      await this.fs.rmdir(real);
    }
  }

  async checksum(path: string, algorithm: ChecksumAlgorithm): Promise<string> {
    const hash = createHash(algorithm);
    for await (const chunk of this.read(path)) hash.update(chunk);
    return hash.digest('hex');
  }

  /** The root as the filesystem really has it (symbolic links resolved), once. */
  private rootPath(): Promise<string> {
    this.realRoot ??= (async () => {
      const real = await this.fs.realpath(this.root);
      // a share's folder swapped for a link out of its host's storage leads nowhere
      if (this.options.outer && !within(real, await this.options.outer.rootPath())) throw new StorageError('denied', '/', "it leads outside the host's storage");
      return real;
    })().catch((error: unknown) => {
      this.realRoot = null;
      throw error;
    });
    return this.realRoot;
  }

  /** The real path of `path` (within the root), refused when it resolves outside. */
  private async inside(path: string, asked: string): Promise<string> {
    const root = await this.rootPath();
    const real = await this.fs.realpath(path === '/' ? root : `${root}${path}`);
    if (!within(real, root)) throw new StorageError('denied', asked, 'it leads outside the storage root');
    return real;
  }

  private async isInside(realPath: string): Promise<boolean> {
    return within(await this.fs.realpath(realPath), await this.rootPath());
  }

  private async exists(path: string): Promise<boolean> {
    try {
      await this.fs.lstat(path);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  private async openInside(path: string): Promise<{ handle: FsHandle; size: number }> {
    const real = await this.inside(path, path);
    // never waiting at the open of a FIFO: a writer may never come, and the pool's thread would be lost
    const handle = await this.fs.open(real, this.fs.constants.O_RDONLY | this.fs.constants.O_NOFOLLOW | (this.fs.constants.O_NONBLOCK ?? 0));
    try {
      await this.verifyOpened(handle, path);
      const stats = await handle.stat();
      if (stats.isDirectory()) throw new StorageError('is_directory', path, `'${path}' is a directory`);
      if (!stats.isFile()) throw new StorageError('special_file', path, 'not a regular file (a FIFO, a socket or a device)');
      return { handle, size: Number(stats.size) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Refuses what was opened when it really lies outside the root (a component swapped for a link after the check). */
  private async verifyOpened(handle: FsHandle, path: string): Promise<void> {
    if (!this.options.whereIs) return;
    const where = await this.options.whereIs(handle.fd);
    if (where === null || !within(where, await this.rootPath())) throw new StorageError('denied', path, 'it leads outside the storage root');
  }

  /**
   * `use` of the directory at `real` (checked inside the root) through a path that stays on it: its
   * descriptor, checked to be inside, where the system says where descriptors lead (a directory
   * swapped for a link in between is refused, not followed).
   */
  private async throughDirectory<T>(real: string, path: string, use: (base: string) => Promise<T>): Promise<T> {
    if (!this.options.whereIs) return use(real);
    const handle = await this.fs.open(real, this.fs.constants.O_RDONLY | this.fs.constants.O_DIRECTORY | this.fs.constants.O_NOFOLLOW).catch(async (error: NodeJS.ErrnoException) => {
      // the real path was resolved a moment ago: a link stands there now (Linux says ELOOP or ENOTDIR), unless it is a file
      const link = error.code === 'ELOOP' || (error.code === 'ENOTDIR' && (await this.fs.lstat(real).then((stats) => stats.isSymbolicLink(), () => true)));
      throw link ? new StorageError('denied', path, 'it changed into a link while in use') : error;
    });
    try {
      await this.verifyOpened(handle, path);
      return await use(`/proc/self/fd/${handle.fd}`);
    } finally {
      await handle.close();
    }
  }

  private async *listDirectory(real: string, path: string): AsyncIterable<readonly string[]> {
    // the names at once (the kernel's or memfs's list, a few MB at 100,000), handed on in batches
    const names = await this.throughDirectory(real, path, (base) => this.fs.readdir(base));
    for (let at = 0; at < names.length; at += NAMES_BATCH) yield names.slice(at, at + NAMES_BATCH).filter((name) => !name.startsWith(PART_PREFIX));
  }

  private async linkEntry(name: string, full: string, own: FsStats): Promise<FileEntry> {
    const root = await this.rootPath();
    const target = await this.fs.realpath(full).catch(() => null);
    if (target === null || !within(target, root)) return { ...(await this.entryOf(name, own, null)), type: 'invalid_symlink' };
    const targetStats = await this.fs.stat(target);
    const ownEntry = await this.entryOf(name, own, null);
    const entry = await this.entryOf(name, targetStats, null);
    return {
      ...entry,
      link: { target: target === root ? '/' : target.slice(root === '/' ? 0 : root.length), size: ownEntry.size, lastModified: ownEntry.lastModified, user: ownEntry.user, group: ownEntry.group },
    };
  }

  private async entryOf(name: string, stats: FsStats, link: FileEntry['link']): Promise<FileEntry> {
    const names = this.options.accountNames ? await this.options.accountNames(Number(stats.uid), Number(stats.gid)) : { user: null, group: null };
    return {
      name,
      type: stats.isDirectory() ? 'dir' : 'file',
      size: Number(stats.size),
      lastModified: new Date(Math.floor(Number(stats.mtimeMs) / 1000) * 1000),
      permissions: Number(stats.mode) & 0o7777,
      user: names.user,
      group: names.group,
      link,
    };
  }

  /** Filesystem errors as StorageErrors for `path`; anything unknown goes on up. */
  private async guard<T>(path: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw asStorageError(error, path);
    }
  }

  private async *guardStream<T>(path: string, source: AsyncIterable<T>): AsyncIterable<T> {
    try {
      yield* source;
    } catch (error) {
      throw asStorageError(error, path);
    }
  }
}

function asStorageError(error: unknown, path: string): unknown {
  if (error instanceof StorageError) return error;
  const code = (error as NodeJS.ErrnoException | null)?.code ?? '';
  const failure = FAILURES[code];
  return failure ? new StorageError(failure, path, describeCode(code)) : error;
}

function within(real: string, root: string): boolean {
  return root === '/' || real === root || real.startsWith(`${root}/`);
}

/** The kernel copy between storages of one filesystem (its host). */
class FsKernelCopy implements KernelCopy {
  constructor(
    readonly storage: FsStorage,
    readonly host: object,
    private readonly guard: StorageGuard | null,
  ) {}

  async copyFile(source: KernelCopy, from: string, path: string, options?: FileCopyOptions): Promise<number> {
    if (!(source instanceof FsKernelCopy) || source.host !== this.host) throw new Error('a kernel copy takes a source on its own filesystem');
    source.guard?.check(from);
    this.guard?.check(path);
    return this.storage.kernelCopyFrom(source.storage, from, path, options);
  }

  guarded(guard: StorageGuard): KernelCopy {
    return new FsKernelCopy(this.storage, this.host, chained(this.guard, guard));
  }
}

/** The batch copy between storages of one host's copy threads. */
class FsBatchCopy implements BatchCopy {
  constructor(
    readonly storage: FsStorage,
    readonly host: object,
    private readonly guard: StorageGuard | null,
  ) {}

  async *copyFiles(source: BatchCopy, from: string, to: string, files: readonly DirectoryFile[], options: DirectoryCopyOptions): AsyncIterable<readonly DirectoryFileCopy[]> {
    if (!(source instanceof FsBatchCopy) || source.host !== this.host) throw new Error("a batch copy takes a source on its own host's threads");
    source.guard?.check(from);
    this.guard?.check(to);
    // the threads answer a job whole: its outcomes are one batch
    const copy = async function* (this: FsBatchCopy, some: readonly DirectoryFile[]): AsyncIterable<readonly DirectoryFileCopy[]> {
      yield await this.storage.batchCopyFrom(source.storage, from, to, some, options);
    }.bind(this);
    if (source.guard === null && this.guard === null) yield* copy(files);
    else yield* guardedBatch(copy, { source: source.guard, destination: this.guard }, from, to, files, options);
  }

  guarded(guard: StorageGuard): BatchCopy {
    return new FsBatchCopy(this.storage, this.host, chained(this.guard, guard));
  }
}
