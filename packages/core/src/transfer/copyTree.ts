import { childPath } from '../storage/paths';
import { StorageError, type FileEntry } from '../storage/Storage';
import { copyBatches } from './batchCopy';
import { childOf, copyPathOf, type CopyPolicy, type FileDemand, type Place } from './CopyPolicy';
import { DONE, ENDED, failedWith, outcomeOf, STOPPED, type CopyOutcome, type CopyReport } from './CopyReport';
import { copyFiles, copyOne, type CopyContext } from './fileCopy';
import { removeTree, treeItems, withEntries, type TreeFile, type TreeItem } from './walk';

/** The deepest a tree copy goes: a destination inside its source (through a share of the same storage) grows a level each level. */
export const MAX_TREE_DEPTH = 256;

/**
 * Folders of a tree copied at once, across the tree: each folder costs round trips of its own (its
 * listing, a pull between nodes, its records), and a tree of small folders copied one after another
 * waited on them in turn (10,000 files as 100 folders: 1,661 files/s where one folder took 2,516).
 */
const FOLDERS_AT_ONCE = 4;

/** What a copy is handed by its caller: how, where it reports, and what stops it. */
export interface CopyRun {
  policy: CopyPolicy;
  report: CopyReport;
  signal: AbortSignal;
}

/** Copies one file (its record listed), by the copy path its two storages have. */
export function copyFile(run: CopyRun, source: Place, destination: Place, entry: FileEntry, demand: FileDemand): Promise<CopyOutcome> {
  const ctx: CopyContext = { ...run, path: copyPathOf(source.storage, destination.storage) };
  return outcomeOf(async () => {
    const result = await copyOne(ctx, source, destination, entry, demand);
    if (result.kind === 'failed') return { kind: 'failed', failure: result.failure };
    if (result.kind === 'ended') return ENDED;
    if (result.kind === 'copied') await ctx.report.copied([result.file]);
    return ctx.signal.aborted ? STOPPED : DONE;
  });
}

/**
 * Copies a directory with everything in it the filter rules keep (links counted, never
 * followed), its files as its storages copy best; with deleteExtras, what else the destination
 * holds goes. A storage's refusal is the outcome.
 */
export function copyTree(run: CopyRun, source: Place, destination: Place): Promise<CopyOutcome> {
  const ctx: TreeContext = { ...run, path: copyPathOf(source.storage, destination.storage), folders: { spare: FOLDERS_AT_ONCE - 1 } };
  return outcomeOf(() => copyDirectory(ctx, source, destination, 1));
}

/** A tree copy's context: the folders that may still be copied beside the ones under way, shared by the whole tree. */
interface TreeContext extends CopyContext {
  folders: { spare: number };
}

async function copyDirectory(ctx: TreeContext, source: Place, destination: Place, depth: number): Promise<CopyOutcome> {
  if (depth > MAX_TREE_DEPTH) return failedWith('too_deep', `${source.shown}: deeper than ${MAX_TREE_DEPTH} levels (is the destination inside the source?)`);
  await ctx.report.recheck();
  await destination.storage.mkdir(destination.path).catch((error: unknown) => {
    if (!(error instanceof StorageError && error.failure === 'exists')) throw error;
  });
  ctx.report.count({ directories: 1 });
  const kept = new Set<string>();
  for await (const items of treeItems(source, ctx.path, ctx.policy.syncLevel !== null)) {
    const { files, directories } = sorted(ctx, source, destination, items, kept);
    const copied = ctx.path.batch !== null ? await copyBatches(ctx, ctx.path.batch, source, destination, files) : await copyFiles(ctx, await withEntries(source, files));
    if (copied.kind !== 'done') return copied;
    const inner = await eachFolder(ctx, directories, (sub, name) => copyDirectory(sub, childOf(source, name), childOf(destination, name), depth + 1));
    if (inner.kind !== 'done') return inner;
  }
  if (ctx.policy.deleteExtras) {
    for await (const batch of destination.storage.names(destination.path)) {
      for (const name of batch) if (!kept.has(name)) await removeTree(destination.storage, childPath(destination.path, name), () => ctx.report.recheck());
    }
  }
  return DONE;
}

/** Of outcomes that are not done, the one that decides: a failure, then someone's end, then a stop. */
const WEIGHT: Record<CopyOutcome['kind'], number> = { failed: 3, ended: 2, stopped: 1, done: 0 };

/**
 * Copies the folders `names` of one directory, as many at once as the tree has spare (one always:
 * the caller's own turn), each a context whose signal also stops it once a sibling ends otherwise
 * than done; none is started after that, nor after the process's stop. The outcome that decides.
 */
async function eachFolder(ctx: TreeContext, names: readonly string[], copy: (ctx: TreeContext, name: string) => Promise<CopyOutcome>): Promise<CopyOutcome> {
  const halt = new AbortController();
  const sub: TreeContext = { ...ctx, signal: AbortSignal.any([ctx.signal, halt.signal]) };
  let next = 0;
  let decided: CopyOutcome = DONE;
  const worker = async () => {
    while (next < names.length && !sub.signal.aborted) {
      const outcome = await copy(sub, names[next++]!).catch((error: unknown) => {
        // a sibling that throws stops the others too, then goes on up
        halt.abort();
        throw error;
      });
      if (WEIGHT[outcome.kind] > WEIGHT[decided.kind]) decided = outcome;
      if (outcome.kind !== 'done') halt.abort();
    }
  };
  const extra = Math.min(ctx.folders.spare, names.length - 1);
  ctx.folders.spare -= Math.max(0, extra);
  const workers = await Promise.allSettled(Array.from({ length: 1 + Math.max(0, extra) }, worker));
  ctx.folders.spare += Math.max(0, extra);
  const thrown = workers.find((worker) => worker.status === 'rejected');
  if (thrown) throw thrown.reason;
  // stopped by the process before every folder was begun
  return decided.kind === 'done' && next < names.length ? STOPPED : decided;
}

/** A listing's items as files and directories to copy (each name kept noted); links counted, names the filter rules leave out passed over. */
function sorted(ctx: CopyContext, source: Place, destination: Place, items: readonly (TreeItem | null)[], kept: Set<string>): { files: TreeFile[]; directories: string[] } {
  const files: TreeFile[] = [];
  const directories: string[] = [];
  for (const item of items) {
    // gone since listed, a link (never followed: recursive_symlinks ignore), or filtered out
    if (item === null) continue;
    if (item.type === 'link') {
      ctx.report.count({ symlinks: 1 });
      continue;
    }
    if (!ctx.policy.keeps(item.name, item.type)) continue;
    kept.add(item.name);
    if (item.type === 'dir') directories.push(item.name);
    else files.push({ name: item.name, source: childOf(source, item.name), destination: childOf(destination, item.name), entry: item.entry });
  }
  return { files, directories };
}
