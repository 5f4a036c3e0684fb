import { BadRequestError, InvalidPathError, onOneHost, type DirectoryCopyOptions, type DirectoryFile, type Storage } from '@xfer/core';
import { gatheredCopies } from '@xfer/core/testing';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { checkMemoryFiles, EndpointStorages, MAX_SEED_FILES, MemoryTree } from '..';

/** The batch copy of `to` from `from` (both have one). */
/** Every outcome a batch copy tells, gathered in order. */
const batchCopy = (to: Storage, from: Storage, dir: string, target: string, files: readonly DirectoryFile[], options: DirectoryCopyOptions) => gatheredCopies(to.features.batchCopy!.copyFiles(from.features.batchCopy!, dir, target, files, options));

async function names(tree: MemoryTree, path: string): Promise<string[]> {
  const found: string[] = [];
  for await (const batch of tree.storage.names(path)) found.push(...batch);
  return found.sort();
}

describe("the storages of a process's endpoints", () => {
  it('keeps one memory tree per endpoint, empty until filled', async () => {
    const storages = new EndpointStorages();
    const one = storages.storageOf('e1', { type: 'memory' })!;
    expect(storages.storageOf('e1', { type: 'memory' })).toBe(one);
    await one.mkdir('/made');
    expect(await names(storages.treeOf('e1'), '/')).toEqual(['made']);
    expect(await names(storages.treeOf('e2'), '/')).toEqual([]);
  });

  it('gives an endpoint without storage none, or in the stand-in a memory tree of its own', async () => {
    expect(new EndpointStorages().storageOf('e1', null)).toBeNull();
    const standIn = new EndpointStorages('memory');
    await standIn.storageOf('e1', null)!.mkdir('/made');
    expect(standIn.storageOf('e1', { type: 'memory' })).toBe(standIn.storageOf('e1', null));
    expect(standIn.treeOf('e1').files()).toEqual({ '/made/': null });
  });

  it('gives one posix storage per root, over the real directory', async () => {
    const dir = await mkdtemp(`${tmpdir()}/xfer-storages-`);
    try {
      await writeFile(`${dir}/x.txt`, 'x');
      const storages = new EndpointStorages();
      const storage = storages.storageOf('e1', { type: 'posix', root: dir })!;
      expect(storages.storageOf('e2', { type: 'posix', root: dir })).toBe(storage);
      expect((await storage.stat('/x.txt')).size).toBe(1);
      const names = systemNamesOf(await storage.stat('/x.txt'));
      expect(names.every((n) => typeof n === 'string' && n.length > 0)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("copies a directory's files between its posix storages on its copy threads, which closing stops", async () => {
    const dir = await mkdtemp(`${tmpdir()}/xfer-storages-`);
    try {
      await mkdir(`${dir}/one`);
      await mkdir(`${dir}/two`);
      await writeFile(`${dir}/one/x.txt`, 'x');
      const storages = new EndpointStorages();
      const [one, two] = [storages.storageOf('e1', { type: 'posix', root: `${dir}/one` })!, storages.storageOf('e2', { type: 'posix', root: `${dir}/two` })!];
      const options = { checksum: null };
      expect(await batchCopy(two, one, '/', '/', [{ name: 'x.txt' }], options)).toEqual([{ bytes: 1, checksums: null }]);
      expect(await readFile(`${dir}/two/x.txt`, 'utf8')).toBe('x');
      // a storage of another process's storages has another thread: not together
      expect(onOneHost(two.features.batchCopy, new EndpointStorages().storageOf('e3', { type: 'posix', root: `${dir}/one` })!.features.batchCopy)).toBe(false);
      // a thread that stopped (killed, crashed) is started again at the next copy
      const [running] = (storages as unknown as { copyThreads: { threads: { worker: { terminate(): Promise<number> } | null }[] } }).copyThreads.threads;
      await running.worker!.terminate();
      await new Promise((resolve) => setImmediate(resolve));
      expect(running.worker).toBeNull();
      expect(await batchCopy(two, one, '/', '/', [{ name: 'x.txt' }], options)).toEqual([{ bytes: 1, checksums: null }]);
      await storages.close();
      await expect(batchCopy(two, one, '/', '/', [{ name: 'x.txt' }], options)).rejects.toThrow('the copy thread was closed');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("fills a tree from a seed's files and gives them back, directories ending in /", async () => {
    const tree = new MemoryTree({ '/a/b.txt': 'hello', '/empty/': null, '/a/c/../d.txt': 'd' });
    expect(tree.files()).toEqual({ '/a/b.txt': 'hello', '/a/d.txt': 'd', '/empty/': null });
    expect(await tree.storage.stat('/a/b.txt')).toMatchObject({ type: 'file', size: 5, permissions: 0o644 });
    expect(await tree.storage.stat('/empty')).toMatchObject({ type: 'dir', permissions: 0o755 });
  });

  it('snapshots the trees and restores them, emptying trees made since', async () => {
    const storages = new EndpointStorages();
    storages.treeOf('e1').replace({ '/seeded.txt': 's' });
    const snapshot = storages.snapshot();
    await storages.storageOf('e1', { type: 'memory' })!.mkdir('/later');
    await storages.storageOf('e2', { type: 'memory' })!.mkdir('/other');
    storages.restore(snapshot);
    expect(storages.treeOf('e1').files()).toEqual({ '/seeded.txt': 's' });
    expect(storages.treeOf('e2').files()).toEqual({});
    storages.restore(new Map([['e3', { '/three.txt': '3' }]]));
    expect(storages.treeOf('e3').files()).toEqual({ '/three.txt': '3' });
  });

  it("refuses a seed's files that are not paths to UTF-8 content, or too many", () => {
    const refusals: [unknown, string][] = [
      [[], 'storage.files: an object of paths to UTF-8 content (or null for a directory)'],
      [null, 'storage.files: an object of paths to UTF-8 content (or null for a directory)'],
      [{ 'relative.txt': 'x' }, "storage.files: 'relative.txt' is not an absolute path of a file or directory"],
      [{ '/': null }, "storage.files: '/' is not an absolute path of a file or directory"],
      [{ '/a.txt': 5 }, "storage.files['/a.txt']: UTF-8 content, or null for a directory"],
      [{ '/dir/': 'x' }, "storage.files['/dir/']: a path ending in / is a directory (null)"],
      [Object.fromEntries(Array.from({ length: MAX_SEED_FILES + 1 }, (_, i) => [`/f${i}`, ''])), `storage.files: at most ${MAX_SEED_FILES} entries`],
      [{ '/a': 'x'.repeat(40 * 1024 * 1024), '/b': 'x'.repeat(30 * 1024 * 1024) }, `storage.files: at most ${64 * 1024 * 1024} bytes of content`],
    ];
    for (const [files, message] of refusals) expect(() => checkMemoryFiles(files)).toThrow(new BadRequestError(message));
    expect(() => checkMemoryFiles({ '/../x': 'x' })).toThrow(InvalidPathError);
    expect(() => checkMemoryFiles({ '/a\nb': 'x' })).toThrow(InvalidPathError);
  });
});

function systemNamesOf(entry: { user: string | null; group: string | null }): (string | null)[] {
  return [entry.user, entry.group];
}
