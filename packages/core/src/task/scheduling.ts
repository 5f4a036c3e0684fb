import type { TaskState } from './Task';
import type { TaskRequest } from './TaskRequest';

/** Of one user's tasks, at most this many of each type run at a time (the rest stay Queued). */
export const PER_USER = 3;

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
 * The tasks of `queue` (as QUEUE_READ reads it, oldest first) to start now, at most `free` of them,
 * in the order to start them: none running already or waiting out a failure (`notBefore` later
 * than `now`), at most PER_USER of an owner's tasks of a type running, and every owner in turn
 * (the one running fewest first, then the oldest request).
 */
export function tasksToStart(queue: readonly TaskState[], running: ReadonlyMap<string, RunningTask>, free: number, notBefore: (taskId: string) => number, now: number): TaskState[] {
  const started = new Map(running);
  const runningOf = (owner: string, type?: RunningTask['type']) => [...started.values()].filter((r) => r.owner === owner && (type === undefined || r.type === type)).length;
  let eligible = queue.filter((task) => !running.has(task.id) && notBefore(task.id) <= now);
  const chosen: TaskState[] = [];
  while (chosen.length < free) {
    eligible = eligible.filter((task) => runningOf(task.ownerId, task.request.type) < PER_USER);
    if (eligible.length === 0) break;
    let next = eligible[0]!;
    for (const task of eligible) if (runningOf(task.ownerId) < runningOf(next.ownerId)) next = task;
    eligible = eligible.filter((task) => task !== next);
    chosen.push(next);
    started.set(next.id, { owner: next.ownerId, type: next.request.type });
  }
  return chosen;
}
