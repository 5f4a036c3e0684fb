import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** What a thread posts once its module is loaded and its database open. */
export const READY = 'ready';

/** The thread's first message: ready, or why it could not start. */
export type StartReport = typeof READY | { failed: string };

/** How long a thread may take to load and open its database before start-up gives up on it. */
const START_TIMEOUT_MS = 30_000;

/**
 * The workspace root above a TypeScript source (the folder whose tsconfig.json maps the @xfer/
 * packages to their sources), for a thread that runs sources.
 */
function workspaceRoot(from: string): { root: string; paths: Record<string, string[]> } {
  for (let dir = dirname(from); dir !== dirname(dir); dir = dirname(dir)) {
    const config = join(dir, 'tsconfig.json');
    if (!existsSync(config)) continue;
    const paths = (JSON.parse(readFileSync(config, 'utf8')) as { compilerOptions?: { paths?: Record<string, string[]> } }).compilerOptions?.paths;
    if (paths) return { root: dir, paths };
  }
  throw new Error(`no tsconfig.json with the workspace's paths above ${from}`);
}

/** Loads TypeScript sources in a thread as the process that starts it does (ts-node's swc transpiler, the workspace's paths). */
const SOURCE_BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
const { loader } = workerData;
require(loader.tsNode).register({ swc: true, project: loader.tsconfig });
require(loader.tsconfigPaths).register({ baseUrl: loader.root, paths: loader.paths });
require(loader.script);
`;

/**
 * Starts `script` on a thread, running the code this process runs: the module it loaded (pass its
 * __filename), compiled JavaScript as it is, TypeScript sources (jest, ts-node) transpiled the same
 * way, never a build that may be stale. Resolves once the thread reports ready; rejects naming
 * `what` when it cannot start, so that start-up says so instead of carrying on without it.
 */
export async function startWorker(what: string, script: string, workerData: Record<string, unknown>): Promise<Worker> {
  let worker: Worker;
  if (script.endsWith('.ts')) {
    const { root, paths } = workspaceRoot(script);
    const loader = { tsNode: require.resolve('ts-node'), tsconfigPaths: require.resolve('tsconfig-paths'), tsconfig: join(root, 'tsconfig.json'), root, paths, script };
    worker = new Worker(SOURCE_BOOTSTRAP, { eval: true, workerData: { ...workerData, loader } });
  } else {
    worker = new Worker(script, { workerData });
  }
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      const settle = (error?: Error) => {
        clearTimeout(timer);
        worker.off('message', first).off('error', settle).off('exit', exited);
        if (error) reject(error);
        else resolve();
      };
      const first = (report: StartReport) => settle(report === READY ? undefined : new Error(report.failed));
      const exited = (code: number) => settle(new Error(`exited with code ${code}`));
      worker.once('message', first).once('error', settle).once('exit', exited);
    });
  } catch (error) {
    await worker.terminate();
    throw new Error(`The ${what} could not start: ${(error as Error).message}`);
  }
  return worker;
}
