import { BadRequestError, InvalidPathError, resolveStoragePath } from '@xfer/core';
import { createFsFromVolume, Volume } from 'memfs';
import type { FsApi } from './fsApi';
import { FsStorage } from './FsStorage';

/** A memory tree's files as a seed writes them: file paths to UTF-8 content, directory paths (ending in `/`) to null. */
export type MemoryFiles = Record<string, string | null>;

/** The most a seed's memory tree holds. */
export const MAX_SEED_FILES = 10_000;
export const MAX_SEED_BYTES = 64 * 1024 * 1024;

/** A memory tree has no umask: directories and files are made as a usual umask would leave them. */
export const MEMORY_MODES = { dir: 0o755, file: 0o644 };

/** A memfs volume through the filesystem interface a storage uses. */
export function memoryFsApi(volume: InstanceType<typeof Volume>): FsApi {
  const fs = createFsFromVolume(volume);
  const promises = fs.promises as unknown as FsApi;
  return {
    ...promises,
    readdirTypes: (path) => fs.promises.readdir(path, { withFileTypes: true }) as unknown as ReturnType<FsApi['readdirTypes']>,
    // memfs renames a file over a directory, which the system refuses (EISDIR): a write never replaces a directory
    rename: async (from, to) => {
      const [moved, replaced] = await Promise.all([promises.lstat(from), promises.lstat(to).catch(() => null)]);
      if (replaced?.isDirectory() && !moved.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, rename '${from}' -> '${to}'`), { code: 'EISDIR' });
      return promises.rename(from, to);
    },
    constants: fs.constants,
  };
}

/** One endpoint's tree in memory (memfs): its storage, and its files for an export. */
export class MemoryTree {
  private readonly volume = new Volume();
  readonly storage: FsStorage;

  constructor(files: MemoryFiles = {}) {
    this.storage = new FsStorage(memoryFsApi(this.volume), '/', { modes: MEMORY_MODES });
    this.replace(files);
  }

  /** Its files and directories, as a seed writes them (every file's content read as UTF-8). */
  files(): MemoryFiles {
    const json = this.volume.toJSON();
    const files: MemoryFiles = {};
    for (const [path, content] of Object.entries(json)) files[content === null ? `${path}/` : path] = content;
    return files;
  }

  /** Empties the tree and fills it with `files`. */
  replace(files: MemoryFiles): void {
    const json = checkMemoryFiles(files);
    this.volume.reset();
    this.volume.fromJSON(json, '/');
    // memfs makes everything 0666 or 0777; give the modes a umask would
    for (const [path, content] of Object.entries(this.volume.toJSON())) {
      this.volume.chmodSync(path, content === null ? MEMORY_MODES.dir : MEMORY_MODES.file);
      for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1)) this.volume.chmodSync(path.slice(0, at), MEMORY_MODES.dir);
    }
  }
}

/**
 * A seed's memory tree, checked: absolute paths that stay in the tree, no `\r`, `\n` or NUL,
 * content a string (or null for a directory), at most MAX_SEED_FILES entries and MAX_SEED_BYTES.
 */
export function checkMemoryFiles(files: unknown, where = 'storage.files'): Record<string, string | null> {
  if (typeof files !== 'object' || files === null || Array.isArray(files)) throw new BadRequestError(`${where}: an object of paths to UTF-8 content (or null for a directory)`);
  const entries = Object.entries(files as Record<string, unknown>);
  if (entries.length > MAX_SEED_FILES) throw new BadRequestError(`${where}: at most ${MAX_SEED_FILES} entries`);
  let bytes = 0;
  const json: Record<string, string | null> = {};
  for (const [path, content] of entries) {
    const resolved = path.startsWith('/') ? resolvedIn(where, path) : '/';
    if (resolved === '/') throw new BadRequestError(`${where}: '${path.slice(0, 200)}' is not an absolute path of a file or directory`);
    if (content !== null && typeof content !== 'string') throw new BadRequestError(`${where}['${path.slice(0, 200)}']: UTF-8 content, or null for a directory`);
    if (content !== null && path.endsWith('/')) throw new BadRequestError(`${where}['${path.slice(0, 200)}']: a path ending in / is a directory (null)`);
    bytes += content === null ? 0 : Buffer.byteLength(content);
    if (bytes > MAX_SEED_BYTES) throw new BadRequestError(`${where}: at most ${MAX_SEED_BYTES} bytes of content`);
    json[resolved] = content;
  }
  return json;
}

function resolvedIn(where: string, path: string): string {
  try {
    return resolveStoragePath(path, '/');
  } catch (error) {
    throw error instanceof InvalidPathError ? new InvalidPathError(`${where}: ${error.message}`) : error;
  }
}
