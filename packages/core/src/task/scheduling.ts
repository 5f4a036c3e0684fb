import type { TaskState } from './Task';
import type { TaskRequest } from './TaskRequest';

/** Of one user's tasks, at most this many of each type run at a time (the rest stay Queued). */
export const PER_USER = 3;

/** Workers of a process that one owner's tasks never fill: kept for the other owners' (a slow node holding one owner's copies holds nobody else's). */
export const RESERVED_FOR_OTHERS = 1;

/** How many of a process's `concurrency` workers one owner's tasks may hold at once, whatever their types. */
export function ownerShare(concurrency: number): number {
  return Math.max(1, concurrency - RESERVED_FOR_OTHERS);
}

/**
 * Whether a task of `task.owner` may start beside those `running` in this process: fewer than
 * PER_USER of its owner's of its type, and fewer than the owner's share of the process's workers.
 */
export function mayStart(task: RunningTask, running: Iterable<RunningTask>, concurrency: number): boolean {
  let ofOwner = 0;
  let ofType = 0;
  for (const other of running) {
    if (other.owner !== task.owner) continue;
    ofOwner += 1;
    if (other.type === task.type) ofType += 1;
  }
  return ofType < PER_USER && ofOwner < ownerShare(concurrency);
}

/**
 * The queue as a worker reads it: the oldest ACTIVE tasks, at most `perOwner` of each owner's of a
 * type (room beside PER_USER for the ones waiting out a failure), so that one owner's many
 * waiting tasks never fill the rows another owner's task would be in.
 */
export const QUEUE_READ = { total: 1000, perOwner: 20 };

/**
 * How long a task waits before its next attempt, after `faults` faults: `retryMs` (5 s by default)
 * doubled each fault, at most 60 times it (5 min), so that tasks waiting on a file for a day do not
 * write an attempt's events every few seconds.
 */
export function retryDelay(options: { retryMs?: number }, faults: number): number {
  const base = options.retryMs ?? 5000;
  return Math.min(base * 2 ** Math.min(Math.max(faults - 1, 0), 10), base * 60);
}

/** A task a worker runs now: whose, and of which type. */
export interface RunningTask {
  owner: string;
  type: TaskRequest['type'];
}

/**
 * Where tasks are shared between processes (Postgres), one of an owner's PER_USER slots of a
 * type taken for `task` (each slot a lock `trySlot` takes: its release, or null where another
 * holds it), once mayStart allows it beside those `running` here; null where none is free.
 */
export async function takeOwnerSlot<R>(task: RunningTask, running: Iterable<RunningTask>, concurrency: number, trySlot: (slot: number) => Promise<R | null>): Promise<R | null> {
  if (!mayStart(task, running, concurrency)) return null;
  for (let slot = 0; slot < PER_USER; slot += 1) {
    const taken = await trySlot(slot);
    if (taken !== null) return taken;
  }
  return null;
}

/**
 * The tasks of `queue` (as QUEUE_READ reads it, oldest first) to start now, at most `free` of them,
 * in the order to start them: none running already or waiting out a failure (`notBefore` later
 * than `now`), each allowed by mayStart beside those running and chosen (of a process of
 * `concurrency` workers), and every owner in turn (the one running fewest first, then the oldest
 * request).
 */
export function tasksToStart(queue: readonly TaskState[], running: ReadonlyMap<string, RunningTask>, free: number, notBefore: (taskId: string) => number, now: number, concurrency: number): TaskState[] {
  const started = new Map(running);
  const runningOf = (owner: string) => [...started.values()].filter((r) => r.owner === owner).length;
  let eligible = queue.filter((task) => !running.has(task.id) && notBefore(task.id) <= now);
  const chosen: TaskState[] = [];
  while (chosen.length < free) {
    eligible = eligible.filter((task) => mayStart({ owner: task.ownerId, type: task.request.type }, started.values(), concurrency));
    if (eligible.length === 0) break;
    let next = eligible[0]!;
    for (const task of eligible) if (runningOf(task.ownerId) < runningOf(next.ownerId)) next = task;
    eligible = eligible.filter((task) => task !== next);
    chosen.push(next);
    started.set(next.id, { owner: next.ownerId, type: next.request.type });
  }
  return chosen;
}
