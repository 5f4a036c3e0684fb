import { StorageError } from '../storage/Storage';
import { DONE, ENDED, failedWith, STOPPED, type CopyOutcome } from '../transfer/CopyReport';
import { removeTree } from '../transfer/walk';
import type { Attempt } from './Attempt';
import type { DeleteOptions } from './TaskRequest';
import type { WorkEnv } from './transferWork';

/** A delete's paths as one attempt runs them: the endpoint located once, each path's access checked again while it goes. */
export async function deletePaths(env: WorkEnv, attempt: Attempt, endpoint: string, paths: readonly string[], options: DeleteOptions): Promise<CopyOutcome> {
  const side = await env.files.taskSide(env.owner, endpoint, 'rw', 'pause_task_delete');
  for (const path of paths) {
    attempt.checking(() => env.files.place(env.owner, endpoint, path, 'rw', 'pause_task_delete'));
    const place = await side.place(path);
    const entry = await place.storage.stat(place.path).catch((error: unknown) => {
      if (error instanceof StorageError && error.failure === 'not_found') return null;
      throw error;
    });
    if (entry === null && !options.ignore_missing) return failedWith('delete_missing', `${place.shown}: no such file or directory`);
    if (entry !== null) {
      if (place.shown === '/') return failedWith('denied', "an endpoint's root is never deleted");
      if (entry.type === 'dir' && !options.recursive) return failedWith('is_directory', `${place.shown} is a directory: delete it with recursive true`);
      const removed = await removeTree(place.storage, place.path, () => attempt.recheck());
      attempt.count(removed);
    }
    attempt.itemDone();
    if (!(await attempt.save())) return ENDED;
    if (env.signal.aborted) return STOPPED;
  }
  return DONE;
}
