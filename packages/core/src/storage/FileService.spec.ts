import type { Principal } from '../auth/Principal';
import { createCoreServices } from '../services';
import {
  BadRequestError,
  EndpointNotConnectedError,
  EndpointNotFoundError,
  EndpointPermissionDeniedError,
  FileNotFoundError,
  InvalidPathError,
  MkdirExistsError,
  OperationPausedError,
  PermissionDeniedError,
} from '../shared/errors';
import { FixedClock, SequentialIdGenerator } from '../testing/fakes';
import { InMemoryUnitOfWork } from '../testing/InMemoryUnitOfWork';
import { TestWorld } from '../testing/TestWorld';
import { rootedAt } from '../testing/rootedAt';
import { MAX_LISTING, type Listing } from './FileService';
import type { Listed, ListingField, ListingFilter } from './listing';
import { NO_FEATURES, StorageError, type FileEntry, type Storage, type StorageAttachment, type StorageDirectory } from './Storage';

const T0 = new Date('2026-01-01T00:00:00Z');

/** A test double of the port: a tree of entries by path (the adapters have their own contract suite). */
class TreeStorage implements Storage {
  readonly features = NO_FEATURES;
  readonly byPath = new Map<string, FileEntry>();
  failNext: StorageError | Error | null = null;
  /** Names listed but gone by the time they are read. */
  readonly vanished = new Set<string>();

  constructor(tree: Record<string, number | null>) {
    this.put('/', null);
    for (const [path, size] of Object.entries(tree)) this.put(path, size);
  }

  put(path: string, size: number | null, at = T0): void {
    const name = path === '/' ? '/' : path.slice(path.lastIndexOf('/') + 1);
    this.byPath.set(path, { name, type: size === null ? 'dir' : 'file', size: size ?? 4096, lastModified: at, permissions: size === null ? 0o755 : 0o644, user: 'owner', group: 'staff', link: null });
  }

  private fail(): void {
    const failure = this.failNext;
    this.failNext = null;
    if (failure) throw failure;
  }

  async stat(path: string): Promise<FileEntry> {
    this.fail();
    const entry = this.byPath.get(path);
    if (!entry || this.vanished.has(path)) throw new StorageError('not_found', path, 'no such entry');
    return entry;
  }

  /** In batches of two, so that listings see several batches. */
  async *names(path: string): AsyncIterable<string[]> {
    this.fail();
    const entry = this.byPath.get(path);
    if (!entry) throw new StorageError('not_found', path, 'no such directory');
    if (entry.type !== 'dir') throw new StorageError('not_directory', path, 'a file');
    const prefix = path === '/' ? '/' : `${path}/`;
    const names = [...this.byPath.keys()].filter((key) => key !== '/' && key.startsWith(prefix) && !key.slice(prefix.length).includes('/')).map((key) => key.slice(prefix.length));
    for (let at = 0; at < names.length; at += 2) yield names.slice(at, at + 2);
  }

  async entries(dir: string, names: readonly string[]): Promise<(FileEntry | null)[]> {
    this.fail();
    return names.map((name) => {
      const path = dir === '/' ? `/${name}` : `${dir}/${name}`;
      const entry = this.byPath.get(path);
      return entry && !this.vanished.has(path) ? { ...entry, name } : null;
    });
  }

  async mkdir(path: string): Promise<void> {
    this.fail();
    if (this.byPath.has(path)) throw new StorageError('exists', path, 'exists');
    if (!this.byPath.has(path.slice(0, path.lastIndexOf('/')) || '/')) throw new StorageError('not_found', path, 'no parent');
    this.put(path, null);
  }

  async rename(from: string, to: string): Promise<void> {
    this.fail();
    if (!this.byPath.has(from)) throw new StorageError('not_found', from, 'no source');
    for (const [key, entry] of [...this.byPath]) {
      if (key === from || key.startsWith(`${from}/`)) {
        this.byPath.delete(key);
        const moved = `${to}${key.slice(from.length)}`;
        this.byPath.set(moved, { ...entry, name: moved.slice(moved.lastIndexOf('/') + 1) });
      }
    }
  }

  read(): AsyncIterable<Uint8Array> {
    throw new Error('not used by file operations');
  }
  write(): Promise<number> {
    throw new Error('not used by file operations');
  }
  remove(): Promise<void> {
    throw new Error('not used by file operations');
  }
  checksum(): Promise<string> {
    throw new Error('not used by file operations');
  }
}

describe('files on endpoints (ls, stat, mkdir, rename)', () => {
  let world: TestWorld;
  let storage: TreeStorage;
  let asked: { endpointId: string; attachment: StorageAttachment | null }[];
  let alice: Principal;
  let bob: Principal;
  let carol: Principal;
  let host: string;
  const files = () => world.services.files;
  const names = (listing: Listing) => listing.entries.map((e) => e.name);

  beforeEach(async () => {
    storage = new TreeStorage({
      '/data': null,
      '/data/b.txt': 20,
      '/data/a.png': 300,
      '/data/.hidden': 1,
      '/data/sub': null,
      '/data/sub/deep.txt': 5,
      '/home': null,
      '/home/alice': null,
      '/home/alice/notes.md': 7,
      '/srv': null,
    });
    asked = [];
    const storages: StorageDirectory = {
      storageOf: (endpointId, attachment, base = '/') => {
        asked.push({ endpointId, attachment });
        return attachment ? rootedAt(storage, base) : null;
      },
    };
    world = new TestWorld(new InMemoryUnitOfWork(), { storages });
    [alice, bob, carol] = await world.principals('alice@example.org', 'bob@example.org', 'carol@example.org');
    await world.subscriptionFor('alice@example.org');
    host = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Host', subscription_id: 'DEFAULT', public: true })).id;
    await world.services.admin.endpoints.setStorage(host, { type: 'posix', root: '/srv/host' });
  });

  describe('ls', () => {
    it("lists a directory by name, with the hosted paging and the attachment of the endpoint's storage", async () => {
      const listing = await files().ls(alice, host, '/data');
      expect(listing).toMatchObject({ path: '/data/', absolutePath: null, total: 4, offset: 0, limit: MAX_LISTING });
      expect(names(listing)).toEqual(['.hidden', 'a.png', 'b.txt', 'sub']);
      expect(listing.entries[1]).toEqual({ name: 'a.png', type: 'file', size: 300, lastModified: T0, permissions: 0o644, user: 'owner', group: 'staff', link: null });
      expect(asked).toEqual([{ endpointId: host, attachment: { type: 'posix', root: '/srv/host' } }]);
      expect((await files().ls(alice, host, '/')).path).toBe('/');
    });

    it('pages through what the filter keeps, and refuses a limit or an offset out of range', async () => {
      const page = await files().ls(alice, host, '/data', { limit: 2, offset: 1 });
      expect([names(page), page.total, page.limit, page.offset]).toEqual([['a.png', 'b.txt'], 4, 2, 1]);
      expect(names(await files().ls(alice, host, '/data', { offset: 4 }))).toEqual([]);
      expect(names(await files().ls(alice, host, '/data', { limit: MAX_LISTING }))).toHaveLength(4);
      for (const bad of [{ limit: 0 }, { limit: MAX_LISTING + 1 }, { limit: 1.5 }]) {
        await expect(files().ls(alice, host, '/data', bad)).rejects.toThrow(new BadRequestError('Invalid limit: a whole number from 1 to 100000'));
      }
      for (const bad of [{ offset: -1 }, { offset: 0.5 }]) await expect(files().ls(alice, host, '/data', bad)).rejects.toThrow(new BadRequestError('Invalid offset: a whole number from 0'));
    });

    it('hides names that begin with a dot when asked', async () => {
      expect(names(await files().ls(alice, host, '/data', { showHidden: false }))).toEqual(['a.png', 'b.txt', 'sub']);
      expect(names(await files().ls(alice, host, '/data', { showHidden: true }))).toContain('.hidden');
    });

    it('orders by any field of the file document, then by name', async () => {
      storage.put('/data/c.txt', 20, new Date('2025-06-01T00:00:00Z'));
      const by = (...fields: [ListingField, 'ASC' | 'DESC'][]) => fields.map(([field, direction]) => ({ field, descending: direction === 'DESC' }));
      expect(names(await files().ls(alice, host, '/data', { order: by(['size', 'DESC']) }))).toEqual(['sub', 'a.png', 'b.txt', 'c.txt', '.hidden']);
      expect(names(await files().ls(alice, host, '/data', { order: by(['type', 'ASC'], ['name', 'DESC']) }))).toEqual(['sub', 'c.txt', 'b.txt', 'a.png', '.hidden']);
      expect(names(await files().ls(alice, host, '/data', { order: by(['last_modified', 'ASC'], ['size', 'ASC']) }))).toEqual(['c.txt', '.hidden', 'b.txt', 'a.png', 'sub']);
      expect(names(await files().ls(alice, host, '/data', { order: by(['permissions', 'DESC']) }))[0]).toBe('sub');
      expect(names(await files().ls(alice, host, '/data', { order: by(['name', 'DESC']), limit: 2 }))).toEqual(['sub', 'c.txt']);
      expect(names(await files().ls(alice, host, '/data', { order: by(['size', 'DESC']), limit: 2, offset: 1 }))).toEqual(['a.png', 'b.txt']);
      expect(names(await files().ls(alice, host, '/data', { order: [] }))).toHaveLength(5);
    });

    it('keeps what the filter keeps, reading entries only when it looks past names, and counts the kept over every page', async () => {
      const seen: string[] = [];
      const filter = (namesOnly: boolean, keep: (entry: Listed) => boolean): ListingFilter => ({ namesOnly, test: (entry) => (seen.push(entry.size === undefined ? 'name' : 'entry'), keep(entry)) });
      expect(names(await files().ls(alice, host, '/data', { filter: filter(true, (e) => e.name.endsWith('.txt')) }))).toEqual(['b.txt']);
      expect(new Set(seen)).toEqual(new Set(['name']));
      seen.length = 0;
      expect(names(await files().ls(alice, host, '/data', { filter: filter(false, (e) => e.type === 'dir' || (e.size ?? 0) > 100) }))).toEqual(['a.png', 'sub']);
      expect(new Set(seen)).toEqual(new Set(['entry']));
      storage.put('/data/old.txt', 1, new Date('2020-03-04T05:06:07Z'));
      const page = await files().ls(alice, host, '/data', { filter: filter(true, (e) => e.name.endsWith('.txt')), limit: 1, offset: 1 });
      expect([names(page), page.total]).toEqual([['old.txt'], 2]);
    });

    it("resolves /~/ to the caller's home, or to the endpoint's default directory without ~", async () => {
      const home = await files().ls(alice, host, '/~/');
      expect([home.path, home.absolutePath, names(home)]).toEqual(['/home/alice/', '/home/alice/', ['notes.md']]);
      expect((await files().ls(alice, host, undefined)).path).toBe('/home/alice/');
      await world.services.endpoints.updateEndpoint(alice, host, { default_directory: '/data/sub/' });
      expect(names(await files().ls(alice, host, '~'))).toEqual(['deep.txt']);
      await world.services.endpoints.updateEndpoint(alice, host, { default_directory: '/~/elsewhere/' });
      expect((await files().ls(alice, host, '/~/')).path).toBe('/home/alice/');
    });

    it('refuses a file, a missing directory and a path that climbs out of the root', async () => {
      await expect(files().ls(alice, host, '/data/b.txt')).rejects.toThrow(new BadRequestError("Path '/data/b.txt' or its parent is not a directory"));
      await expect(files().ls(alice, host, '/nope')).rejects.toThrow(new FileNotFoundError('/nope'));
      await expect(files().ls(alice, host, '/data/../..')).rejects.toThrow(InvalidPathError);
      await expect(files().ls(alice, host, '/data\n')).rejects.toThrow(InvalidPathError);
    });

    it('leaves out an entry that went away between listing and reading it', async () => {
      storage.vanished.add('/data/b.txt');
      const listing = await files().ls(alice, host, '/data', { order: [{ field: 'size', descending: false }] });
      expect(names(listing)).toEqual(['.hidden', 'a.png', 'sub']);
      expect(names(await files().ls(alice, host, '/data'))).toEqual(['.hidden', 'a.png', 'sub']);
    });
  });

  describe('stat, mkdir and rename', () => {
    it('stats a file or directory under its own name', async () => {
      expect(await files().stat(alice, host, '/data/sub/../a.png')).toMatchObject({ name: 'a.png', type: 'file', size: 300 });
      expect((await files().stat(alice, host, '/')).name).toBe('/');
      await expect(files().stat(alice, host, '/data/zzz')).rejects.toThrow(new FileNotFoundError('/data/zzz'));
      expect(new FileNotFoundError('/x').code).toBe('NotFound');
    });

    it('makes a directory once; the second time is the hosted MkdirFailed.Exists', async () => {
      expect(await files().mkdir(alice, host, '/data/new/')).toBe('/data/new');
      expect((await files().stat(alice, host, '/data/new')).type).toBe('dir');
      const again = files().mkdir(alice, host, '/data/new');
      await expect(again).rejects.toThrow(new MkdirExistsError('/data/new'));
      await expect(again).rejects.toMatchObject({ code: 'ExternalError.MkdirFailed.Exists' });
      await expect(files().mkdir(alice, host, '/')).rejects.toThrow(MkdirExistsError);
      await expect(files().mkdir(alice, host, '/nowhere/new')).rejects.toThrow(new FileNotFoundError('/nowhere/new'));
      expect(await files().mkdir(alice, host, '/~/made')).toBe('/home/alice/made');
    });

    it('renames across folders, never the root nor into itself', async () => {
      await files().rename(alice, host, '/data/b.txt', '/data/sub/b2.txt');
      expect(names(await files().ls(alice, host, '/data/sub'))).toEqual(['b2.txt', 'deep.txt']);
      await files().rename(alice, host, '/data/sub', '/srv/sub');
      expect(names(await files().ls(alice, host, '/srv/sub'))).toEqual(['b2.txt', 'deep.txt']);
      const refusals: [string, string, string][] = [
        ['/', '/x', "Invalid path: the endpoint's root cannot be renamed, nor anything renamed onto it"],
        ['/srv', '/', "Invalid path: the endpoint's root cannot be renamed, nor anything renamed onto it"],
        ['/srv', '/srv/sub/inner', "Invalid new_path '/srv/sub/inner': a directory cannot move into itself"],
        ['/srv', '/srv', "Invalid new_path '/srv': a directory cannot move into itself"],
      ];
      for (const [from, to, message] of refusals) await expect(files().rename(alice, host, from, to)).rejects.toThrow(new BadRequestError(message));
      await expect(files().rename(alice, host, '/srv2', '/srv3')).rejects.toThrow(new FileNotFoundError('/srv2'));
      await expect(files().rename(alice, host, '/srvx', '/srv/x')).rejects.toThrow(FileNotFoundError);
    });

    it("says what the storage refused, in the hosted service's terms", async () => {
      const failures: [StorageError, unknown][] = [
        [new StorageError('denied', '/data', 'outside'), new EndpointPermissionDeniedError("Denied by endpoint: '/data' may not be used: outside")],
        [new StorageError('not_directory', '/data', 'x'), new BadRequestError("Path '/data' or its parent is not a directory")],
        [new StorageError('is_directory', '/data', 'x'), new BadRequestError("Path '/data' is a directory")],
        [new StorageError('exists', '/data', 'x'), new MkdirExistsError('/data')],
      ];
      for (const [failure, expected] of failures) {
        storage.failNext = failure;
        await expect(files().stat(alice, host, '/data')).rejects.toThrow(expected as Error);
      }
      storage.failNext = new Error('disk on fire');
      const fire = files().stat(alice, host, '/data');
      await expect(fire).rejects.toThrow(new Error('disk on fire'));
      await expect(fire).rejects.not.toThrow(EndpointPermissionDeniedError);
      storage.vanished.add('/data/a.png');
      storage.failNext = null;
      const broken = new StorageError('denied', '/data/b.txt', 'outside');
      const entries = storage.entries.bind(storage);
      storage.entries = async (dir, names) => (names.includes('b.txt') ? Promise.reject(broken) : entries(dir, names));
      await expect(files().ls(alice, host, '/data')).rejects.toThrow(EndpointPermissionDeniedError);
    });
  });

  describe('who may do what', () => {
    it("lets a host's administrators read and write; everyone else who may see it is refused EndpointPermissionDenied", async () => {
      await world.services.admin.endpoints.grantRole(host, 'administrator', 'bob@example.org');
      expect(await files().mkdir(bob, host, '/data/by-bob')).toBe('/data/by-bob');
      await world.services.admin.endpoints.grantRole(host, 'activity_monitor', 'carol@example.org');
      await expect(files().ls(carol, host, '/data')).rejects.toThrow(new EndpointPermissionDeniedError(`Denied by endpoint '${host}': you may not read '/data'`));
      await expect(files().mkdir(carol, host, '/data/x')).rejects.toThrow(new EndpointPermissionDeniedError(`Denied by endpoint '${host}': you may not write '/data/x'`));
      const [dave] = await world.principals('dave@example.org');
      await expect(files().stat(dave!, host, '/data')).rejects.toMatchObject({ code: 'EndpointPermissionDenied' });
    });

    it('treats an endpoint one may not see as every other route does', async () => {
      const hidden = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Hidden', subscription_id: 'DEFAULT', public: false })).id;
      await world.services.admin.endpoints.setStorage(hidden, { type: 'memory' });
      const refused = files().ls(bob, hidden, '/');
      await expect(refused).rejects.toThrow(PermissionDeniedError);
      await expect(refused).rejects.not.toThrow(EndpointPermissionDeniedError);
      await expect(refused).rejects.toThrow(`You need the 'administrator' or 'activity_monitor' role on endpoint '${hidden}', an access rule on it, or it must be public`);
      // the deprecated canonical names name no endpoint here, as in every route but GET and DELETE
      await expect(files().ls(alice, `alice#${host}`, '/data')).rejects.toThrow(EndpointNotFoundError);
    });

    describe('on a share', () => {
      let share: string;
      const rule = (input: { principal_type: string; principal: string; path: string; permissions: string; expiration_date?: string }) => world.services.accessRules.add(alice, share, input);

      beforeEach(async () => {
        share = (await world.services.endpoints.createSharedEndpoint(alice, { display_name: 'Share', host_endpoint_id: host, host_path: '/data/' })).id;
      });

      it('has no storage of its own', async () => {
        await expect(world.services.admin.endpoints.setStorage(share, { type: 'memory' })).rejects.toThrow(
          new BadRequestError("Storage is attached to a server or personal endpoint, not to a shared endpoint: a share sees its host's storage from its host_path"),
        );
        for (const root of ['relative/dir', '/tmp/a\nb']) {
          await expect(world.services.admin.endpoints.setStorage(host, { type: 'posix', root })).rejects.toThrow(`Invalid storage root '${root}': an absolute directory of the xfer host`);
        }
      });

      it("sees its host's storage from host_path down", async () => {
        expect(names(await files().ls(alice, share, '/'))).toEqual(['.hidden', 'a.png', 'b.txt', 'sub']);
        expect(names(await files().ls(alice, share, '/~/'))).toEqual(['.hidden', 'a.png', 'b.txt', 'sub']);
        expect(await files().ls(alice, share, '/~/')).toMatchObject({ path: '/', absolutePath: '/' });
        expect(await files().ls(alice, share, '/~/sub')).toMatchObject({ path: '/sub/', absolutePath: '/sub/' });
        expect(await files().mkdir(alice, share, '/sub/new')).toBe('/sub/new');
        expect(storage.byPath.has('/data/sub/new')).toBe(true);
        await files().rename(alice, share, '/sub/new', '/moved');
        expect(storage.byPath.has('/data/moved')).toBe(true);
        expect(asked.at(-1)).toEqual({ endpointId: host, attachment: { type: 'posix', root: '/srv/host' } });
        const inHome = (await world.services.endpoints.createSharedEndpoint(alice, { display_name: 'Home share', host_endpoint_id: host, host_path: '/~/' })).id;
        expect(names(await files().ls(alice, inHome, '/'))).toEqual(['notes.md']);
      });

      it('lets a read rule list under its path only, and a read-write rule write there', async () => {
        await rule({ principal_type: 'identity', principal: bob.primary.id, path: '/sub/', permissions: 'r' });
        expect(names(await files().ls(bob, share, '/sub'))).toEqual(['deep.txt']);
        expect((await files().stat(bob, share, '/sub/deep.txt')).size).toBe(5);
        await expect(files().ls(bob, share, '/')).rejects.toThrow(new EndpointPermissionDeniedError(`Denied by endpoint '${share}': you may not read '/'`));
        await expect(files().ls(bob, share, '/sub2')).rejects.toThrow(EndpointPermissionDeniedError);
        await expect(files().mkdir(bob, share, '/sub/x')).rejects.toThrow(new EndpointPermissionDeniedError(`Denied by endpoint '${share}': you may not write '/sub/x'`));
        await rule({ principal_type: 'identity', principal: bob.primary.id, path: '/sub/rw/', permissions: 'rw' });
        await files().mkdir(alice, share, '/sub/rw');
        expect(await files().mkdir(bob, share, '/sub/rw/x')).toBe('/sub/rw/x');
        await expect(files().rename(bob, share, '/sub/rw/x', '/sub/x')).rejects.toThrow(new EndpointPermissionDeniedError(`Denied by endpoint '${share}': you may not write '/sub/x'`));
        await expect(files().rename(bob, share, '/sub/deep.txt', '/sub/rw/deep.txt')).rejects.toThrow(new EndpointPermissionDeniedError(`Denied by endpoint '${share}': you may not write '/sub/deep.txt'`));
        await expect(files().ls(carol, share, '/sub')).rejects.toThrow(EndpointPermissionDeniedError);
      });

      it('follows rules for groups and for everyone, but not expired rules', async () => {
        const group = await world.services.admin.identities.addGroup('readers');
        await world.services.admin.identities.addGroupMember('readers', 'carol@example.org');
        carol = await world.principal('carol@example.org');
        await rule({ principal_type: 'group', principal: group, path: '/', permissions: 'r' });
        expect(names(await files().ls(carol, share, '/', { showHidden: false }))).toEqual(['a.png', 'b.txt', 'sub']);
        await expect(files().ls(bob, share, '/')).rejects.toThrow(EndpointPermissionDeniedError);
        await rule({ principal_type: 'all_authenticated_users', principal: '', path: '/sub/', permissions: 'rw' });
        expect(await files().mkdir(bob, share, '/sub/everyone')).toBe('/sub/everyone');
        await rule({ principal_type: 'anonymous', principal: '', path: '/', permissions: 'r' });
        expect(names(await files().ls(bob, share, '/', { filter: { namesOnly: false, test: (entry) => entry.type === 'file' } }))).toEqual(['.hidden', 'a.png', 'b.txt']);
        const [erin] = await world.principals('erin@example.org');
        await rule({ principal_type: 'identity', principal: erin!.primary.id, path: '/', permissions: 'rw', expiration_date: new Date(world.clock.now().getTime() + 60_000).toISOString() });
        expect(await files().mkdir(erin!, share, '/by-erin')).toBe('/by-erin');
        world.clock.advance(61);
        await expect(files().mkdir(erin!, share, '/by-erin-2')).rejects.toThrow(EndpointPermissionDeniedError);
      });

      it("lets the share's access managers and administrators do everything", async () => {
        await world.services.admin.endpoints.grantRole(share, 'access_manager', 'bob@example.org');
        expect(await files().mkdir(bob, share, '/by-manager')).toBe('/by-manager');
        await world.services.admin.endpoints.grantRole(share, 'administrator', 'carol@example.org');
        await files().rename(carol, share, '/by-manager', '/by-admin');
        // a share's roles give nothing on its host
        await expect(files().ls(bob, host, '/')).rejects.toThrow(EndpointPermissionDeniedError);
      });
    });
  });

  describe('pause rules and storage', () => {
    const pause = (endpointId: string, flags: Record<string, boolean>, more: { identity_id?: string; start_time?: Date } = {}) =>
      world.services.endpointManager.createPauseRule(alice, { endpoint_id: endpointId, message: 'maintenance', flags: { pause_ls: false, pause_mkdir: false, pause_rename: false, pause_task_delete: false, pause_task_transfer_read: false, pause_task_transfer_write: false, ...flags }, ...more });

    it('refuses the operations a rule in force names, to those it affects', async () => {
      await pause(host, { pause_mkdir: true });
      await expect(files().mkdir(alice, host, '/data/x')).rejects.toThrow(new OperationPausedError(`Paused by endpoint '${host}': maintenance`));
      await expect(files().mkdir(alice, host, '/data/x')).rejects.toMatchObject({ code: 'OperationPaused' });
      expect(names(await files().ls(alice, host, '/srv'))).toEqual([]);
      await pause(host, { pause_ls: true, pause_rename: true }, { identity_id: bob.primary.id });
      await world.services.admin.endpoints.grantRole(host, 'administrator', 'bob@example.org');
      await expect(files().ls(bob, host, '/')).rejects.toThrow(OperationPausedError);
      await expect(files().stat(bob, host, '/data')).rejects.toThrow(OperationPausedError);
      await expect(files().rename(bob, host, '/srv', '/srv2')).rejects.toThrow(OperationPausedError);
      expect(names(await files().ls(alice, host, '/srv'))).toEqual([]);
      await files().rename(alice, host, '/srv', '/srv2');
    });

    it('waits for a rule to start, and pauses a share by its own rules and its host\'s', async () => {
      await pause(host, { pause_ls: true }, { start_time: new Date(world.clock.now().getTime() + 60_000) });
      expect(names(await files().ls(alice, host, '/srv'))).toEqual([]);
      world.clock.advance(60);
      await expect(files().ls(alice, host, '/srv')).rejects.toThrow(OperationPausedError);
      const share = (await world.services.endpoints.createSharedEndpoint(alice, { display_name: 'Share', host_endpoint_id: host, host_path: '/data/' })).id;
      await expect(files().ls(alice, share, '/')).rejects.toThrow(new OperationPausedError(`Paused by endpoint '${host}': maintenance`));
      await pause(share, { pause_mkdir: true });
      await expect(files().mkdir(alice, share, '/x')).rejects.toThrow(new OperationPausedError(`Paused by endpoint '${share}': maintenance`));
    });

    it('answers EndpointNotConnected for an endpoint without storage, a share of one, and a process without storages', async () => {
      const bare = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Bare', subscription_id: 'DEFAULT' })).id;
      await expect(files().ls(alice, bare, '/')).rejects.toThrow(new EndpointNotConnectedError(bare));
      const share = (await world.services.endpoints.createSharedEndpoint(alice, { display_name: 'Share', host_endpoint_id: bare, host_path: '/' })).id;
      await expect(files().mkdir(alice, share, '/x')).rejects.toThrow(new EndpointNotConnectedError(share));
      await world.services.admin.endpoints.setStorage(bare, { type: 'memory' });
      expect(await world.services.admin.endpoints.storageOf(bare)).toEqual({ type: 'memory' });
      expect(names(await files().ls(alice, share, '/'))).toEqual(['data', 'home', 'srv']);
      await world.services.admin.endpoints.setStorage(bare, null);
      await expect(files().ls(alice, bare, '/')).rejects.toThrow(EndpointNotConnectedError);
      expect(await world.services.admin.endpoints.storageOf(bare)).toBeNull();

      const without = createCoreServices(world.uow, new FixedClock(), new SequentialIdGenerator());
      await expect(without.files.ls(alice, host, '/')).rejects.toThrow(new EndpointNotConnectedError(host));
      expect(new EndpointNotConnectedError(host).code).toBe('EndpointNotConnected');
    });
  });
});
