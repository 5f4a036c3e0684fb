/** The part of a Node-style promises filesystem a storage uses: node:fs/promises, or a memfs tree's. */
export interface FsStats {
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
  size: number | bigint;
  mtimeMs: number | bigint;
  mode: number | bigint;
  uid: number | bigint;
  gid: number | bigint;
}

export interface FsHandle {
  readonly fd: number;
  read(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<{ bytesRead: number }>;
  write(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<unknown>;
  stat(): Promise<FsStats>;
  close(): Promise<void>;
}

export interface FsApi {
  constants: { O_RDONLY: number; O_WRONLY: number; O_CREAT: number; O_EXCL: number; O_NOFOLLOW: number; O_DIRECTORY: number; O_NONBLOCK: number };
  lstat(path: string): Promise<FsStats>;
  stat(path: string): Promise<FsStats>;
  realpath(path: string): Promise<string>;
  readdir(path: string): Promise<string[]>;
  /** The names of a directory with the types its listing gives (Node's Dirent: a stat only where the filesystem lists no type). */
  readdirTypes(path: string): Promise<{ name: string | Buffer; isDirectory(): boolean; isSymbolicLink(): boolean }[]>;
  mkdir(path: string, options?: { mode?: number }): Promise<unknown>;
  rmdir(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  open(path: string, flags: number, mode?: number): Promise<FsHandle>;
  utimes(path: string, atime: Date, mtime: Date): Promise<void>;
  /**
   * The host's filesystem only: a copy in the kernel (copy_file_range where it can) into a new
   * file `to`, made exclusively (never through a link) with `mode` (less the umask); its size.
   */
  copyFile?(from: string, to: string, mode: number): Promise<number>;
}
