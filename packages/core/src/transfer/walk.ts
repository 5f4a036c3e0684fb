import { childPath } from '../storage/paths';
import type { FileEntry, Storage } from '../storage/Storage';
import type { CopyPath, Place } from './CopyPolicy';

/** Names stat'ed in one call where a listing gave names alone and the files are copied one by one. */
const NAMES_STATED_AT_ONCE = 1000;

/** A directory's item as a tree copy walks it: a link is counted and never followed; its entry where its listing stat'ed it. */
export interface TreeItem {
  name: string;
  type: 'file' | 'dir' | 'link';
  entry: FileEntry | null;
}

/** A file of a tree being copied: its entry where its listing stat'ed it (null where the listing gave its name and type alone). */
export interface TreeFile {
  name: string;
  source: Place;
  destination: Place;
  entry: FileEntry | null;
}

/**
 * A directory's items for a tree copy: from its listing alone (names and types) where its files
 * need no stat (no sync level, and a batch copy that takes sizes and times from the files), else
 * with each name's entry (null: gone since listed).
 */
export async function* treeItems(source: Place, path: CopyPath, withEntries: boolean): AsyncIterable<(TreeItem | null)[]> {
  if (!withEntries && path.typedNames !== null) {
    for await (const names of path.typedNames(source.path)) yield names.map((listed) => ({ ...listed, entry: null }));
    return;
  }
  for await (const entries of entriesReadAhead(source.storage, source.path)) {
    yield entries.map((entry) => (entry === null ? null : { name: entry.name, type: entry.link !== null || entry.type === 'invalid_symlink' ? 'link' : entry.type === 'dir' ? 'dir' : 'file', entry }));
  }
}

/** Files with their entries, stat'ed where the listing gave none (one gone since is left out): a copy one by one needs them. */
export async function withEntries(source: Place, files: readonly TreeFile[]): Promise<(TreeFile & { entry: FileEntry })[]> {
  const unknown = files.filter((file) => file.entry === null);
  const found = new Map<string, FileEntry | null>();
  for (let at = 0; at < unknown.length; at += NAMES_STATED_AT_ONCE) {
    const names = unknown.slice(at, at + NAMES_STATED_AT_ONCE).map((file) => file.name);
    (await source.storage.entries(source.path, names)).forEach((entry, i) => found.set(names[i]!, entry));
  }
  return files.flatMap((file) => {
    const entry = file.entry ?? found.get(file.name) ?? null;
    return entry === null ? [] : [{ ...file, entry }];
  });
}

/**
 * A directory's entries in batches of its names, the next batch's read while the caller copies the
 * one before (reading a thousand entries is a thousand stats).
 */
async function* entriesReadAhead(storage: Storage, path: string): AsyncIterable<(FileEntry | null)[]> {
  const names = storage.names(path)[Symbol.asyncIterator]();
  const read = async (): Promise<(FileEntry | null)[] | null> => {
    const batch = await names.next();
    return batch.done === true ? null : storage.entries(path, batch.value);
  };
  let next = read();
  try {
    for (;;) {
      const entries = await next;
      if (entries === null) return;
      next = read();
      yield entries;
    }
  } finally {
    // a caller that stopped early (a failure) leaves a read in flight: it ends before the listing closes
    await next.catch(() => undefined);
    await names.return?.();
  }
}

/** Removes a file, a link, or a directory with everything in it (links removed, never followed), `recheck` before each. */
export async function removeTree(storage: Storage, path: string, recheck: () => Promise<void>): Promise<{ files: number; directories: number }> {
  await recheck();
  const entry = await storage.stat(path);
  const removed = { files: 0, directories: 0 };
  if (entry.type === 'dir' && entry.link === null) {
    for (;;) {
      let names: readonly string[] = [];
      for await (const batch of storage.names(path)) {
        names = batch;
        if (batch.length > 0) break;
      }
      if (names.length === 0) break;
      for (const name of names) {
        const inner = await removeTree(storage, childPath(path, name), recheck);
        removed.files += inner.files;
        removed.directories += inner.directories;
      }
    }
    removed.directories += 1;
  } else removed.files += 1;
  await storage.remove(path);
  return removed;
}
