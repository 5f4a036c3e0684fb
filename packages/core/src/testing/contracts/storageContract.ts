import { createHash } from 'node:crypto';
import { onOneHost, StorageError, type ListedName, type Storage } from '../../storage/Storage';
import { gatheredCopies } from '../gathered';

export interface StorageSubject {
  /** An empty storage (its root, `/`, exists). */
  storage: Storage;
  close(): Promise<void>;
}

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

async function text(data: AsyncIterable<Uint8Array>): Promise<string> {
  const read: Buffer[] = [];
  for await (const chunk of data) read.push(Buffer.from(chunk));
  return Buffer.concat(read).toString();
}

async function failureOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (error instanceof StorageError) return error.failure;
    throw error;
  }
  return 'none';
}

async function namesOf(storage: Storage, path: string): Promise<string[]> {
  const names: string[] = [];
  for await (const batch of storage.names(path)) names.push(...batch);
  return names.sort();
}

const digest = (algorithm: 'md5' | 'sha256', content: string) => createHash(algorithm).update(content).digest('hex');

/**
 * What every implementation of the Storage port does, arranged and observed through the port
 * alone: the adapters (posix, with threads, memfs), the fault wrapper and core's fake, so that
 * neither a wrapper nor a fake drifts from what the task runner is tested against. A faster path
 * a storage has (its features) copies as the plain members would.
 */
export function describeStorageContract(implementation: string, open: () => Promise<StorageSubject>): void {
  describe(`storage contract: ${implementation}`, () => {
    let subject: StorageSubject;
    let storage: Storage;
    const when = new Date('2025-04-05T06:07:08Z');

    beforeEach(async () => {
      subject = await open();
      storage = subject.storage;
      await storage.mkdir('/data');
      await storage.mkdir('/data/sub');
      await storage.write('/data/a.txt', chunks('hel', 'lo'), { lastModified: when });
      await storage.write('/data/sub/deep.txt', chunks('deep'));
    });
    afterEach(() => subject.close());

    it('describes, lists and reads what was written, in the time asked', async () => {
      expect(await storage.stat('/')).toMatchObject({ type: 'dir' });
      expect(await storage.stat('/data/a.txt')).toMatchObject({ name: 'a.txt', type: 'file', size: 5, lastModified: when, link: null });
      expect(await storage.stat('/data/sub')).toMatchObject({ name: 'sub', type: 'dir' });
      expect(await namesOf(storage, '/data')).toEqual(['a.txt', 'sub']);
      const entries = await storage.entries('/data', ['sub', 'gone', 'a.txt']);
      expect(entries.map((entry) => entry && [entry.name, entry.type])).toEqual([['sub', 'dir'], null, ['a.txt', 'file']]);
      expect(await text(storage.read('/data/a.txt'))).toBe('hello');
      expect(await storage.checksum('/data/a.txt', 'md5')).toBe(digest('md5', 'hello'));
      expect(await storage.checksum('/data/sub/deep.txt', 'sha256')).toBe(digest('sha256', 'deep'));
    });

    it('reads a range of bytes, both ends included', async () => {
      expect(await text(storage.read('/data/a.txt', { range: { start: 1, end: 3 } }))).toBe('ell');
      expect(await text(storage.read('/data/a.txt', { range: { start: 4, end: 4 } }))).toBe('o');
      expect(await text(storage.read('/data/a.txt', { range: { start: 0, end: 4 } }))).toBe('hello');
      expect(await failureOf(text(storage.read('/none', { range: { start: 0, end: 0 } })))).toBe('not_found');
    });

    it('replaces a file written again, and moves a tree by renaming it', async () => {
      expect(await storage.write('/data/a.txt', chunks('replaced'))).toBe(8);
      expect(await text(storage.read('/data/a.txt'))).toBe('replaced');
      await storage.rename('/data/sub', '/moved');
      expect(await text(storage.read('/moved/deep.txt'))).toBe('deep');
      expect(await failureOf(storage.stat('/data/sub'))).toBe('not_found');
      await storage.remove('/moved/deep.txt');
      await storage.remove('/moved');
      expect(await namesOf(storage, '/')).toEqual(['data']);
    });

    it('refuses what cannot be done, saying why', async () => {
      expect(await failureOf(storage.stat('/none'))).toBe('not_found');
      expect(await failureOf(text(storage.read('/none')))).toBe('not_found');
      expect(await failureOf(text(storage.read('/data/sub')))).toBe('is_directory');
      expect(await failureOf(namesOf(storage, '/data/a.txt'))).toBe('not_directory');
      expect(await failureOf(storage.mkdir('/data/sub'))).toBe('exists');
      expect(await failureOf(storage.mkdir('/none/new'))).toBe('not_found');
      expect(await failureOf(storage.write('/none/x.txt', chunks('x')))).toBe('not_found');
      expect(await failureOf(storage.write('/data/sub', chunks('x')))).toBe('is_directory');
      expect(await failureOf(storage.rename('/data/a.txt', '/data/sub'))).toBe('exists');
      expect(await failureOf(storage.rename('/none', '/data/x'))).toBe('not_found');
      expect(await failureOf(storage.remove('/data/sub'))).toBe('exists');
      expect(await failureOf(storage.remove('/'))).toBe('denied');
      expect(await failureOf(storage.checksum('/none', 'md5'))).toBe('not_found');
    });

    it("lists a directory's names with their types where it can do so without a stat", async () => {
      const { typedNames } = storage.features;
      if (typedNames === null) return;
      const listed: ListedName[] = [];
      for await (const batch of typedNames('/data')) listed.push(...batch);
      expect(listed.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
        { name: 'a.txt', type: 'file' },
        { name: 'sub', type: 'dir' },
      ]);
      expect(await failureOf((async () => {
        for await (const batch of typedNames('/none')) void batch;
      })())).toBe('not_found');
    });

    it('copies a file within its host as write() would, where it has a kernel copy', async () => {
      const copy = storage.features.kernelCopy;
      if (copy === null) return;
      expect(onOneHost(copy, copy)).toBe(true);
      expect(await copy.copyFile(copy, '/data/a.txt', '/data/sub/copy.txt', { lastModified: when })).toBe(5);
      expect(await text(storage.read('/data/sub/copy.txt'))).toBe('hello');
      expect((await storage.stat('/data/sub/copy.txt')).lastModified).toEqual(when);
      expect(await failureOf(copy.copyFile(copy, '/none', '/data/x.txt'))).toBe('not_found');
      expect(await failureOf(copy.copyFile(copy, '/data/a.txt', '/none/x.txt'))).toBe('not_found');
      expect(await namesOf(storage, '/data/sub')).toEqual(['copy.txt', 'deep.txt']);
    });

    it("copies a directory's files in order where it has a batch copy, telling each one's outcome whatever became of the ones before; none once aborted", async () => {
      const copy = storage.features.batchCopy;
      if (copy === null) return;
      await storage.mkdir('/copy');
      const outcomes = await gatheredCopies(copy.copyFiles(copy, '/data', '/copy', [{ name: 'a.txt', lastModified: when }, { name: 'gone' }, { name: 'a.txt' }], { checksum: 'md5' }));
      expect(outcomes.map((outcome) => ('error' in outcome ? [outcome.side, outcome.error.failure, outcome.error.path] : outcome))).toEqual([
        { bytes: 5, checksums: { source: digest('md5', 'hello'), destination: digest('md5', 'hello') } },
        ['source', 'not_found', '/data/gone'],
        { bytes: 5, checksums: { source: digest('md5', 'hello'), destination: digest('md5', 'hello') } },
      ]);
      expect(await text(storage.read('/copy/a.txt'))).toBe('hello');
      await storage.mkdir('/stopped');
      expect(await gatheredCopies(copy.copyFiles(copy, '/data', '/stopped', [{ name: 'a.txt' }], { checksum: null, signal: AbortSignal.abort() }))).toEqual([]);
      expect(await namesOf(storage, '/stopped')).toEqual([]);
    });
  });
}
