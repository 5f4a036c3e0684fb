import { constants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import type { FsApi } from './fsApi';
import type { CopyThreads } from './CopyThreads';
import { FsStorage, type AccountNames } from './FsStorage';

const nodeFs: FsApi = {
  constants,
  lstat: (path) => fsp.lstat(path),
  stat: (path) => fsp.stat(path),
  realpath: (path) => fsp.realpath(path),
  readdir: (path) => fsp.readdir(path),
  readdirTypes: (path) => fsp.readdir(path, { withFileTypes: true }),
  mkdir: (path, options) => fsp.mkdir(path, options),
  rmdir: (path) => fsp.rmdir(path),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (path) => fsp.unlink(path),
  open: (path, flags, mode) => fsp.open(path, flags, mode),
  utimes: (path, atime, mtime) => fsp.utimes(path, atime, mtime),
  copyFile: async (from, to, mode) => {
    await fsp.copyFile(from, to, constants.COPYFILE_EXCL);
    // the mode a new file has (the copy took the source's), set through the file itself, never a link
    const made = await fsp.open(to, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      await made.chmod(mode & ~process.umask());
      return (await made.stat()).size;
    } finally {
      await made.close();
    }
  },
};

/** Where a descriptor's file really is, on Linux; null elsewhere (the checks before use still hold). */
async function whereIs(fd: number): Promise<string | null> {
  return fsp.readlink(`/proc/self/fd/${fd}`).catch(() => null);
}

/** User and group names from /etc/passwd and /etc/group, read once per storage; numeric ids where a name is unknown. */
export function systemAccountNames(): AccountNames {
  let tables: Promise<{ users: Map<number, string>; groups: Map<number, string> }> | null = null;
  const read = async (file: string): Promise<Map<number, string>> => {
    const text = await fsp.readFile(file, 'utf8').catch(() => '');
    return new Map(text.split('\n').map((line) => line.split(':')).filter((f) => f.length > 2 && /^\d+$/.test(f[2] ?? '')).map((f) => [Number(f[2]), f[0] ?? '']));
  };
  return async (uid, gid) => {
    tables ??= Promise.all([read('/etc/passwd'), read('/etc/group')]).then(([users, groups]) => ({ users, groups }));
    const { users, groups } = await tables;
    return { user: users.get(uid) ?? String(uid), group: groups.get(gid) ?? String(gid) };
  };
}

/**
 * A directory of the xfer host as an endpoint's storage: real files, permissions and times as the
 * filesystem has them; with copy threads, a directory's files are copied on them.
 */
export function posixStorage(root: string, accountNames: AccountNames = systemAccountNames(), copyThreads?: CopyThreads): FsStorage {
  return new FsStorage(nodeFs, root, { whereIs, accountNames, ...(copyThreads && { copyThreads }) });
}
