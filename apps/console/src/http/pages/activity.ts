import type { Json } from '../api';
import { ApiError } from '../api';
import { listed, submitted, text, type PageContext, type PageGroup } from './kit';

const PAGE_SIZE = 25;

/** A task's progress as people read it. */
function progressOf(task: Json): string {
  const files = Number(task.files ?? 0);
  const done = Number(task.files_transferred ?? 0) + Number(task.files_skipped ?? 0);
  if (task.type === 'DELETE') return `${Number(task.files ?? 0)} files, ${Number(task.directories ?? 0)} folders deleted`;
  return files === 0 ? 'No files yet' : `${done} of ${files} files, ${Number(task.bytes_transferred ?? 0).toLocaleString('en')} bytes`;
}

const statusOf = (task: Json): string => (task.status === 'ACTIVE' && task.nice_status && task.nice_status !== 'Queued' ? `Active: ${String(task.nice_status)}` : task.nice_status === 'Queued' ? 'Queued' : String(task.status));

const summary = (task: Json) => ({
  id: String(task.task_id),
  label: task.label ? String(task.label) : null,
  type: task.type === 'DELETE' ? 'Delete' : 'Transfer',
  status: statusOf(task),
  finished: task.status === 'SUCCEEDED' || task.status === 'FAILED',
  failed: task.status === 'FAILED',
  progress: progressOf(task),
  from: String(task.source_endpoint_display_name ?? task.source_endpoint_id ?? ''),
  to: task.destination_endpoint_id ? String(task.destination_endpoint_display_name ?? task.destination_endpoint_id) : null,
  requested: String(task.request_time ?? ''),
  completed: task.completion_time ? String(task.completion_time) : null,
  fatal: (task.fatal_error as { code?: string; description?: string } | null)?.description ?? null,
});

async function showTask(page: PageContext, taskId: string, errors: Record<string, string>, status?: number): Promise<void> {
  let task: Json;
  try {
    task = await page.api.transfer('GET', `/task/${taskId}`);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    return page.render('gone.njk', { title: 'No such task', message: 'There is no task of yours with this id.' }, 404);
  }
  const { items: events, error: eventsError } = await listed(async () => ((await page.api.transfer('GET', `/task/${taskId}/event_list`, undefined, { limit: 50 })).DATA as Json[]).map((e) => ({ code: String(e.code), details: String(e.details ?? ''), time: String(e.time ?? ''), isError: e.is_error === true })), []);
  // the list of files moved is known once the task has ended (the API refuses it before)
  const finished = task.status === 'SUCCEEDED' || task.status === 'FAILED';
  const { items: files } = await listed(async () => {
    if (!finished) return [];
    const moved = (await page.api.transfer('GET', `/task/${taskId}/successful_transfers`, undefined, { limit: 100 })).DATA as Json[];
    return moved.map((f) => ({ from: String(f.source_path), to: String(f.destination_path) }));
  }, []);
  const { items: skipped } = await listed(async () => ((await page.api.transfer('GET', `/task/${taskId}/skipped_errors`, undefined, { limit: 100 })).DATA as Json[]).map((f) => ({ path: String(f.source_path), code: String(f.error_code) })), []);
  const view = summary(task);
  page.render('task.njk', { title: `${view.label ?? 'Task'} · Activity`, task: view, events, eventsError, files, skipped, errors }, status);
}

/** Activity: the person's tasks with status and progress, a task's events and files, and cancel. */
export const activityPages: PageGroup = (router, { signedIn, form }) => {
  router.get('/activity', async (req, res) => {
    const page = signedIn(req, res);
    if (!page) return;
    const offset = Math.min(Math.max(Number.parseInt(text(req.query.offset), 10) || 0, 0), 100_000);
    const { items, error } = await listed(async () => {
      const answer = await page.api.transfer('GET', '/task_list', undefined, { limit: PAGE_SIZE, offset });
      return { tasks: (answer.DATA as Json[]).map(summary), total: Number(answer.total ?? 0) };
    }, { tasks: [] as ReturnType<typeof summary>[], total: 0 });
    const link = (at: number) => `/console/activity${at > 0 ? `?offset=${at}` : ''}`;
    page.render('activity.njk', {
      title: 'Activity',
      tasks: items.tasks,
      error,
      range: items.tasks.length ? { from: offset + 1, to: offset + items.tasks.length, total: items.total } : null,
      previous: offset > 0 ? link(Math.max(0, offset - PAGE_SIZE)) : null,
      next: offset + items.tasks.length < items.total ? link(offset + PAGE_SIZE) : null,
    });
  });

  router.get('/activity/:taskId', async (req, res) => {
    const page = signedIn(req, res);
    if (!page) return;
    await showTask(page, String(req.params.taskId), {});
  });

  router.post('/activity/:taskId/cancel', ...form, async (req, res) => {
    const page = signedIn(req, res);
    if (!page) return;
    const taskId = String(req.params.taskId);
    await submitted(
      async () => {
        const answer = await page.api.transfer('POST', `/task/${taskId}/cancel`);
        page.redirect(`/activity/${taskId}`, answer.code === 'TaskComplete' ? 'The task had already finished.' : 'Task canceled.');
      },
      (errors) => showTask(page, taskId, errors, 400),
    );
  });
};
