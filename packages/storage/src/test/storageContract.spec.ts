import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import * as nodeFs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { onOneHost, StorageError, type DirectoryCopyOptions, type DirectoryFile, type DirectoryFileCopy, type ListedName, type Storage } from '@xfer/core';
import { gatheredCopies } from '@xfer/core/testing';
import { Volume } from 'memfs';
import { describeStorageContract } from '@xfer/core/contracts';
import { CopyThreads, FaultyStorage, FsStorage, PART_PREFIX, memoryFsApi, MEMORY_MODES, posixStorage, StorageFaults, type FsApi } from '..';

/**
 * One contract for every Storage adapter: the same tree under a root, with a directory outside
 * it (what no path may reach), for the host's filesystem and for a memfs tree alike.
 */
interface World {
  storage: Storage;
  /** The filesystem under the storage, to arrange what a test needs (paths of that filesystem). */
  fs: Pick<typeof nodeFs, 'mkdir' | 'writeFile' | 'symlink' | 'readFile' | 'readdir' | 'rm' | 'chmod'>;
  root: string;
  outside: string;
  /** A storage over the same tree whose filesystem calls go through `wrap`. */
  wrapped(wrap: (fs: FsApi) => FsApi): Storage;
  close(): Promise<void>;
}

/** A directory of the host as a posix storage (with copy threads: its entries are read on them, as a runtime's are). */
async function posixWorld(threads?: CopyThreads): Promise<World> {
  const base = await mkdtemp(`${tmpdir()}/xfer-storage-`);
  const root = `${base}/root`;
  await nodeFs.mkdir(root);
  await nodeFs.mkdir(`${base}/outside`);
  const storage = posixStorage(root, undefined, threads);
  return {
    storage,
    fs: nodeFs,
    root,
    outside: `${base}/outside`,
    wrapped: (wrap) => {
      const inner = (storage as unknown as { fs: FsApi }).fs;
      return new FsStorage(wrap(inner), root, (storage as unknown as { options: object }).options);
    },
    close: async () => {
      await threads?.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

const adapters: [string, () => Promise<World>, boolean][] = [
  ['posix (a directory of the host)', () => posixWorld(), true],
  ['posix with copy threads', () => posixWorld(new CopyThreads(2)), true],
  [
    'memory (a memfs tree)',
    async () => {
      const volume = new Volume();
      const api = memoryFsApi(volume);
      const fs = (volume as unknown as { promises: World['fs'] }).promises;
      await fs.mkdir('/root', { recursive: true });
      await fs.mkdir('/outside');
      return {
        storage: new FsStorage(api, '/root', { modes: MEMORY_MODES }),
        fs,
        root: '/root',
        outside: '/outside',
        wrapped: (wrap) => new FsStorage(wrap(api), '/root', { modes: MEMORY_MODES }),
        close: async () => undefined,
      };
    },
    false,
  ],
];

/** The kernel copy of `to` from `from` (both have one). */
const kernelCopy = (to: Storage, from: Storage, path: string, target: string, options?: { lastModified?: Date }) => to.features.kernelCopy!.copyFile(from.features.kernelCopy!, path, target, options);

/** The batch copy of `to` from `from` (both have one). */
/** Every outcome a batch copy tells, gathered in order. */
const batchCopy = (to: Storage, from: Storage, dir: string, target: string, files: readonly DirectoryFile[], options: DirectoryCopyOptions) => gatheredCopies(to.features.batchCopy!.copyFiles(from.features.batchCopy!, dir, target, files, options));

/** The size of a file that holds a copy thread a while when digested (sparse: it costs no disk to make). */
const HOLDING_BYTES = 256 * 2 ** 20;

async function holdingFile(path: string): Promise<void> {
  const handle = await nodeFs.open(path, 'w');
  await handle.truncate(HOLDING_BYTES);
  await handle.close();
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function namesOf(storage: Storage, path: string): Promise<string[]> {
  const names: string[] = [];
  for await (const batch of storage.names(path)) names.push(...batch);
  return names.sort();
}

async function* chunks(...parts: (string | Error)[]): AsyncIterable<Uint8Array> {
  for (const part of parts) {
    if (part instanceof Error) throw part;
    yield Buffer.from(part);
  }
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'none',
    (error: unknown) => (error instanceof StorageError ? error.failure : String(error)),
  );

describe.each(adapters)('the storage port: %s', (_name, open, swappable) => {
  let world: World;
  let storage: Storage;
  /** A posix storage over this world's root with copy threads of its own (`count`: their default), closed after `use`. */
  const withCopyThreads = async (count: number | undefined, use: (threaded: FsStorage) => Promise<void>) => {
    const threads = new CopyThreads(count);
    try {
      await use(posixStorage(world.root, undefined, threads));
    } finally {
      await threads.close();
    }
  };

  beforeEach(async () => {
    world = await open();
    storage = world.storage;
    const { fs, root, outside } = world;
    await fs.mkdir(`${root}/data/sub`, { recursive: true });
    await fs.writeFile(`${root}/data/a.txt`, 'hello');
    await fs.writeFile(`${root}/data/sub/deep.bin`, Buffer.alloc(3000, 7));
    await fs.writeFile(`${outside}/secret.txt`, 'top secret');
  });

  afterEach(() => world.close());

  describe('reading', () => {
    it('reads a range that spans several chunks, and a whole file, byte for byte', async () => {
      const content = Buffer.alloc(3 * 2 ** 20 + 17);
      for (let i = 0; i < content.length; i += 1) content[i] = (i * 7) % 251;
      await world.fs.writeFile(`${world.root}/data/large.bin`, content);
      const start = 2 ** 20 - 5;
      const end = 2 * 2 ** 20 + 4;
      expect((await collect(storage.read('/data/large.bin', { range: { start, end } }))).equals(content.subarray(start, end + 1))).toBe(true);
      expect((await collect(storage.read('/data/large.bin'))).equals(content)).toBe(true);
    });

    it('stats files and directories with their size, time and permission bits', async () => {
      const file = await storage.stat('/data/a.txt');
      expect(file).toMatchObject({ name: 'a.txt', type: 'file', size: 5, link: null });
      expect(file.permissions & 0o600).toBe(0o600);
      expect(Math.abs(file.lastModified.getTime() - Date.now())).toBeLessThan(60_000);
      expect(file.lastModified.getMilliseconds()).toBe(0);
      expect(await storage.stat('/data/sub')).toMatchObject({ name: 'sub', type: 'dir' });
      expect((await storage.stat('/')).type).toBe('dir');
      expect(await failureOf(storage.stat('/data/none'))).toBe('not_found');
      expect(await failureOf(storage.stat('/data/a.txt/inner'))).toBe('not_directory');
    });

    it('lists the names of a directory, streamed, and a large one whole', async () => {
      expect(await namesOf(storage, '/data')).toEqual(['a.txt', 'sub']);
      await world.fs.mkdir(`${world.root}/many`);
      for (let i = 0; i < 2000; i += 1) await world.fs.writeFile(`${world.root}/many/f${i}`, '');
      expect(await namesOf(storage, '/many')).toHaveLength(2000);
      expect(await failureOf(namesOf(storage, '/none'))).toBe('not_found');
    });

    it("gives a listing's entries in the order asked, null for a name gone since", async () => {
      const found = await storage.entries('/data', ['sub', 'gone', 'a.txt']);
      expect(found.map((entry) => entry && [entry.name, entry.type, entry.size])).toEqual([['sub', 'dir', expect.any(Number)], null, ['a.txt', 'file', 5]]);
      expect(await storage.entries('/', ['data'])).toEqual([expect.objectContaining({ name: 'data', type: 'dir' })]);
      expect(await failureOf(storage.entries('/none', ['a']))).toBe('not_found');
      expect(await failureOf(storage.entries('/data/a.txt', ['a']))).toBe('not_directory');
    });

    it('lists names with the types their listing gives, without temporary files, links as links', async () => {
      const { fs, root } = world;
      await fs.symlink('a.txt', `${root}/data/inside-link`);
      await fs.writeFile(`${root}/data/${PART_PREFIX}abc-a.txt`, 'half');
      const listed: ListedName[] = [];
      for await (const batch of storage.features.typedNames!('/data')) listed.push(...batch);
      expect(listed.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
        { name: 'a.txt', type: 'file' },
        { name: 'inside-link', type: 'link' },
        { name: 'sub', type: 'dir' },
      ]);
      await fs.mkdir(`${root}/many`);
      for (let i = 0; i < 2000; i += 1) await fs.writeFile(`${root}/many/f${i}`, '');
      const batches: number[] = [];
      for await (const batch of storage.features.typedNames!('/many')) batches.push(batch.length);
      expect(batches).toEqual([1000, 1000]);
      const all = async (path: string) => {
        for await (const batch of storage.features.typedNames!(path)) void batch;
      };
      expect(await failureOf(all('/none'))).toBe('not_found');
      expect(await failureOf(all('/data/a.txt'))).toBe('not_directory');
    });

    it('reads a file as a stream and digests it', async () => {
      expect((await collect(storage.read('/data/sub/deep.bin'))).equals(Buffer.alloc(3000, 7))).toBe(true);
      expect(await storage.checksum('/data/a.txt', 'md5')).toBe(createHash('md5').update('hello').digest('hex'));
      expect(await storage.checksum('/data/a.txt', 'sha256')).toBe(createHash('sha256').update('hello').digest('hex'));
      expect(await failureOf(collect(storage.read('/data/sub')))).toBe('is_directory');
      expect(await failureOf(collect(storage.read('/data/none')))).toBe('not_found');
    });
  });

  describe('writing', () => {
    it('makes one directory, once, under a parent that exists', async () => {
      await storage.mkdir('/data/new');
      expect((await storage.stat('/data/new')).type).toBe('dir');
      expect(await failureOf(storage.mkdir('/data/new'))).toBe('exists');
      expect(await failureOf(storage.mkdir('/none/new'))).toBe('not_found');
      expect(await failureOf(storage.mkdir('/data/a.txt/new'))).toBe('not_directory');
    });

    it('renames across folders, never over something that exists', async () => {
      await storage.rename('/data/a.txt', '/data/sub/b.txt');
      expect(await namesOf(storage, '/data/sub')).toEqual(['b.txt', 'deep.bin']);
      await storage.rename('/data/sub', '/moved');
      expect(await namesOf(storage, '/moved')).toEqual(['b.txt', 'deep.bin']);
      await storage.mkdir('/data/other');
      expect(await failureOf(storage.rename('/moved', '/data/other'))).toBe('exists');
      expect(await failureOf(storage.rename('/none', '/data/x'))).toBe('not_found');
      expect(await failureOf(storage.rename('/moved', '/none/x'))).toBe('not_found');
    });

    it('writes through a hidden temporary name, then puts the file in place with the time asked', async () => {
      const when = new Date('2024-05-06T07:08:09Z');
      let seenMidway: string[] = [];
      async function* slowly(): AsyncIterable<Uint8Array> {
        yield Buffer.from('part one, ');
        seenMidway = await namesOf(storage, '/data');
        yield Buffer.from('part two');
      }
      expect(await storage.write('/data/new.txt', slowly(), { lastModified: when })).toBe(18);
      expect(seenMidway).toEqual(['a.txt', 'sub']);
      expect((await collect(storage.read('/data/new.txt'))).toString()).toBe('part one, part two');
      expect((await storage.stat('/data/new.txt')).lastModified).toEqual(when);
      await storage.write('/data/a.txt', chunks('replaced'));
      expect((await collect(storage.read('/data/a.txt'))).toString()).toBe('replaced');
    });

    it("copies a file from a storage on the host's filesystem in the kernel, as write() would; has no kernel copy from another", async () => {
      const when = new Date('2026-01-02T03:04:05Z');
      // a source of its own mode: the copy is a new file of this storage, with a new file's mode
      if (swappable) await nodeFs.chmod(`${world.root}/data/sub/deep.bin`, 0o600);
      if (!swappable) {
        // a memory tree has no kernel to copy in: the caller streams
        expect(storage.features.kernelCopy).toBeNull();
        return;
      }
      expect(await kernelCopy(storage, storage, '/data/sub/deep.bin', '/data/copy.bin', { lastModified: when })).toBe(3000);
      expect((await collect(storage.read('/data/copy.bin'))).equals(Buffer.alloc(3000, 7))).toBe(true);
      expect((await storage.stat('/data/copy.bin')).lastModified).toEqual(when);
      expect((await storage.stat('/data/copy.bin')).permissions).toBe(0o666 & ~process.umask());
      expect(await kernelCopy(storage, storage, '/data/a.txt', '/data/plain.txt')).toBe(5);
      expect((await world.fs.readdir(`${world.root}/data`)).map(String).filter((name) => name.startsWith(PART_PREFIX))).toEqual([]);
      const missing = await kernelCopy(storage, storage, '/data/none', '/data/x.bin').catch((error: StorageError) => [error.failure, error.path]);
      expect(missing).toEqual(['not_found', '/data/none']);
      expect(await failureOf(kernelCopy(storage, storage, '/data/a.txt', '/nowhere/x.txt'))).toBe('not_found');
      expect(await failureOf(kernelCopy(storage, storage, '/data/sub', '/data/dir-copy'))).toBe('is_directory');
      // another kind of storage, or the same kind over another filesystem: not in the kernel
      expect(new FsStorage(memoryFsApi(new Volume()), '/', { modes: MEMORY_MODES }).features.kernelCopy).toBeNull();
      const elsewhere = world.wrapped((fs) => ({ ...fs }));
      expect(onOneHost(storage.features.kernelCopy, elsewhere.features.kernelCopy)).toBe(false);
      await expect(kernelCopy(storage, elsewhere, '/data/a.txt', '/data/z.txt')).rejects.toThrow('a kernel copy takes a source on its own filesystem');
      expect(onOneHost(storage.features.kernelCopy, posixStorage(world.root).features.kernelCopy)).toBe(true);
    });

    it("copies a directory's files on a copy thread, in order, each as the kernel copy would; has no batch copy from other threads", async () => {
      const options = { checksum: null } as const;
      if (!swappable) {
        // a memory tree has no thread to copy on: the caller copies one file at a time
        expect(storage.features.batchCopy).toBeNull();
        return;
      }
      await withCopyThreads(undefined, async (threaded) => {
        const when = new Date('2026-01-02T03:04:05Z');
        await world.fs.mkdir(`${world.root}/copy`);
        await world.fs.writeFile(`${world.root}/data/large.bin`, Buffer.alloc(3 * 2 ** 20, 9));
        const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
        const outcomes = await batchCopy(threaded, threaded, '/data', '/copy', [{ name: 'a.txt', lastModified: when }, { name: 'missing' }, { name: 'large.bin' }, { name: 'sub' }, { name: 'never' }], { checksum: 'sha256' });
        expect(outcomes!.map((o) => ('error' in o ? [o.side, o.error.failure, o.error.path] : o))).toEqual([
          { bytes: 5, checksums: { source: sha256('hello'), destination: sha256('hello') } },
          ['source', 'not_found', '/data/missing'],
          { bytes: 3 * 2 ** 20, checksums: { source: sha256(Buffer.alloc(3 * 2 ** 20, 9)), destination: sha256(Buffer.alloc(3 * 2 ** 20, 9)) } },
          // a directory is no file to copy; the copy goes on (what a failure means is its caller's to decide)
          ['source', 'is_directory', '/data/sub'],
          ['source', 'not_found', '/data/never'],
        ]);
        expect((await world.fs.readFile(`${world.root}/copy/a.txt`)).toString()).toBe('hello');
        expect((await threaded.stat('/copy/a.txt')).lastModified).toEqual(when);
        // a large file without digests goes through the kernel, a new file of this storage (a new file's mode, not the source's)
        await nodeFs.chmod(`${world.root}/data/large.bin`, 0o600);
        expect(await batchCopy(threaded, threaded, '/data', '/copy', [{ name: 'large.bin' }], options)).toEqual([{ bytes: 3 * 2 ** 20, checksums: null }]);
        expect((await world.fs.readFile(`${world.root}/copy/large.bin`)).equals(Buffer.alloc(3 * 2 ** 20, 9))).toBe(true);
        expect((await threaded.stat('/copy/large.bin')).permissions).toBe(0o666 & ~process.umask());
        expect((await world.fs.readdir(`${world.root}/copy`)).map(String).sort()).toEqual(['a.txt', 'large.bin']);
        // a directory that is missing, or a file where a directory goes
        expect(await failureOf(batchCopy(threaded, threaded, '/data', '/nowhere', [{ name: 'a.txt' }], options))).toBe('not_found');
        await world.fs.mkdir(`${world.root}/copy/taken`);
        await world.fs.writeFile(`${world.root}/data/taken`, 'file');
        const blocked = await batchCopy(threaded, threaded, '/data', '/copy', [{ name: 'taken' }], options);
        expect(blocked!.map((o) => ('error' in o ? [o.side, o.error.failure, o.error.path] : o))).toEqual([['destination', 'is_directory', '/copy/taken']]);
        expect((await world.fs.readdir(`${world.root}/copy`)).map(String).filter((name) => name.startsWith(PART_PREFIX))).toEqual([]);
        // other pairs: a storage without threads, or with other threads
        expect(posixStorage(world.root).features.batchCopy).toBeNull();
        const otherThreads = new CopyThreads(1);
        try {
          const elsewhere = posixStorage(world.root, undefined, otherThreads);
          expect(onOneHost(threaded.features.batchCopy, elsewhere.features.batchCopy)).toBe(false);
          await expect(batchCopy(threaded, elsewhere, '/data', '/copy', [{ name: 'a.txt' }], options)).rejects.toThrow("a batch copy takes a source on its own host's threads");
        } finally {
          await otherThreads.close();
        }
      });
    });

    it("copies a directory's files on two threads side by side, answered in order as one thread answers", async () => {
      if (!swappable) return;
      await withCopyThreads(2, async (threaded) => {
        const options = { checksum: null } as const;
        await world.fs.mkdir(`${world.root}/many`);
        await world.fs.mkdir(`${world.root}/copies`);
        const names = Array.from({ length: 21 }, (_, i) => `f${String(i).padStart(2, '0')}`);
        for (const [i, name] of names.entries()) await world.fs.writeFile(`${world.root}/many/${name}`, 'x'.repeat(i + 1));
        const outcomes = await batchCopy(threaded, threaded, '/many', '/copies', names.map((name) => ({ name })), options);
        expect(outcomes).toEqual(names.map((_, i) => ({ bytes: i + 1, checksums: null })));
        for (const [i, name] of names.entries()) expect((await world.fs.readFile(`${world.root}/copies/${name}`)).toString()).toBe('x'.repeat(i + 1));
        // a directory among them is told in its turn, and the files after it copied
        await world.fs.mkdir(`${world.root}/many/dir`);
        const told = await batchCopy(threaded, threaded, '/many', '/copies', [{ name: 'f00' }, { name: 'dir' }, { name: 'f01' }, { name: 'f02' }], options);
        expect(told.map((o) => ('error' in o ? [o.side, o.error.failure, o.error.path] : o))).toEqual([{ bytes: 1, checksums: null }, ['source', 'is_directory', '/many/dir'], { bytes: 2, checksums: null }, { bytes: 3, checksums: null }]);
        expect((await world.fs.readdir(`${world.root}/copies`)).map(String).filter((name) => name.startsWith(PART_PREFIX))).toEqual([]);
      });
    });

    it("stops a copy before a file that would take it past its bytes, never before the first; a file with no time gets its source's", async () => {
      if (!swappable) return;
      const options = { checksum: null, sourceTimes: true } as const;
      await world.fs.mkdir(`${world.root}/sized`);
      await world.fs.mkdir(`${world.root}/bounded`);
      const sizes = [3, 5, 7, 1];
      const names = sizes.map((_, i) => `s${i}`);
      for (const [i, name] of names.entries()) await world.fs.writeFile(`${world.root}/sized/${name}`, 'x'.repeat(sizes[i]!));
      const then = new Date('2025-05-05T05:05:05.750Z');
      await nodeFs.utimes(`${world.root}/sized/s0`, then, then);
      const bytes = (outcomes: DirectoryFileCopy[] | null) => outcomes!.map((outcome) => ('bytes' in outcome ? outcome.bytes : outcome.error.failure));
      await withCopyThreads(1, async (threaded) => {
        expect(bytes(await batchCopy(threaded, threaded, '/sized', '/bounded', names.map((name) => ({ name })), { ...options, maxBytes: 8 }))).toEqual([3, 5]);
        expect((await world.fs.readdir(`${world.root}/bounded`)).map(String).sort()).toEqual(['s0', 's1']);
        expect((await threaded.stat('/bounded/s0')).lastModified).toEqual(new Date('2025-05-05T05:05:05Z'));
        // the first file goes whatever its size
        expect(bytes(await batchCopy(threaded, threaded, '/sized', '/bounded', [{ name: 's2' }, { name: 's3' }], { ...options, maxBytes: 2 }))).toEqual([7]);
      });
      // two threads take the files in turn: the answer is still the files before the first left out
      await withCopyThreads(2, async (threaded) => {
        for (let round = 0; round < 5; round += 1) {
          const answered = bytes(await batchCopy(threaded, threaded, '/sized', '/bounded', names.map((name) => ({ name })), { ...options, maxBytes: 9 }));
          expect(answered.length).toBeGreaterThanOrEqual(1);
          expect(answered).toEqual(sizes.slice(0, answered.length));
          expect(answered.slice(1).reduce((sum: number, size) => sum + Number(size), 0)).toBeLessThanOrEqual(9);
        }
      });
      expect((await world.fs.readdir(`${world.root}/bounded`)).map(String).filter((name) => name.startsWith(PART_PREFIX))).toEqual([]);
    });

    it('stops a copy of files once its signal aborts, after the file in hand: it answers for the files before and copies no more', async () => {
      if (!swappable) return;
      await withCopyThreads(1, async (threaded) => {
        await world.fs.mkdir(`${world.root}/held`);
        await nodeFs.writeFile(`${world.root}/data/b.txt`, 'b');
        // a large file digested as it is copied holds the thread for a while (at least 0.4 s): the abort arrives meanwhile
        await holdingFile(`${world.root}/data/large`);
        const stop = new AbortController();
        const copying = batchCopy(threaded, threaded, '/data', '/held', [{ name: 'a.txt' }, { name: 'large' }, { name: 'b.txt' }], { checksum: 'md5', signal: stop.signal });
        // once the large file is in hand (its temporary file made), however long the thread took to start
        while (!(await world.fs.readdir(`${world.root}/held`)).map(String).some((name) => name.startsWith(PART_PREFIX) && name.endsWith('large'))) await new Promise((resolve) => setTimeout(resolve, 5));
        stop.abort();
        expect((await copying)!.map((outcome) => ('bytes' in outcome ? outcome.bytes : outcome))).toEqual([(await nodeFs.stat(`${world.root}/data/a.txt`)).size, HOLDING_BYTES]);
        expect((await world.fs.readdir(`${world.root}/held`)).map(String).sort()).toEqual(['a.txt', 'large']);
        // aborted before it began: nothing
        expect(await batchCopy(threaded, threaded, '/data', '/held', [{ name: 'b.txt' }], { checksum: null, signal: stop.signal })).toEqual([]);
        expect((await world.fs.readdir(`${world.root}/held`)).map(String).sort()).toEqual(['a.txt', 'large']);
      });
    });

    it('answers a listing while its copy thread is held by a copy', async () => {
      if (!swappable) return;
      await withCopyThreads(1, async (threaded) => {
        await world.fs.mkdir(`${world.root}/held`);
        await holdingFile(`${world.root}/data/large`);
        const copying = batchCopy(threaded, threaded, '/data', '/held', [{ name: 'large' }], { checksum: 'md5' });
        const listing = threaded.entries('/data', ['a.txt', 'sub']);
        expect(await Promise.race([listing.then(() => 'listed'), copying.then(() => 'copied')])).toBe('listed');
        expect((await listing).map((entry) => entry?.name)).toEqual(['a.txt', 'sub']);
        expect(await copying).toEqual([{ bytes: HOLDING_BYTES, checksums: { source: expect.any(String), destination: expect.any(String) } }]);
      });
    });

    it('never opens a FIFO to wait for a writer: it is a special file, refused by read, copyFrom and copyFilesFrom', async () => {
      if (!swappable) return;
      execFileSync('mkfifo', [`${world.root}/data/pipe`]);
      expect(await failureOf(storage.checksum('/data/pipe', 'md5'))).toBe('special_file');
      expect(await failureOf(kernelCopy(storage, storage, '/data/pipe', '/data/copy') as Promise<unknown>)).toBe('special_file');
      await withCopyThreads(1, async (threaded) => {
        const copied = await batchCopy(threaded, threaded, '/data', '/data/sub', [{ name: 'pipe' }, { name: 'a.txt' }], { checksum: null });
        expect(copied!.map((outcome) => ('error' in outcome ? outcome.error.failure : 'copied'))).toEqual(['special_file', 'copied']);
      });
    });

    it('leaves nothing behind when the data fails midway', async () => {
      await expect(storage.write('/data/broken.txt', chunks('some', new Error('source gone')))).rejects.toThrow('source gone');
      expect(await namesOf(storage, '/data')).toEqual(['a.txt', 'sub']);
      expect((await world.fs.readdir(`${world.root}/data`)).filter((n) => String(n).startsWith(PART_PREFIX))).toEqual([]);
      expect(await failureOf(storage.write('/none/x.txt', chunks('x')))).toBe('not_found');
    });

    it('removes a file or an empty directory, never a full one nor the root', async () => {
      await storage.remove('/data/a.txt');
      expect(await namesOf(storage, '/data')).toEqual(['sub']);
      expect(await failureOf(storage.remove('/data/sub'))).toBe('exists');
      await storage.remove('/data/sub/deep.bin');
      await storage.remove('/data/sub');
      expect(await namesOf(storage, '/data')).toEqual([]);
      expect(await failureOf(storage.remove('/'))).toBe('denied');
      expect(await failureOf(storage.remove('/data/none'))).toBe('not_found');
    });

    it('removes a directory that holds only what a stopped write left (hidden temporary files), never one with more', async () => {
      const { fs, root } = world;
      await fs.mkdir(`${root}/left/more`, { recursive: true });
      await fs.writeFile(`${root}/left/${PART_PREFIX}abc-x.bin`, 'half');
      await fs.writeFile(`${root}/left/more/${PART_PREFIX}def-y.bin`, 'half');
      await fs.writeFile(`${root}/left/more/kept.txt`, 'whole');
      expect(await namesOf(storage, '/left')).toEqual(['more']);
      expect(await failureOf(storage.remove('/left/more'))).toBe('exists');
      expect((await fs.readdir(`${root}/left/more`)).map(String).sort()).toEqual([`${PART_PREFIX}def-y.bin`, 'kept.txt']);
      await storage.remove('/left/more/kept.txt');
      await storage.remove('/left/more');
      await storage.remove('/left');
      expect(await namesOf(storage, '/')).toEqual(['data']);
    });
  });

  describe('never outside the root', () => {
    beforeEach(async () => {
      const { fs, root, outside } = world;
      await fs.symlink(outside, `${root}/data/abs-out`);
      await fs.symlink('../../outside', `${root}/data/rel-out`);
      await fs.symlink(`${outside}/secret.txt`, `${root}/data/secret-link`);
      await fs.symlink('a.txt', `${root}/data/inside-link`);
      await fs.symlink('sub', `${root}/data/dir-link`);
      await fs.symlink('nowhere', `${root}/data/dangling`);
    });

    it('shows links out of the root, and dangling ones, as invalid_symlink; links inside as their target', async () => {
      expect((await storage.stat('/data/abs-out')).type).toBe('invalid_symlink');
      expect((await storage.stat('/data/rel-out')).type).toBe('invalid_symlink');
      expect((await storage.stat('/data/secret-link')).type).toBe('invalid_symlink');
      expect((await storage.stat('/data/dangling')).type).toBe('invalid_symlink');
      expect(await storage.stat('/data/inside-link')).toMatchObject({ type: 'file', size: 5, link: { target: '/data/a.txt' } });
      expect(await storage.stat('/data/dir-link')).toMatchObject({ type: 'dir', link: { target: '/data/sub' } });
      expect(await namesOf(storage, '/data/dir-link')).toEqual(['deep.bin']);
      const listed = await storage.entries('/data', ['abs-out', 'rel-out', 'secret-link', 'dangling', 'inside-link']);
      expect(listed.map((entry) => entry?.type)).toEqual(['invalid_symlink', 'invalid_symlink', 'invalid_symlink', 'invalid_symlink', 'file']);
      expect(listed[4]).toMatchObject({ size: 5, link: { target: '/data/a.txt' } });
    });

    it('refuses every use of a path through a link that leads out', async () => {
      expect(await failureOf(namesOf(storage, '/data/abs-out'))).toBe('denied');
      expect(await failureOf(namesOf(storage, '/data/rel-out'))).toBe('denied');
      expect(await failureOf(storage.entries('/data/abs-out', ['secret.txt']))).toBe('denied');
      expect(await failureOf(storage.stat('/data/abs-out/secret.txt'))).toBe('denied');
      expect(await failureOf(collect(storage.read('/data/secret-link')))).toBe('denied');
      expect(await failureOf(collect(storage.read('/data/rel-out/secret.txt')))).toBe('denied');
      expect(await failureOf(storage.checksum('/data/secret-link', 'md5'))).toBe('denied');
      expect(await failureOf(storage.mkdir('/data/abs-out/made'))).toBe('denied');
      expect(await failureOf(storage.write('/data/rel-out/planted.txt', chunks('x')))).toBe('denied');
      expect(await failureOf(storage.rename('/data/a.txt', '/data/abs-out/a.txt'))).toBe('denied');
      expect(await failureOf(storage.rename('/data/abs-out/secret.txt', '/data/stolen.txt'))).toBe('denied');
      expect(await failureOf(storage.remove('/data/abs-out/secret.txt'))).toBe('denied');
      expect((await world.fs.readdir(world.outside)).map(String)).toEqual(['secret.txt']);
    });

    it("copies no link's target, and no name that is a path, on a copy thread", async () => {
      if (!swappable) return;
      await withCopyThreads(undefined, async (threaded) => {
        const outcomes = await batchCopy(threaded, threaded, '/data', '/data/sub', [{ name: 'secret-link' }, { name: 'inside-link' }, { name: '../../outside/secret.txt' }, { name: '..' }], { checksum: null });
        expect(outcomes!.map((o) => ('error' in o ? [o.side, o.error.failure] : o))).toEqual([['source', 'denied'], ['source', 'denied'], ['source', 'denied'], ['source', 'denied']]);
        expect(await namesOf(storage, '/data/sub')).toEqual(['deep.bin']);
        expect(await failureOf(batchCopy(threaded, threaded, '/data/abs-out', '/data/sub', [{ name: 'secret.txt' }], { checksum: null }))).toBe('denied');
        expect(await failureOf(batchCopy(threaded, threaded, '/data', '/data/rel-out', [{ name: 'a.txt' }], { checksum: null }))).toBe('denied');
        expect((await world.fs.readdir(world.outside)).map(String)).toEqual(['secret.txt']);
      });
    });

    it('removes a link itself, never what it points to', async () => {
      await storage.remove('/data/secret-link');
      expect((await world.fs.readFile(`${world.outside}/secret.txt`)).toString()).toBe('top secret');
      expect(await namesOf(storage, '/data')).not.toContain('secret-link');
    });
  });

  // a memory tree has no writer but its storage: nothing can swap a path between two of its calls
  if (!swappable) return;
  it('refuses a directory swapped for a link out of the root between the check and the use', async () => {
    const { fs, root, outside } = world;
    await fs.mkdir(`${root}/victim`);
    await fs.writeFile(`${root}/victim/secret.txt`, 'inside');
    const swapAfterCheck = (inner: FsApi): FsApi => ({
      ...inner,
      realpath: async (path) => {
        const real = await inner.realpath(path);
        if (path.includes('/victim')) {
          await fs.rm(`${root}/victim`, { recursive: true, force: true });
          await fs.symlink(outside, `${root}/victim`);
        }
        return real;
      },
    });
    const reset = async () => {
      await fs.rm(`${root}/victim`, { recursive: true, force: true });
      await fs.mkdir(`${root}/victim`);
      await fs.writeFile(`${root}/victim/secret.txt`, 'inside');
    };
    expect(await failureOf(collect(world.wrapped(swapAfterCheck).read('/victim/secret.txt')))).toBe('denied');
    await reset();
    expect(await failureOf(namesOf(world.wrapped(swapAfterCheck), '/victim'))).toBe('denied');
    await reset();
    expect(await failureOf(world.wrapped(swapAfterCheck).entries('/victim', ['secret.txt']))).toBe('denied');
    await reset();
    expect(await failureOf(world.wrapped(swapAfterCheck).mkdir('/victim/made'))).toBe('denied');
    await reset();
    expect(await failureOf(world.wrapped(swapAfterCheck).write('/victim/planted.txt', chunks('x')))).toBe('denied');
    if (swappable) {
      await reset();
      const swapping = world.wrapped(swapAfterCheck);
      expect(await failureOf(kernelCopy(swapping, swapping, '/victim/secret.txt', '/data/stolen.txt'))).toBe('denied');
      await reset();
      expect(await failureOf(kernelCopy(swapping, swapping, '/data/a.txt', '/victim/planted.txt'))).toBe('denied');
      expect((await fs.readdir(`${root}/data`)).map(String).sort()).toEqual(['a.txt', 'sub']);
      const thread = new CopyThreads();
      try {
        const threaded = new FsStorage(swapAfterCheck((posixStorage(root) as unknown as { fs: FsApi }).fs), root, { ...(storage as unknown as { options: object }).options, copyThreads: thread });
        await reset();
        expect(await failureOf(batchCopy(threaded, threaded, '/victim', '/data', [{ name: 'secret.txt' }], { checksum: null }))).toBe('denied');
        await reset();
        expect(await failureOf(batchCopy(threaded, threaded, '/data', '/victim', [{ name: 'a.txt' }], { checksum: null }))).toBe('denied');
      } finally {
        await thread.close();
      }
      expect((await fs.readdir(`${root}/data`)).map(String).sort()).toEqual(['a.txt', 'sub']);
    }
    expect((await fs.readdir(outside)).map(String).sort()).toEqual(['secret.txt']);
    expect((await fs.readFile(`${outside}/secret.txt`)).toString()).toBe('top secret');
  });
});

for (const [name, open] of adapters) {
  describeStorageContract(name, async () => {
    const world = await open();
    return { storage: world.storage, close: () => world.close() };
  });
}

describeStorageContract('the fault wrapper, no fault pending, over posix with copy threads', async () => {
  const world = await posixWorld(new CopyThreads(2));
  return { storage: new FaultyStorage(world.storage, 'e1', new StorageFaults()), close: () => world.close() };
});
