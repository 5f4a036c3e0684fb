import { constants } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ChecksumAlgorithm, StorageFailure } from '@xfer/core';
import type { FsStats } from './fsApi';

/** A directory's files to copy on the thread: both directories as real paths already checked inside their roots. */
export interface CopyJob {
  source: { root: string; dir: string };
  destination: { root: string; dir: string };
  files: { name: string; mtimeMs: number | null }[];
  checksum: ChecksumAlgorithm | null;
  /** A file with no time of its own here (mtimeMs null) gets its source's, in whole seconds. */
  sourceTimes: boolean;
  /** The job's bytes: no file is begun past them (the first always is); the answer stops before it. */
  maxBytes: number;
  /** The storage failure each errno code means (the thread tells failures as the storage's). */
  failures: Record<string, StorageFailure>;
  /** The temporary name's prefix (a write lands under it, then is renamed) and the new files' mode. */
  partPrefix: string;
  mode: number;
}

/** A failure as the thread reports it: the storage failure (null: an errno code no failure means), the errno code behind it (null: the thread's own finding), and where. */
export interface CopyFailure {
  failure: StorageFailure | null;
  code: string | null;
  message: string;
  side: 'source' | 'destination';
}

export type FileCopied = { bytes: number; checksums: { source: string; destination: string } | null } | { failed: CopyFailure };

/**
 * The threads' answer: each file's outcome in order, every file's whatever became of the ones
 * before (what a failure means is the copy's caller's to decide), up to where an abort or the
 * job's bytes stopped it (`stopped`: fewer than asked); or a failure of a directory.
 */
export type CopyAnswer = { files: FileCopied[]; stopped: boolean } | { failed: CopyFailure };

/** Names of a directory to lstat on a thread: `base` a path of the directory's checked descriptor (/proc/self/fd/<n>). */
export interface LstatJob {
  base: string;
  names: readonly string[];
}

/** A name's own stats, null when it is gone, or the failure of its lstat. */
export type LstatOutcome = FsStats | null | { code: string; message: string };

/** Stats as a thread read them on the host's filesystem: what a listing needs, without Node's Stats. */
class HostStats implements FsStats {
  constructor(
    readonly mode: number,
    readonly size: number,
    readonly mtimeMs: number,
    readonly uid: number,
    readonly gid: number,
  ) {}

  isDirectory(): boolean {
    return (this.mode & constants.S_IFMT) === constants.S_IFDIR;
  }

  isSymbolicLink(): boolean {
    return (this.mode & constants.S_IFMT) === constants.S_IFLNK;
  }

  isFile(): boolean {
    return (this.mode & constants.S_IFMT) === constants.S_IFREG;
  }
}

/**
 * A copy job as it crosses to a thread: the names and times side by side (NaN: no time), as a list
 * of objects costs ten times as much to clone (0.6-0.9 ms a thousand files, each way). Every
 * thread gets the whole job and takes its files one at a time through memory they share: `control`
 * holds [stop (1: an abort), the next file to take, the first file not to take], `taken` the bytes
 * of the files begun.
 */
type CopyJobWire = Omit<CopyJob, 'files'> & { names: string[]; mtimesMs: Float64Array | null; control: Int32Array; taken: BigInt64Array };
/** The slots of a job's `control` this side writes (the next file to take, slot 1, is the threads' alone). */
const STOP = 0;
const LIMIT = 2;
/**
 * A thread's answer as it crosses back: the files it copied (by index), each one's bytes (-1 where
 * it failed), the digests two a file, the failures by index.
 */
type CopyAnswerWire = { indices: Int32Array; bytes: Float64Array; checksums: string[] | null; failures: [number, CopyFailure][] } | { failed: CopyFailure };
/** Lstat answers as they cross back: [mode, size, mtimeMs, uid, gid] a name (mode NaN: gone), the failures by index. */
type LstatWire = { stats: Float64Array; failures: [number, { code: string; message: string }][] };
/** The numbers of one name's stats in LstatWire. */
const STAT_FIELDS = 5;

type Request = { id: number; job: CopyJobWire } | { id: number; lstat: LstatJob };
type Reply = { id: number; answer: unknown } | { id: number; error: string };

/**
 * The thread's side, whole in one function (its source is what the thread runs, so it imports
 * nothing and declares no class): each job's files copied with synchronous calls, through the two
 * directories' own descriptors, so that a name can never lead out (one component, never a link:
 * O_NOFOLLOW), a failure thrown as a CopyFailure object; and a listing's names lstat'ed through
 * the descriptor the event loop opened and checked.
 */
function serveCopies(): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { parentPort } = require('node:worker_threads') as typeof import('node:worker_threads');
  const fs = require('node:fs') as typeof import('node:fs');
  const { createHash, randomBytes } = require('node:crypto') as typeof import('node:crypto');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const K = fs.constants;
  const CHUNK = 1 << 20;
  const buffer = Buffer.allocUnsafe(CHUNK);
  const within = (real: string, root: string) => root === '/' || real === root || real.startsWith(`${root}/`);
  /** The storage failures of errno codes, as the job in hand gives them. */
  let failures: Record<string, StorageFailure> = {};
  const isFailure = (error: unknown): error is CopyFailure => typeof error === 'object' && error !== null && 'side' in error && 'failure' in error;
  const failure = (error: unknown, side: CopyFailure['side']): CopyFailure => {
    if (isFailure(error)) return error;
    const code = (error as NodeJS.ErrnoException).code;
    if (!code) throw error;
    return { failure: failures[code] ?? null, code, message: (error as Error).message, side };
  };
  /** A failure the thread finds itself (no errno code behind it). */
  const found = (failure: StorageFailure, message: string, side: CopyFailure['side']): CopyFailure => ({ failure, code: null, message, side });
  const at = <T>(side: CopyFailure['side'], call: () => T): T => {
    try {
      return call();
    } catch (error) {
      throw failure(error, side);
    }
  };
  /** The directory's descriptor, checked to be where it was resolved (inside the root): a link swapped in since is refused. */
  const openDirectory = (side: CopyFailure['side'], { root, dir }: { root: string; dir: string }): number => {
    let fd: number;
    try {
      fd = fs.openSync(dir, K.O_RDONLY | K.O_DIRECTORY | K.O_NOFOLLOW);
    } catch (error) {
      // resolved a moment ago: a link stands there now (Linux says ELOOP, or ENOTDIR with O_DIRECTORY)
      const code = (error as NodeJS.ErrnoException).code;
      const swapped = code === 'ELOOP' || (code === 'ENOTDIR' && fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink() !== false);
      throw swapped ? found('denied', 'it changed into a link while in use', side) : failure(error, side);
    }
    if (!within(fs.readlinkSync(`/proc/self/fd/${fd}`), root)) {
      fs.closeSync(fd);
      throw found('denied', 'it leads outside the storage root', side);
    }
    return fd;
  };
  /** The file's copy, or null when it would take the job past its bytes (then nothing of it is made). */
  const copyOne = (source: number, destination: number, job: CopyJobWire, index: number, partName: string): { bytes: number; checksums: { source: string; destination: string } | null } | null => {
    const name = job.names[index]!;
    if (name === '' || name === '.' || name === '..' || name.includes('/')) throw found('denied', `'${name}' is not a name`, 'source');
    const directory = `/proc/self/fd/${destination}/`;
    // never waiting at the open of a FIFO (a writer may never come; the thread would be lost)
    const input = at('source', () => fs.openSync(`/proc/self/fd/${source}/${name}`, K.O_RDONLY | K.O_NOFOLLOW | K.O_NONBLOCK));
    const part = `${directory}${partName}-${name}`.slice(0, directory.length + 255);
    let output = -1;
    /** Whether the temporary file is this copy's (made here): removed unless placed. */
    let made = false;
    let placed = false;
    try {
      const stats = at('source', () => fs.fstatSync(input));
      if (stats.isDirectory()) throw found('is_directory', `'${name}' is a directory`, 'source');
      if (!stats.isFile()) throw found('special_file', 'not a regular file (a FIFO, a socket or a device)', 'source');
      // the job's first file is always copied: a job makes progress
      const before = Number(Atomics.add(job.taken, 0, BigInt(stats.size)));
      if (index > 0 && before + stats.size > job.maxBytes) return null;
      let mtimeMs = job.mtimesMs === null ? NaN : job.mtimesMs[index]!;
      if (Number.isNaN(mtimeMs) && job.sourceTimes) mtimeMs = Math.floor(stats.mtimeMs / 1000) * 1000;
      let bytes = 0;
      const sourceHash = job.checksum === null ? null : createHash(job.checksum);
      if (sourceHash === null && stats.size > CHUNK) {
        // a large file in the kernel (copy_file_range), into a file the copy makes itself
        // (O_EXCL, in the checked directory): copying into one made before, libuv truncates it
        // first, and ext4 then writes the whole file back when it is closed (0.25 s a GiB)
        try {
          fs.copyFileSync(`/proc/self/fd/${input}`, part, K.COPYFILE_EXCL);
          made = true;
        } catch (error) {
          made = (error as NodeJS.ErrnoException).code !== 'EEXIST';
          throw failure(error, 'destination');
        }
        output = at('destination', () => fs.openSync(part, K.O_RDWR | K.O_NOFOLLOW));
        // the mode a new file of this storage has (the copy took the source's)
        at('destination', () => fs.fchmodSync(output, job.mode & ~process.umask()));
        bytes = at('destination', () => fs.fstatSync(output)).size;
      } else {
        output = at('destination', () => fs.openSync(part, K.O_RDWR | K.O_CREAT | K.O_EXCL | K.O_NOFOLLOW, job.mode));
        made = true;
        // a regular file as its size was when opened (one of a chunk: one read, not a second for its end)
        const until = stats.size;
        while (bytes < until) {
          const read = at('source', () => fs.readSync(input, buffer, 0, CHUNK, null));
          if (read === 0) break;
          sourceHash?.update(buffer.subarray(0, read));
          for (let written = 0; written < read; ) written += at('destination', () => fs.writeSync(output, buffer, written, read - written, bytes + written));
          bytes += read;
        }
      }
      let checksums: { source: string; destination: string } | null = null;
      if (sourceHash !== null && job.checksum !== null) {
        // the copy as written, read back
        const writtenHash = createHash(job.checksum);
        for (let position = 0; ; ) {
          const read = at('destination', () => fs.readSync(output, buffer, 0, CHUNK, position));
          if (read === 0) break;
          writtenHash.update(buffer.subarray(0, read));
          position += read;
        }
        checksums = { source: sourceHash.digest('hex'), destination: writtenHash.digest('hex') };
      }
      // a copy whose digest differs never takes its name: the file there stays as it was
      if (checksums !== null && checksums.source !== checksums.destination) return { bytes, checksums };
      if (!Number.isNaN(mtimeMs)) at('destination', () => fs.futimesSync(output, mtimeMs / 1000, mtimeMs / 1000));
      at('destination', () => fs.renameSync(part, `${directory}${name}`));
      placed = true;
      return { bytes, checksums };
    } finally {
      if (output !== -1) fs.closeSync(output);
      // what this copy made and never placed goes
      if (made && !placed) fs.rmSync(part, { force: true });
      fs.closeSync(input);
    }
  };
  /** No file from `limit` on is taken (by any thread of the job) from now. */
  const takeNoneFrom = (control: Int32Array, limit: number) => {
    // LIMIT, STOP and NEXT are 2, 0 and 1 (the thread's source cannot import them)
    for (let now = Atomics.load(control, 2); limit < now; now = Atomics.load(control, 2)) if (Atomics.compareExchange(control, 2, now, limit) === now) return;
  };
  const copy = (job: CopyJobWire): CopyAnswerWire => {
    let source = -1;
    let destination = -1;
    failures = job.failures;
    try {
      source = openDirectory('source', job.source);
      destination = openDirectory('destination', job.destination);
      const indices: number[] = [];
      const bytes: number[] = [];
      const checksums: string[] | null = job.checksum === null ? null : [];
      const failed: [number, CopyFailure][] = [];
      // temporary names unique to this thread's part of the job: a random part once, then the file's index
      const unique = `${job.partPrefix}${randomBytes(6).toString('hex')}`;
      while (Atomics.load(job.control, 0) !== 1) {
        const i = Atomics.add(job.control, 1, 1);
        if (i >= Atomics.load(job.control, 2)) break;
        try {
          const copied = copyOne(source, destination, job, i, `${unique}${i.toString(36)}`);
          if (copied === null) {
            takeNoneFrom(job.control, i);
            break;
          }
          indices.push(i);
          bytes.push(copied.bytes);
          if (checksums !== null) checksums.push(copied.checksums!.source, copied.checksums!.destination);
        } catch (error) {
          // told, and the next file taken: what a failure means is the caller's to decide
          indices.push(i);
          bytes.push(-1);
          if (checksums !== null) checksums.push('', '');
          failed.push([i, failure(error, 'source')]);
        }
      }
      return { indices: Int32Array.from(indices), bytes: Float64Array.from(bytes), checksums, failures: failed };
    } catch (error) {
      return { failed: failure(error, 'source') };
    } finally {
      if (source !== -1) fs.closeSync(source);
      if (destination !== -1) fs.closeSync(destination);
    }
  };
  const lstats = ({ base, names }: LstatJob): LstatWire => {
    // STAT_FIELDS, which the thread's source cannot import
    const stats = new Float64Array(names.length * 5).fill(NaN);
    const failures: LstatWire['failures'] = [];
    for (const [i, name] of names.entries()) {
      try {
        const own = fs.lstatSync(`${base}/${name}`, { throwIfNoEntry: false });
        if (own !== undefined) stats.set([own.mode, own.size, own.mtimeMs, own.uid, own.gid], i * 5);
      } catch (error) {
        failures.push([i, { code: (error as NodeJS.ErrnoException).code ?? 'EIO', message: (error as Error).message }]);
      }
    }
    return { stats, failures };
  };
  parentPort!.on('message', (request: Request) => {
    const { id } = request;
    try {
      parentPort!.postMessage({ id, answer: 'job' in request ? copy(request.job) : lstats(request.lstat) } satisfies Reply);
    } catch (error) {
      parentPort!.postMessage({ id, error: (error as Error).message } satisfies Reply);
    }
  });
}

/** One thread running serveCopies, started on first use (and again after it stopped). */
class CopyWorker {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (answer: never) => void; reject: (error: Error) => void }>();
  private lastId = 0;
  private closed = false;

  /** This thread's part of a job: the files it took, by index. */
  copy(job: CopyJobWire): Promise<CopyAnswerWire> {
    return this.ask<CopyAnswerWire>((id) => ({ id, job }));
  }

  async lstat(lstat: LstatJob): Promise<LstatOutcome[]> {
    const { stats, failures } = await this.ask<LstatWire>((id) => ({ id, lstat }));
    const failed = new Map(failures);
    return lstat.names.map((_, i): LstatOutcome => {
      const failure = failed.get(i);
      if (failure) return failure;
      const at = i * STAT_FIELDS;
      return Number.isNaN(stats[at]) ? null : new HostStats(stats[at]!, stats[at + 1]!, stats[at + 2]!, stats[at + 3]!, stats[at + 4]!);
    });
  }

  private ask<T>(request: (id: number) => Request): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the copy thread was closed'));
    const worker = this.started();
    const id = ++this.lastId;
    // a request waiting here keeps the process alive; an idle thread does not
    if (this.pending.size === 0) worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage(request(id));
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // bundled (bin/xfer.js), the function's inner functions are named through esbuild's __name
    const worker = new Worker(`var __name = (named) => named;\n(${serveCopies.toString()})()`, { eval: true });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if ('error' in reply) waiting?.reject(new Error(reply.error));
      else waiting?.resolve(reply.answer as never);
    });
    const fail = (error: Error) => {
      // an error is followed by an exit: once a newer thread took over, the copies waiting are its own
      if (this.worker !== worker && this.worker !== null) return;
      this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the copy thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

/**
 * The threads that copy the files of a directory between two storages of the host's filesystem
 * with synchronous calls: a small file costs a dozen calls, and each through the event loop is a
 * round trip to libuv's pool (10,000 files of 4 KiB: 8.5 s, where cp takes 0.3-2.8 s). A job's
 * files are split in runs, one a thread, copied side by side (a file's creating open and rename
 * hold its directory's lock; its reads, writes and the source's open do not). Started on first
 * use, held by its process's EndpointStorages, which closes them.
 */
export class CopyThreads {
  private readonly threads: CopyWorker[];
  /** A thread of its own for listings' stats: a listing (`ls`) never waits behind a copy of gigabytes. */
  private readonly statThread = new CopyWorker();

  /** `count`: two where the machine has two cores (more only contend for the directory's lock). */
  constructor(count = Math.min(2, availableParallelism())) {
    this.threads = Array.from({ length: Math.max(1, count) }, () => new CopyWorker());
  }

  /**
   * The job's files, taken one at a time by the threads in order (a thread takes the next file
   * once it has copied one), answered as one thread would: every file's outcome in order, up to the
   * file that would take the job past its bytes, or to where an abort of `signal` stopped it.
   * Files after that which another thread copied meanwhile are not answered for: complete at their
   * names, copied again later.
   */
  async copy({ files, ...job }: CopyJob, signal?: AbortSignal): Promise<CopyAnswer> {
    const timed = files.some((file) => file.mtimeMs !== null);
    // what the threads share with each other and with this one (an abort reaches them between two files)
    const control = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
    Atomics.store(control, LIMIT, files.length);
    const wire: CopyJobWire = {
      ...job,
      names: files.map((file) => file.name),
      mtimesMs: timed ? Float64Array.from(files, (file) => file.mtimeMs ?? NaN) : null,
      control,
      taken: new BigInt64Array(new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT)),
    };
    const abort = () => Atomics.store(control, STOP, 1);
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    // every thread ends before the answer, whichever failed
    const settled = await Promise.allSettled(this.threads.slice(0, Math.max(1, Math.min(this.threads.length, files.length))).map((thread) => thread.copy(wire)));
    signal?.removeEventListener('abort', abort);
    const outcomes: (FileCopied | undefined)[] = new Array<FileCopied | undefined>(files.length);
    for (const result of settled) {
      if (result.status === 'rejected') throw result.reason;
      const answer = result.value;
      if ('failed' in answer) return answer;
      const failures = new Map(answer.failures);
      const { checksums } = answer;
      answer.indices.forEach((index, i) => {
        const failed = failures.get(index);
        outcomes[index] = failed ? { failed } : { bytes: answer.bytes[i]!, checksums: checksums === null ? null : { source: checksums[2 * i]!, destination: checksums[2 * i + 1]! } };
      });
    }
    // the threads lowered the limit to a file past the bytes
    const answered: FileCopied[] = [];
    for (const outcome of outcomes.slice(0, Atomics.load(control, LIMIT))) {
      if (outcome === undefined) break;
      answered.push(outcome);
    }
    return { files: answered, stopped: answered.length < files.length };
  }

  /** Each name's own stats (lstat) on the stat thread: a call each, no round trip to libuv's pool. */
  lstat(base: string, names: readonly string[]): Promise<LstatOutcome[]> {
    return this.statThread.lstat({ base, names });
  }

  async close(): Promise<void> {
    await Promise.all([...this.threads, this.statThread].map((thread) => thread.close()));
  }
}
