import { Glob } from '../shared/glob';
import type { TaskState, TaskStatus } from './Task';

/** Times from `from` to `to`, both included; either may be open (null). */
export interface TimeRange {
  from: Date | null;
  to: Date | null;
}

/**
 * Which labels a task list keeps: those equal to one of `is` or matching one of `like` (when
 * either names any), and equal to none of `isNot` nor matching any of `notLike`. `like` patterns
 * take `*` for any run of characters and ignore case; a task without a label matches none.
 */
export interface LabelFilter {
  is: readonly string[];
  isNot: readonly string[];
  like: readonly string[];
  notLike: readonly string[];
}

/** What a task list keeps; every part given must hold. */
export interface TaskFilter {
  ids?: readonly string[];
  status?: readonly TaskStatus[];
  type?: readonly ('TRANSFER' | 'DELETE')[];
  label?: LabelFilter;
  requested?: TimeRange;
  completed?: TimeRange;
}

/** The fields a task list is ordered by; a missing value (no label, not completed) comes before any other. */
export type TaskOrderField = 'id' | 'type' | 'status' | 'label' | 'requestTime' | 'completionTime' | 'deadline';
export type TaskOrder = readonly { field: TaskOrderField; descending: boolean }[];

export interface TaskQuery extends TaskFilter {
  /** Field after field; newest request first when none, and always the id last. */
  order?: TaskOrder;
  limit: number;
  offset: number;
}

/** Whether a task is kept by a filter: the rule the repositories' queries follow. */
export function matchesTaskFilter(task: TaskState, filter: TaskFilter): boolean {
  const within = (time: Date | null, range: TimeRange | undefined) => range === undefined || (time !== null && (range.from === null || time >= range.from) && (range.to === null || time <= range.to));
  return (
    (!filter.ids || filter.ids.includes(task.id)) &&
    (!filter.status || filter.status.includes(task.status)) &&
    (!filter.type || filter.type.includes(task.request.type)) &&
    (!filter.label || labelKept(task.request.label, filter.label)) &&
    within(task.requestTime, filter.requested) &&
    within(task.completionTime, filter.completed)
  );
}

function labelKept(label: string | null, filter: LabelFilter): boolean {
  const like = (pattern: string) => label !== null && Glob.compile(pattern, { classes: false, ignoreCase: true }).matches(label);
  const wanted = filter.is.length + filter.like.length === 0 || (label !== null && filter.is.includes(label)) || filter.like.some(like);
  return wanted && !(label !== null && filter.isNot.includes(label)) && !filter.notLike.some(like);
}

/** Orders two tasks as a list asks (then newest request first, then by id): the rule the repositories' queries follow. */
export function compareTasks(a: TaskState, b: TaskState, order: TaskOrder = []): number {
  const value = (task: TaskState, field: TaskOrderField): string | number | null => {
    switch (field) {
      case 'id':
        return task.id;
      case 'type':
        return task.request.type;
      case 'status':
        return task.status;
      case 'label':
        return task.request.label;
      case 'requestTime':
        return task.requestTime.getTime();
      case 'completionTime':
        return task.completionTime?.getTime() ?? null;
      default:
        return task.deadline.getTime();
    }
  };
  for (const { field, descending } of [...order, { field: 'requestTime' as const, descending: true }, { field: 'id' as const, descending: true }]) {
    const [x, y] = [value(a, field), value(b, field)];
    if (x === y) continue;
    const ascending = x === null ? -1 : y === null ? 1 : x < y ? -1 : 1;
    return descending ? -ascending : ascending;
  }
  return 0;
}
