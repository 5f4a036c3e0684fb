import type { Principal } from '../auth/Principal';
import { DomainError } from '../shared/errors';
import type { Clock } from '../shared/ports';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import type { FileService } from '../storage/FileService';
import { isWithin, joinStoragePath } from '../storage/paths';
import { onOneHost, StorageError, type ChecksumAlgorithm, type DirectoryFileCopy, type FileEntry, type Storage, type StorageFailure } from '../storage/Storage';
import { expired, failed, isFinished, ZERO_COUNTERS, type TaskCounters, type TaskFileState, type TaskState, type TaskRepository } from './Task';
import { filterRulesKeeper, type TransferItem, type TransferRequest, type DeleteRequest } from './TaskRequest';

/** A place on an endpoint's storage, as FileService.place gives it. */
interface Place {
  storage: Storage;
  path: string;
  shown: string;
}

/**
 * A failure the task waits out and tries again (the hosted tasks retry until their deadline): its
 * code is the task's nice_status meanwhile and its event's.
 */
class Retry extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The task was canceled (or otherwise finished) by someone else while it ran. */
class Ended extends Error {}

/** A failure no retry can mend (a tree copied into itself): the task ends FAILED with its code. */
class Failed extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The deepest a tree copy goes: a destination inside its source (through a share of the same storage) grows a level each level. */
export const MAX_TREE_DEPTH = 256;

/** The process is stopping: the attempt ends after the file in hand, the task queued for the next start. */
class HandedBack extends Error {}

/** Storage failures as the hosted task events name them. */
const FAILURE_CODES: Record<StorageError['failure'], string> = {
  not_found: 'FILE_NOT_FOUND',
  not_directory: 'NOT_A_DIRECTORY',
  is_directory: 'IS_A_DIRECTORY',
  exists: 'EXISTS',
  denied: 'PERMISSION_DENIED',
  quota: 'QUOTA_EXCEEDED',
  invalid_name: 'INVALID_PATH',
  special_file: 'SPECIAL_FILE',
};

/** The source's failures a task that skips source errors lists and goes on after. */
const SKIPPABLE_SOURCE_FAILURES: readonly StorageFailure[] = ['not_found', 'denied'];

/** A source that is no regular file (a FIFO, a socket, a device) is listed as skipped by every task, as the hosted service skips special files. */
const ALWAYS_SKIPPED: readonly StorageFailure[] = ['special_file'];

/** How often a running item's access is checked again (a revoked access rule, a removed role, a pause rule): it stops a tree within seconds. */
const RECHECK_MS = 250;

/** Progress is written back at least every this many files. */
const SAVE_EVERY = 100;

/**
 * Files, and bytes, of one directory handed to copyFilesFrom at a time, progress saved after
 * each: on a copy thread 1,000 small files take about 0.1-0.3 s, and each batch costs a round trip
 * and two writes; a larger file goes alone, so that a stopping process waits for one file at most.
 */
const COPY_BATCH = { files: 1000, bytes: 256 * 2 ** 20 };

/**
 * Files of one directory copied at a time: a small file costs a dozen filesystem calls, each a
 * round trip to the thread pool, so one at a time leaves the disk idle between them.
 */
const FILES_AT_ONCE = 8;

/** Names stat'ed in one call where a listing gave names alone and the files are copied one by one. */
const NAMES_STATED_AT_ONCE = 1000;

type FileRecord = Omit<TaskFileState, 'seq'>;

/** A file of a tree being copied: its entry where its listing stat'ed it (null where the listing gave its name and type alone). */
interface TreeFile {
  name: string;
  source: Place;
  destination: Place;
  entry: FileEntry | null;
}

/** A directory's item as a tree copy walks it: a link is counted and never followed. */
type TreeItem = { name: string; type: 'file' | 'dir' | 'link'; entry: FileEntry | null };

/**
 * Runs transfer and delete tasks through the storage port, as their owners: expands recursive
 * items (filter rules, links skipped), copies as streams (sync levels 0-3, checksums verified
 * when asked, times preserved when asked, destination extras deleted when asked), deletes, and
 * keeps every counter, event and file list. A failure it may wait out leaves the task ACTIVE with
 * the failure as its nice_status (the caller runs it again later); at the deadline it expires.
 */
export class TaskRunner {
  constructor(
    private readonly uow: RepositoriesOf<'tasks'>,
    private readonly files: FileService,
    private readonly principalOf: (identityId: string) => Promise<Principal>,
    private readonly clock: Clock,
  ) {}

  /**
   * One attempt at a task: its state after (finished, or ACTIVE to be tried again). `stopping`
   * says the process is stopping: the attempt hands the task back (ACTIVE, Queued) after the file
   * in hand, to be taken up again at the next start.
   */
  // Stryker disable next-line ArrowFunction: undefined says "not stopping" as false does
  async run(taskId: string, stopping: () => boolean = () => false): Promise<TaskState | null> {
    const found = await this.uow.repositories.tasks.findById(taskId);
    if (!found || isFinished(found)) return found;
    const now = this.clock.now();
    if (now.getTime() >= found.deadline.getTime()) {
      const ended = expired(found, now);
      if (!(await this.uow.repositories.tasks.saveProgress(ended))) return this.uow.repositories.tasks.findById(taskId);
      await this.event(ended, 'EXPIRED', 'expired', 'the deadline passed before the task finished', false);
      return ended;
    }
    // each attempt counts afresh (a file moved again is counted once)
    const attempt = new Attempt({ store: this.uow.repositories.tasks, files: this.files, clock: this.clock, stopping }, { ...found, nice_status: null, is_paused: false, counters: { ...ZERO_COUNTERS, subtasks_total: found.counters.subtasks_total, subtasks_pending: found.counters.subtasks_total, faults: found.counters.faults } });
    await this.uow.repositories.tasks.clearFiles(taskId);
    await this.event(attempt.task, 'STARTED', 'started', `attempt after ${found.counters.faults} fault(s)`, false);
    try {
      const owner = await this.principalOf(found.owner_id);
      if (found.request.type === 'TRANSFER') await attempt.transfer(owner, found.request);
      else await attempt.delete(owner, found.request);
      const done: TaskState = { ...attempt.task, status: 'SUCCEEDED', nice_status: null, completion_time: this.clock.now(), counters: { ...attempt.task.counters, subtasks_pending: 0 } };
      if (!(await attempt.save(done))) return this.uow.repositories.tasks.findById(taskId);
      await this.event(done, 'SUCCEEDED', 'succeeded', `${done.counters.files_transferred} file(s), ${done.counters.bytes_transferred} bytes`, false);
      return done;
    } catch (error) {
      if (error instanceof Ended) return this.uow.repositories.tasks.findById(taskId);
      if (error instanceof Failed) {
        const ended = failed(attempt.task, this.clock.now(), { code: error.code, description: error.message });
        if (!(await attempt.save(ended))) return this.uow.repositories.tasks.findById(taskId);
        await this.event(ended, 'FAILED', 'failed', `${error.code}: ${error.message}`, true);
        return ended;
      }
      if (error instanceof HandedBack) {
        const queued: TaskState = { ...attempt.task, nice_status: 'Queued' };
        return (await attempt.save(queued)) ? queued : this.uow.repositories.tasks.findById(taskId);
      }
      const retry = asRetry(error);
      const waiting: TaskState = { ...attempt.task, nice_status: retry.code, is_paused: retry.code === 'PAUSED', counters: { ...attempt.task.counters, faults: attempt.task.counters.faults + 1 } };
      if (!(await attempt.save(waiting))) return this.uow.repositories.tasks.findById(taskId);
      await this.event(waiting, retry.code, retry.code.toLowerCase().replace(/_/g, ' '), retry.message, true);
      return waiting;
    }
  }

  private async event(task: TaskState, code: string, description: string, details: string, isError: boolean): Promise<void> {
    await this.uow.repositories.tasks.addEvent({ task_id: task.id, code, description, details, is_error: isError, time: this.clock.now() });
  }
}

function asRetry(error: unknown): Retry {
  if (error instanceof Retry) return error;
  if (error instanceof StorageError) return new Retry(FAILURE_CODES[error.failure], `${error.path}: ${error.message}`);
  if (error instanceof DomainError) {
    const code = error.code === 'OperationPaused' ? 'PAUSED' : error.code === 'EndpointNotConnected' ? 'ENDPOINT_NOT_CONNECTED' : error.code.includes('PermissionDenied') ? 'PERMISSION_DENIED' : error.code;
    return new Retry(code, error.message);
  }
  throw error;
}

/** One attempt's progress: the task as it goes, written back now and then. */
class Attempt {
  private sinceSave = 0;
  /** The item in hand's access, checked again now and then; null between items. */
  private access: (() => Promise<unknown>) | null = null;
  private checkedAt = 0;

  constructor(
    private readonly deps: { store: TaskRepository; files: FileService; clock: Clock; stopping: () => boolean },
    public task: TaskState,
  ) {}

  private count(change: Partial<TaskCounters>): void {
    const counters = { ...this.task.counters };
    for (const [key, value] of Object.entries(change) as [keyof TaskCounters, number][]) counters[key] += value;
    this.task = { ...this.task, counters };
  }

  /** Writes the task back unless someone ended it meanwhile (then false). */
  async save(task: TaskState = this.task): Promise<boolean> {
    if (!(await this.deps.store.saveProgress(task))) return false;
    this.sinceSave = 0;
    return true;
  }

  /** After a file or a directory's files: the task is handed back when the process stops (progress is saved by the caller). */
  private handBackIfStopping(): void {
    if (this.deps.stopping()) throw new HandedBack();
  }

  async transfer(owner: Principal, request: TransferRequest): Promise<void> {
    for (const item of request.items) {
      const placeSource = () => this.deps.files.place(owner, request.source_endpoint, item.source_path, 'r', 'pause_task_transfer_read');
      const placeDestination = (options?: { makeParents: boolean }) => this.deps.files.place(owner, request.destination_endpoint, item.destination_path, 'rw', 'pause_task_transfer_write', options);
      this.checking(() => Promise.all([placeSource(), placeDestination()]));
      const source = await placeSource();
      const entry = await this.sourceEntry(source, request);
      if (entry !== null) {
        // the destination's missing folders are made once the source is there
        const destination = await placeDestination({ makeParents: true });
        const recursive = item.recursive ?? entry.type === 'dir';
        if (recursive && entry.type !== 'dir') throw new Retry('NOT_A_DIRECTORY', `${source.shown} is a file: a recursive item copies a directory`);
        if (!recursive && entry.type === 'dir') throw new Retry('IS_A_DIRECTORY', `${source.shown} is a directory: give the item recursive true`);
        // a directory copied into itself would never end (cp: cannot copy a directory into itself)
        if (recursive && request.source_endpoint.toLowerCase() === request.destination_endpoint.toLowerCase() && destination.shown !== source.shown && isWithin(destination.shown, source.shown)) {
          throw new Failed('INVALID_PATH', `${destination.shown} is inside ${source.shown}: a directory cannot be copied into itself`);
        }
        if (recursive) await this.copyTree(source, destination, request, 1);
        else await this.copyFile(source, destination, entry, item, request);
      }
      this.count({ subtasks_pending: -1, subtasks_succeeded: 1 });
      if (!(await this.save())) throw new Ended();
      if (this.deps.stopping()) throw new HandedBack();
    }
  }

  /** From now on, `access` is the item's access, checked again at most every RECHECK_MS by recheck(). */
  private checking(access: () => Promise<unknown>): void {
    this.access = access;
    this.checkedAt = this.deps.clock.now().getTime();
  }

  /** The item's access checked again when RECHECK_MS have passed: its refusal (a rule revoked meanwhile) stops the attempt. */
  private async recheck(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    if (this.access === null || now - this.checkedAt < RECHECK_MS) return;
    this.checkedAt = now;
    await this.access();
  }

  /** The source's entry; null when it is missing and the task skips source errors (recorded). */
  private async sourceEntry(source: Place, request: TransferRequest): Promise<FileEntry | null> {
    try {
      return await source.storage.stat(source.path);
    } catch (error) {
      if (!(error instanceof StorageError) || !skipsSourceFailure(request, error)) throw error;
      await this.skipped(source.shown, null, FAILURE_CODES[error.failure], error.message, false);
      return null;
    }
  }

  private async skipped(source: string | null, destination: string | null, code: string, details: string, isDirectory: boolean): Promise<void> {
    this.count({ subtasks_skipped_errors: 1 });
    await this.deps.store.addFiles([{ task_id: this.task.id, kind: 'skipped', source_path: source, destination_path: destination, error_code: code, error_details: details, is_directory: isDirectory, time: this.deps.clock.now() }]);
  }

  private async copyTree(source: Place, destination: Place, request: TransferRequest, depth: number): Promise<void> {
    if (depth > MAX_TREE_DEPTH) throw new Failed('INVALID_PATH', `${source.shown}: deeper than ${MAX_TREE_DEPTH} levels (is the destination inside the source?)`);
    await this.recheck();
    await destination.storage.mkdir(destination.path).catch((error: unknown) => {
      if (!(error instanceof StorageError && error.failure === 'exists')) throw error;
    });
    this.count({ directories: 1 });
    const kept = new Set<string>();
    const keeps = filterRulesKeeper(request.options.filter_rules);
    for await (const items of treeItems(source, destination, request)) {
      const files: TreeFile[] = [];
      const directories: string[] = [];
      for (const item of items) {
        // gone since listed, a link (never followed: recursive_symlinks ignore), or filtered out
        if (item === null) continue;
        if (item.type === 'link') {
          this.count({ symlinks: 1 });
          continue;
        }
        if (!keeps(item.name, item.type)) continue;
        kept.add(item.name);
        if (item.type === 'dir') directories.push(item.name);
        else files.push({ name: item.name, source: childOf(source, item.name), destination: childOf(destination, item.name), entry: item.entry });
      }
      await this.copyDirectoryFiles(source, destination, files, request);
      for (const name of directories) await this.copyTree(childOf(source, name), childOf(destination, name), request, depth + 1);
    }
    if (request.options.delete_destination_extra) {
      for await (const batch of destination.storage.names(destination.path)) {
        for (const name of batch) if (!kept.has(name)) await removeTree(destination.storage, joinStoragePath(destination.path, `/${name}`), () => this.recheck());
      }
    }
  }

  /**
   * Copies a directory's files together where the two storages can (copyFilesFrom: COPY_BATCH at
   * a time, those in sync left out first), else one by one (copyFiles). The storages copy a batch
   * while the one before is recorded and saved; a cancel or a stopping process noticed meanwhile
   * stops the batch in flight after the file in hand (recorded, then the attempt ends or is handed
   * back). Like copyFiles, it takes no new batch once the process stops, records what was copied
   * before a failure, then throws it. Files listed without a stat (no entry) are bounded by bytes
   * by the storages (COPY_BATCH.bytes a call), where the batch then goes on from.
   */
  private async copyDirectoryFiles(source: Place, destination: Place, files: readonly TreeFile[], request: TransferRequest): Promise<void> {
    const [from, to] = [source.storage.features.batchCopy, destination.storage.features.batchCopy];
    if (from === null || to === null || !onOneHost(from, to)) return this.copyFiles(await withEntries(source, files), request);
    const algorithm: ChecksumAlgorithm = 'md5';
    const options = {
      checksum: request.options.verify_checksum ? algorithm : null,
      skipSourceFailures: request.options.skip_source_errors ? [...SKIPPABLE_SOURCE_FAILURES, ...ALWAYS_SKIPPED] : ALWAYS_SKIPPED,
      sourceTimes: request.options.preserve_timestamp,
      maxBytes: COPY_BATCH.bytes,
    };
    type Copied = { batch: TreeFile[]; copied: readonly DirectoryFileCopy[] };
    /** Records a batch's copies (throwing a failure among them) and saves: false once someone ended the task. */
    const record = async ({ batch, copied }: Copied) => {
      await this.recordCopies(batch, copied, request, algorithm);
      return this.save();
    };
    /** The batch copied last, recorded while the next one copies. */
    let unrecorded: Copied | null = null;
    for (let at = 0; at < files.length; ) {
      // the first batch is copied whatever happens: an attempt moves at least one file
      if (at > 0 && this.deps.stopping()) break;
      await this.recheck();
      const start = at;
      const taken = batchOf(files, at);
      at += taken;
      let batch = files.slice(start, start + taken);
      /** Where each file of the batch is in `files`. */
      let positions = batch.map((_, i) => start + i);
      // without a sync level every file is copied: no call a file to ask
      if (request.options.sync_level !== null) {
        const candidates = batch;
        batch = [];
        positions = [];
        for (const [i, file] of candidates.entries()) {
          if (file.entry !== null && (await this.inSync(file.source, file.destination, file.entry, request, algorithm))) {
            this.count({ files: 1, files_skipped: 1 });
          } else {
            batch.push(file);
            positions.push(start + i);
          }
        }
      }
      if (batch.length === 0) continue;
      const stop = new AbortController();
      const copying = to.copyFiles(from, source.path, destination.path, batch.map((file) => ({ name: file.name, ...(request.options.preserve_timestamp && file.entry !== null && { lastModified: file.entry.lastModified }) })), { ...options, signal: stop.signal });
      // it may fail while the batch before is recorded (on Postgres, over round trips): handled
      // here, so that it is no unhandled rejection meanwhile; awaited below, it still throws
      copying.catch(() => undefined);
      let ended = false;
      if (unrecorded !== null) {
        try {
          ended = !(await record(unrecorded));
        } catch (error) {
          stop.abort();
          await copying.catch(() => null);
          throw error;
        }
        unrecorded = null;
        if (ended || this.deps.stopping()) stop.abort();
      }
      const copied = await copying;
      const failed = copied.some((outcome) => 'error' in outcome);
      // stopped at the bytes of a call: the rest go with the next batch
      if (!failed && !stop.signal.aborted && copied.length < batch.length) {
        if (copied.length === 0) throw new Error(`${destination.shown}: a directory copy answered for no file`);
        at = positions[copied.length]!;
        batch = batch.slice(0, copied.length);
      }
      if (ended) {
        // what the stopped batch placed is listed; a failure among it no longer matters
        await this.recordCopies(batch, copied, request, algorithm).catch((error: unknown) => {
          if (!(error instanceof StorageError || error instanceof Retry)) throw error;
        });
        throw new Ended();
      }
      unrecorded = { batch, copied };
      // a failure (the batch ended at it) or a stop is recorded before anything else is copied
      if (stop.signal.aborted || copied.length < batch.length || failed) {
        if (!(await record(unrecorded))) throw new Ended();
        unrecorded = null;
        if (stop.signal.aborted) break;
      }
    }
    if (unrecorded !== null && !(await record(unrecorded))) throw new Ended();
    this.handBackIfStopping();
  }

  private async recordCopies(batch: readonly { source: Place; destination: Place }[], copied: readonly DirectoryFileCopy[], request: TransferRequest, algorithm: ChecksumAlgorithm): Promise<void> {
    const records: FileRecord[] = [];
    // counted once for the batch (each count copies the task's state), up to and with a failure
    const counted = { files: 0, bytes_transferred: 0, files_transferred: 0 };
    // the batch's records share the time it was recorded
    const time = this.deps.clock.now();
    let failure: unknown = null;
    for (const [i, outcome] of copied.entries()) {
      const { source, destination } = batch[i]!;
      counted.files += 1;
      try {
        if ('error' in outcome) {
          if (outcome.side !== 'source' || !skipsSourceFailure(request, outcome.error)) throw outcome.error;
          await this.skipped(source.shown, destination.shown, FAILURE_CODES[outcome.error.failure], outcome.error.message, false);
          continue;
        }
        counted.bytes_transferred += outcome.bytes;
        counted.files_transferred += 1;
        if (outcome.checksums !== null) await this.checkCopy(destination, outcome.bytes, algorithm, outcome.checksums.destination, outcome.checksums.source);
        records.push(this.succeeded(source, destination, time));
      } catch (error) {
        failure = error;
        break;
      }
    }
    this.count(counted);
    await this.deps.store.addFiles(records);
    if (failure !== null) throw failure;
  }


  /**
   * Copies a directory's files FILES_AT_ONCE at a time, taking no new one once the process stops
   * or one fails; the ones in flight finish, are recorded in the listing's order, and then the
   * failure (or the hand-back) goes up.
   */
  private async copyFiles(files: readonly { source: Place; destination: Place; entry: FileEntry }[], request: TransferRequest): Promise<void> {
    // Stryker disable next-line ArrayDeclaration: an empty array's holes are skipped by filter as nulls are
    const records: (FileRecord | null)[] = new Array<FileRecord | null>(files.length).fill(null);
    let next = 0;
    const failures: unknown[] = [];
    const worker = async () => {
      // the first file is copied whatever happens: an attempt moves at least one
      while (next < files.length && failures.length === 0 && (next === 0 || !this.deps.stopping())) {
        const at = next++;
        const file = files[at]!;
        try {
          await this.recheck();
          records[at] = await this.copyOne(file.source, file.destination, file.entry, null, request);
          this.sinceSave += 1;
          if (this.sinceSave >= SAVE_EVERY) {
            this.sinceSave = 0;
            if (!(await this.save())) failures.push(new Ended());
            // a storage whose calls never wait on I/O (a memory tree) would hold the event loop
            // for the whole directory: requests (a cancel, a poll of the task) are answered between
            await new Promise((resolve) => setImmediate(resolve));
          }
        } catch (error) {
          failures.push(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(FILES_AT_ONCE, files.length) }, worker));
    await this.deps.store.addFiles(records.filter((record) => record !== null));
    if (failures.length > 0) throw failures[0];
    this.handBackIfStopping();
  }

  private async copyFile(source: Place, destination: Place, entry: FileEntry, item: TransferItem | null, request: TransferRequest): Promise<void> {
    const record = await this.copyOne(source, destination, entry, item, request);
    if (record !== null) await this.deps.store.addFiles([record]);
    this.handBackIfStopping();
  }

  /** Copies one file unless it is in sync; its record when it was copied. */
  private async copyOne(source: Place, destination: Place, entry: FileEntry, item: TransferItem | null, request: TransferRequest): Promise<FileRecord | null> {
    this.count({ files: 1 });
    const algorithm: ChecksumAlgorithm = item?.checksum_algorithm ?? (item?.external_checksum?.length === 64 ? 'sha256' : 'md5');
    if (await this.inSync(source, destination, entry, request, algorithm)) {
      this.count({ files_skipped: 1 });
      return null;
    }
    let bytes: number;
    try {
      const options = { lastModified: request.options.preserve_timestamp ? entry.lastModified : undefined };
      // in the kernel where both storages can (two directories of one host), else streamed through the process
      const [from, to] = [source.storage.features.kernelCopy, destination.storage.features.kernelCopy];
      bytes = from !== null && to !== null && onOneHost(from, to) ? await to.copyFile(from, source.path, destination.path, options) : await destination.storage.write(destination.path, source.storage.read(source.path), options);
    } catch (error) {
      if (error instanceof StorageError && skipsSourceFailure(request, error) && error.path === source.path) {
        await this.skipped(source.shown, destination.shown, FAILURE_CODES[error.failure], error.message, false);
        return null;
      }
      throw error;
    }
    this.count({ bytes_transferred: bytes, files_transferred: 1 });
    if (request.options.verify_checksum || item?.external_checksum) {
      const expected = item?.external_checksum ?? (await source.storage.checksum(source.path, algorithm));
      await this.checkCopy(destination, bytes, algorithm, await destination.storage.checksum(destination.path, algorithm), expected);
    }
    return this.succeeded(source, destination);
  }

  /** Counts a copy's digested bytes; a copy whose digest differs is removed, and the task waits it out. */
  private async checkCopy(destination: Place, bytes: number, algorithm: ChecksumAlgorithm, written: string, expected: string): Promise<void> {
    this.count({ bytes_checksummed: bytes });
    if (written === expected) return;
    await destination.storage.remove(destination.path).catch(() => undefined);
    throw new Retry('CHECKSUM_MISMATCH', `${destination.shown}: ${algorithm} ${written}, expected ${expected}`);
  }

  /** The record of a file copied. */
  private succeeded(source: Place, destination: Place, time = this.deps.clock.now()): FileRecord {
    return { task_id: this.task.id, kind: 'succeeded', source_path: source.shown, destination_path: destination.shown, error_code: null, error_details: null, is_directory: false, time };
  }

  /** Whether the destination already has the file, by the sync level asked (none: never). */
  private async inSync(source: Place, destination: Place, entry: FileEntry, request: TransferRequest, algorithm: ChecksumAlgorithm): Promise<boolean> {
    const level = request.options.sync_level;
    if (level === null) return false;
    const there = await destination.storage.stat(destination.path).catch((error: unknown) => {
      if (error instanceof StorageError && error.failure === 'not_found') return null;
      throw error;
    });
    if (there === null || there.type !== 'file') return false;
    if (level === 0) return true;
    if (there.size !== entry.size) return false;
    if (level === 1) return true;
    if (level === 2) return there.lastModified.getTime() >= entry.lastModified.getTime();
    return (await source.storage.checksum(source.path, algorithm)) === (await destination.storage.checksum(destination.path, algorithm));
  }

  async delete(owner: Principal, request: DeleteRequest): Promise<void> {
    for (const path of request.paths) {
      const placePath = () => this.deps.files.place(owner, request.endpoint, path, 'rw', 'pause_task_delete');
      this.checking(placePath);
      const place = await placePath();
      const entry = await place.storage.stat(place.path).catch((error: unknown) => {
        if (error instanceof StorageError && error.failure === 'not_found' && request.options.ignore_missing) return null;
        throw error;
      });
      if (entry !== null) {
        if (place.shown === '/') throw new Retry('PERMISSION_DENIED', "an endpoint's root is never deleted");
        if (entry.type === 'dir' && !request.options.recursive) throw new Retry('IS_A_DIRECTORY', `${place.shown} is a directory: delete it with recursive true`);
        const removed = await removeTree(place.storage, place.path, () => this.recheck());
        this.count({ files: removed.files, directories: removed.directories });
      }
      this.count({ subtasks_pending: -1, subtasks_succeeded: 1 });
      if (!(await this.save())) throw new Ended();
      if (this.deps.stopping()) throw new HandedBack();
    }
  }
}

/** Whether the task lists this failure of its source as skipped and goes on. */
function skipsSourceFailure(request: TransferRequest, error: StorageError): boolean {
  return ALWAYS_SKIPPED.includes(error.failure) || (request.options.skip_source_errors && SKIPPABLE_SOURCE_FAILURES.includes(error.failure));
}

/** How many of `files` from `at` go in one batch (at least one): sizes unknown (no entry) count as none, the storages bounding those. */
function batchOf(files: readonly TreeFile[], at: number): number {
  const size = (file: TreeFile) => file.entry?.size ?? 0;
  let bytes = size(files[at]!);
  let taken = 1;
  while (at + taken < files.length && taken < COPY_BATCH.files && bytes + size(files[at + taken]!) <= COPY_BATCH.bytes) bytes += size(files[at + taken++]!);
  return taken;
}

/**
 * A directory's items for a tree copy: from its listing alone (names and types) where its files
 * need no stat (no sync level, and the storages copy a directory's files together, taking sizes
 * and times from the files), else with each name's entry.
 */
async function* treeItems(source: Place, destination: Place, request: TransferRequest): AsyncIterable<(TreeItem | null)[]> {
  const { typedNames } = source.storage.features;
  if (request.options.sync_level === null && typedNames !== null && onOneHost(source.storage.features.batchCopy, destination.storage.features.batchCopy)) {
    for await (const names of typedNames(source.path)) yield names.map((listed) => ({ ...listed, entry: null }));
    return;
  }
  for await (const entries of entriesReadAhead(source.storage, source.path)) {
    yield entries.map((entry) => (entry === null ? null : { name: entry.name, type: entry.link !== null || entry.type === 'invalid_symlink' ? 'link' : entry.type === 'dir' ? 'dir' : 'file', entry }));
  }
}

/** Files with their entries, stat'ed where the listing gave none (one gone since is left out): a copy one by one needs them. */
async function withEntries(source: Place, files: readonly TreeFile[]): Promise<(TreeFile & { entry: FileEntry })[]> {
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

/** The place of `name` inside a directory's place. */
function childOf(place: Place, name: string): Place {
  return { storage: place.storage, path: joinStoragePath(place.path, `/${name}`), shown: joinStoragePath(place.shown, `/${name}`) };
}

/** Removes a file, a link, or a directory with everything in it (links removed, never followed). */
async function removeTree(storage: Storage, path: string, recheck: () => Promise<void>): Promise<{ files: number; directories: number }> {
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
        const inner = await removeTree(storage, joinStoragePath(path, `/${name}`), recheck);
        removed.files += inner.files;
        removed.directories += inner.directories;
      }
    }
    removed.directories += 1;
  } else removed.files += 1;
  await storage.remove(path);
  return removed;
}
