import { InvalidPathError } from '../shared/errors';

/** The longest path a file operation takes. */
export const MAX_PATH_LENGTH = 4096;

/**
 * A path as a client sends it (absolute, `/~/` for the caller's home), as the path within the
 * storage it names: `.` and doubled slashes dropped, `..` resolved, never above the root. A new line,
 * a carriage return or NUL in it, a relative path, or one that climbs out of the root: InvalidPath.
 * Percent signs are names like any other: the path arrives decoded once and is never decoded again.
 */
export function resolveStoragePath(raw: string, home: string): string {
  if (/[\r\n\0]/.test(raw)) throw new InvalidPathError(`Invalid path: a path may not hold a new line, a carriage return or NUL`);
  if (raw.length > MAX_PATH_LENGTH) throw new InvalidPathError(`Invalid path: at most ${MAX_PATH_LENGTH} characters`);
  let path = raw;
  if (path === '~' || path.startsWith('~/')) path = `/${path}`;
  if (path === '/~' || path.startsWith('/~/')) path = `${home.replace(/\/+$/, '')}/${path.slice(2)}`;
  if (!path.startsWith('/')) throw new InvalidPathError(`Invalid path '${raw.slice(0, 200)}': an absolute path (/...) or one in your home (/~/...)`);
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) throw new InvalidPathError(`Invalid path '${raw.slice(0, 200)}': it climbs out of the endpoint's root`);
      segments.pop();
    } else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/** `child` within `parent` (both resolved), as one path. */
export function joinStoragePath(parent: string, child: string): string {
  return parent === '/' ? child : child === '/' ? parent : `${parent}${child}`;
}

/** Whether `path` is `prefix` or lies beneath it (both resolved). */
export function isWithin(path: string, prefix: string): boolean {
  return prefix === '/' || path === prefix || path.startsWith(`${prefix}/`);
}

/** The last segment of a resolved path ('/' for the root). */
export function baseName(path: string): string {
  return path === '/' ? '/' : path.slice(path.lastIndexOf('/') + 1);
}

/** The parent of a resolved path (the root's is the root). */
export function parentOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at <= 0 ? '/' : path.slice(0, at);
}

/**
 * A name that a storage listed, or that another side sent, which is no name of one entry of its
 * directory (empty, `.`, `..`, or holding `/` or NUL): joined to a path it would reach elsewhere
 * (a zip-slip). Never joined: the copy or the delete that met it fails.
 */
export class UnsafeNameError extends Error {
  constructor(
    readonly dir: string,
    readonly entry: string,
  ) {
    super(`${dir}: the storage named an entry ${JSON.stringify(entry.slice(0, 100))}, which is no file's name; nothing was written under it`);
    this.name = 'UnsafeNameError';
  }
}

/** Whether `name` names one entry of a directory: not empty, `.` or `..`, and without `/` or NUL. */
export function isEntryName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0');
}

/** The path of the entry `name` (as a storage listed it) in the directory `dir`: UnsafeNameError where it is no name. */
export function childPath(dir: string, name: string): string {
  if (typeof name !== 'string' || !isEntryName(name)) throw new UnsafeNameError(dir, String(name));
  return joinStoragePath(dir, `/${name}`);
}
