import { endpointsOf, isFinished, progressOf, type TaskEventState, type TaskFileState, type TaskState } from '../task/Task';
import type { TaskRepository } from '../task/TaskRepository';
import { compareTasks, matchesTaskFilter, type TaskQuery } from '../task/TaskQuery';

const copy = <T>(value: T): T => structuredClone(value);

/** What the in-memory task repository holds (part of the in-memory unit of work's store). */
export interface TaskMaps {
  tasks: Map<string, TaskState>;
  taskEvents: Map<string, TaskEventState[]>;
  taskFiles: Map<string, TaskFileState[]>;
}

export const emptyTaskMaps = (): TaskMaps => ({ tasks: new Map(), taskEvents: new Map(), taskFiles: new Map() });

/** Tasks and their events in memory: the test kit's adapter of the TaskRepository port. */
export class InMemoryTaskRepository implements TaskRepository {
  constructor(private readonly maps: () => TaskMaps = ((own) => () => own)(emptyTaskMaps())) {}

  private get tasks() {
    return this.maps().tasks;
  }

  private get events() {
    return this.maps().taskEvents;
  }

  private get files() {
    return this.maps().taskFiles;
  }

  async add(task: TaskState): Promise<void> {
    if (this.tasks.has(task.id)) throw new Error(`task ${task.id} exists`);
    this.tasks.set(task.id, copy(task));
  }

  async findById(id: string): Promise<TaskState | null> {
    const task = this.tasks.get(id);
    return task ? copy(task) : null;
  }

  async findBySubmission(ownerIds: readonly string[], submissionId: string): Promise<TaskState | null> {
    const task = [...this.tasks.values()].find((t) => ownerIds.includes(t.ownerId) && t.request.submission_id === submissionId);
    return task ? copy(task) : null;
  }

  async saveProgress(task: TaskState): Promise<boolean> {
    return this.changeUnfinished(task.id, progressOf(task));
  }

  async saveLabelAndDeadline(task: TaskState): Promise<boolean> {
    return this.changeUnfinished(task.id, { request: task.request, deadline: task.deadline });
  }

  private changeUnfinished(id: string, change: Partial<TaskState>): boolean {
    const stored = this.tasks.get(id);
    if (!stored || isFinished(stored)) return false;
    this.tasks.set(id, copy({ ...stored, ...change }));
    return true;
  }

  async activeEndpointIds(ownerIds: readonly string[]): Promise<string[]> {
    const active = [...this.tasks.values()].filter((t) => t.status === 'ACTIVE' && ownerIds.includes(t.ownerId));
    return [...new Set(active.flatMap((t) => Object.values(endpointsOf(t))))];
  }

  async listActive(limit: number, perOwner = limit): Promise<TaskState[]> {
    const taken = new Map<string, number>();
    const oldestFirst = [...this.tasks.values()].filter((t) => t.status === 'ACTIVE').sort((a, b) => a.requestTime.getTime() - b.requestTime.getTime() || (a.id < b.id ? -1 : 1));
    return oldestFirst
      .filter((t) => {
        const key = `${t.ownerId} ${t.request.type}`;
        taken.set(key, (taken.get(key) ?? 0) + 1);
        return taken.get(key)! <= perOwner;
      })
      .slice(0, limit)
      .map(copy);
  }


  async listForEndpoints(endpointIds: readonly string[], query: TaskQuery): Promise<{ tasks: TaskState[]; total: number }> {
    const matching = [...this.tasks.values()]
      .filter((t) => {
        const { source, destination } = endpointsOf(t);
        return (endpointIds.includes(source) || endpointIds.includes(destination)) && matchesTaskFilter(t, query);
      })
      .sort((a, b) => compareTasks(a, b, query.order));
    return { tasks: matching.slice(query.offset, query.offset + query.limit).map(copy), total: matching.length };
  }

  async listForOwners(ownerIds: readonly string[], query: TaskQuery): Promise<{ tasks: TaskState[]; total: number }> {
    const matching = [...this.tasks.values()]
      .filter((t) => ownerIds.includes(t.ownerId) && matchesTaskFilter(t, query))
      .sort((a, b) => compareTasks(a, b, query.order));
    return { tasks: matching.slice(query.offset, query.offset + query.limit).map(copy), total: matching.length };
  }

  async addEvent(event: Omit<TaskEventState, 'seq'>): Promise<TaskEventState> {
    const list = this.events.get(event.taskId) ?? [];
    const added = { ...copy(event), seq: list.length + 1 };
    list.push(added);
    this.events.set(event.taskId, list);
    return copy(added);
  }

  async listEvents(taskId: string, query: { errorsOnly: boolean; limit: number; offset: number }): Promise<{ events: TaskEventState[]; total: number }> {
    // newest first, as the hosted event_list
    const matching = [...(this.events.get(taskId) ?? [])].filter((e) => !query.errorsOnly || e.isError).reverse();
    return { events: matching.slice(query.offset, query.offset + query.limit).map(copy), total: matching.length };
  }

  async addFiles(files: readonly Omit<TaskFileState, 'seq'>[]): Promise<void> {
    for (const file of files) {
      const key = `${file.taskId} ${file.kind}`;
      const list = this.files.get(key) ?? [];
      list.push({ ...copy(file), seq: list.length + 1 });
      this.files.set(key, list);
    }
  }

  async listFiles(taskId: string, kind: TaskFileState['kind'], after: number, limit: number): Promise<TaskFileState[]> {
    return (this.files.get(`${taskId} ${kind}`) ?? []).filter((f) => f.seq > after).slice(0, limit).map(copy);
  }

  async clearFiles(taskId: string): Promise<void> {
    for (const kind of ['succeeded', 'skipped']) this.files.delete(`${taskId} ${kind}`);
  }
}
