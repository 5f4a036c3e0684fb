import type { Principal } from '../auth/Principal';
import type { FileService, TaskPlace, TaskSide } from '../storage/FileService';
import { isWithin } from '../storage/paths';
import { StorageError, type FileEntry } from '../storage/Storage';
import { ALWAYS_SKIPPED, SKIPPABLE_SOURCE_FAILURES, skipsFailure, type CopyPolicy, type FileDemand } from '../transfer/CopyPolicy';
import { DONE, ENDED, failedWith, STOPPED, type CopyOutcome } from '../transfer/CopyReport';
import { copyFile, copyTree } from '../transfer/copyTree';
import type { Attempt } from './Attempt';
import { filterRulesKeeper, type TransferItem, type TransferOptions } from './TaskRequest';

/** What an attempt's work runs with: the file operations that locate endpoints, the task's owner, and the signal that stops it. */
export interface WorkEnv {
  files: FileService;
  owner: Principal;
  signal: AbortSignal;
}

/** The copy policy of a transfer's options, made once per attempt. */
export function policyOf(options: TransferOptions): CopyPolicy {
  return {
    syncLevel: options.sync_level,
    verify: options.verify_checksum,
    preserveTimes: options.preserve_timestamp,
    skippedSourceFailures: options.skip_source_errors ? [...SKIPPABLE_SOURCE_FAILURES, ...ALWAYS_SKIPPED] : ALWAYS_SKIPPED,
    deleteExtras: options.delete_destination_extra,
    keeps: filterRulesKeeper(options.filter_rules),
  };
}

/** An item's checksum, as its copy must have it: the algorithm it names (sha256 for a 64-digit digest), md5 otherwise. */
function demandOf(item: TransferItem): FileDemand {
  return { algorithm: item.checksum_algorithm ?? (item.external_checksum?.length === 64 ? 'sha256' : 'md5'), expected: item.external_checksum };
}

/**
 * A transfer's items as one attempt runs them: the source endpoint located once, the destination
 * once it is first needed; each item's access checked again while it copies (RECHECK_MS), by
 * locating both again, so that a revoked access rule stops a running tree.
 */
export class TransferWork {
  private destinationSide: Promise<TaskSide> | null = null;

  private constructor(
    private readonly env: WorkEnv,
    private readonly endpoints: { source: string; destination: string },
    private readonly source: TaskSide,
    private readonly policy: CopyPolicy,
  ) {}

  static async locate(env: WorkEnv, endpoints: { source: string; destination: string }, options: TransferOptions): Promise<TransferWork> {
    return new TransferWork(env, endpoints, await env.files.taskSide(env.owner, endpoints.source, 'r', 'pause_task_transfer_read'), policyOf(options));
  }

  async run(attempt: Attempt, items: readonly TransferItem[]): Promise<CopyOutcome> {
    for (const item of items) {
      const outcome = await this.item(attempt, item);
      if (outcome.kind !== 'done') return outcome;
      attempt.itemDone();
      if (!(await attempt.save())) return ENDED;
      if (this.env.signal.aborted) return STOPPED;
    }
    return DONE;
  }

  private destination(): Promise<TaskSide> {
    this.destinationSide ??= this.env.files.taskSide(this.env.owner, this.endpoints.destination, 'rw', 'pause_task_transfer_write');
    return this.destinationSide;
  }

  private async item(attempt: Attempt, item: TransferItem): Promise<CopyOutcome> {
    const { files, owner } = this.env;
    attempt.checking(() => Promise.all([files.place(owner, this.endpoints.source, item.source_path, 'r', 'pause_task_transfer_read'), files.place(owner, this.endpoints.destination, item.destination_path, 'rw', 'pause_task_transfer_write')]));
    const source = await this.source.place(item.source_path);
    const entry = await this.sourceEntry(attempt, source);
    if (entry === null) return DONE;
    // the destination's missing folders are made once the source is there
    const destination = await (await this.destination()).place(item.destination_path, { makeParents: true });
    const recursive = item.recursive ?? entry.type === 'dir';
    if (recursive && entry.type !== 'dir') return failedWith('not_directory', `${source.shown} is a file: a recursive item copies a directory`);
    if (!recursive && entry.type === 'dir') return failedWith('is_directory', `${source.shown} is a directory: give the item recursive true`);
    // a directory copied into itself would never end (cp: cannot copy a directory into itself)
    if (recursive && this.endpoints.source.toLowerCase() === this.endpoints.destination.toLowerCase() && destination.shown !== source.shown && isWithin(destination.shown, source.shown)) {
      return failedWith('into_itself', `${destination.shown} is inside ${source.shown}: a directory cannot be copied into itself`);
    }
    const run = { policy: this.policy, report: attempt, signal: this.env.signal };
    return recursive ? copyTree(run, source, destination) : copyFile(run, source, destination, entry, demandOf(item));
  }

  /** The source's entry; null when it is missing and the task skips source errors (listed). */
  private async sourceEntry(attempt: Attempt, source: TaskPlace): Promise<FileEntry | null> {
    try {
      return await source.storage.stat(source.path);
    } catch (error) {
      if (!(error instanceof StorageError) || !skipsFailure(this.policy, { error, side: 'source' })) throw error;
      await attempt.skipped(source.shown, null, { reason: error.failure, message: error.message });
      return null;
    }
  }
}
