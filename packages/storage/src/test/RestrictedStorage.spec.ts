import { StorageError, type PathRestrictions } from '@xfer/core';
import { MemoryTree, RestrictedStorage } from '..';

const RESTRICTIONS: PathRestrictions = { DATA_TYPE: 'path_restrictions#1.0.0', read_write: ['~/work', '/shared/$USER'], read: ['~', '/shared'], none: ['~/private'] };

/** Every name a listing gives, sorted. */
async function listed(batches: AsyncIterable<readonly string[]>): Promise<string[]> {
  const names: string[] = [];
  for await (const batch of batches) names.push(...batch);
  return names.sort();
}

async function failureOf(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
  } catch (error) {
    if (error instanceof StorageError) return `${error.failure} ${error.path}`;
    throw error;
  }
  return 'done';
}

async function* bytes(text: string): AsyncIterable<Uint8Array> {
  yield Buffer.from(text);
}

describe("a storage held to a gateway's path restrictions, for one account", () => {
  let tree: MemoryTree;
  let storage: RestrictedStorage;

  beforeEach(() => {
    tree = new MemoryTree({ '/home/ann/notes.txt': 'n', '/home/ann/work/a.txt': 'a', '/home/ann/private/p.txt': 'p', '/shared/ann/s.txt': 's', '/shared/ben/b.txt': 'b', '/other/o.txt': 'o' });
    storage = new RestrictedStorage(tree.storage, RESTRICTIONS, { home: '/home/ann', user: 'ann' });
  });

  it('hides what none of its patterns opens, or a none pattern closes, from listings and from every call', async () => {
    expect(await listed(storage.names('/home/ann'))).toEqual(['notes.txt', 'work']);
    expect(await storage.entries('/home/ann', ['notes.txt', 'private'])).toEqual([expect.objectContaining({ name: 'notes.txt' }), null]);
    expect(await failureOf(() => storage.stat('/home/ann/private/p.txt'))).toBe('not_found /home/ann/private/p.txt');
    expect(await failureOf(() => listed(storage.names('/other')))).toBe('not_found /other');
    expect(await failureOf(() => storage.checksum('/other/o.txt', 'md5'))).toBe('not_found /other/o.txt');
  });

  it('reads where a read pattern is the longest, and refuses every change there', async () => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of storage.read('/home/ann/notes.txt')) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe('n');
    expect(await failureOf(() => storage.mkdir('/home/ann/new'))).toBe('denied /home/ann/new');
    expect(await failureOf(() => storage.write('/shared/ben/b.txt', bytes('x')))).toBe('denied /shared/ben/b.txt');
    expect(await failureOf(() => storage.remove('/home/ann/notes.txt'))).toBe('denied /home/ann/notes.txt');
    expect(await failureOf(() => storage.rename('/home/ann/work/a.txt', '/home/ann/a.txt'))).toBe('denied /home/ann/a.txt');
    expect(tree.files()['/home/ann/notes.txt']).toBe('n');
  });

  it('writes where a read_write pattern is the longest ($USER and ~ as the account)', async () => {
    expect(await storage.write('/shared/ann/new.txt', bytes('new'))).toBe(3);
    await storage.mkdir('/home/ann/work/sub');
    await storage.rename('/home/ann/work/a.txt', '/home/ann/work/sub/a.txt');
    expect(tree.files()).toMatchObject({ '/shared/ann/new.txt': 'new', '/home/ann/work/sub/a.txt': 'a' });
  });

  it("names a share's paths from its base (the patterns name the gateway's), and copies only through itself", async () => {
    const share = new RestrictedStorage(tree.storage.within('/home/ann'), RESTRICTIONS, { home: '/home/ann', user: 'ann' }, '/home/ann');
    expect(await listed(share.names('/'))).toEqual(['notes.txt', 'work']);
    expect(await failureOf(() => share.mkdir('/new'))).toBe('denied /new');
    expect(share.features.batchCopy).toBeNull();
    expect(share.features.kernelCopy).toBeNull();
  });
});
