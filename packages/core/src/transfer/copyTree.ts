import { childPath } from '../storage/paths';
import { StorageError, type FileEntry } from '../storage/Storage';
import { copyBatches } from './batchCopy';
import { childOf, copyPathOf, type CopyPolicy, type FileDemand, type Place } from './CopyPolicy';
import { DONE, ENDED, failedWith, outcomeOf, STOPPED, type CopyOutcome, type CopyReport } from './CopyReport';
import { copyFiles, copyOne, type CopyContext } from './fileCopy';
import { removeTree, treeItems, withEntries, type TreeFile, type TreeItem } from './walk';

/** The deepest a tree copy goes: a destination inside its source (through a share of the same storage) grows a level each level. */
export const MAX_TREE_DEPTH = 256;

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
  const ctx: CopyContext = { ...run, path: copyPathOf(source.storage, destination.storage) };
  return outcomeOf(() => copyDirectory(ctx, source, destination, 1));
}

async function copyDirectory(ctx: CopyContext, source: Place, destination: Place, depth: number): Promise<CopyOutcome> {
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
    for (const name of directories) {
      const inner = await copyDirectory(ctx, childOf(source, name), childOf(destination, name), depth + 1);
      if (inner.kind !== 'done') return inner;
    }
  }
  if (ctx.policy.deleteExtras) {
    for await (const batch of destination.storage.names(destination.path)) {
      for (const name of batch) if (!kept.has(name)) await removeTree(destination.storage, childPath(destination.path, name), () => ctx.report.recheck());
    }
  }
  return DONE;
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
