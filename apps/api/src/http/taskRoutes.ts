import { BadRequestError, TaskCompleteError, type TaskService } from '@xfer/core';
import type { Request, Response, Router } from 'express';
import { principalOf } from './authenticate';
import { sendResult } from './results';
import { integer } from './v010/paging';
import { inWireNames, taskFieldName } from './v010/fieldNames';
import { decodeDeleteRequest, decodeTransferRequest } from './v010/taskRequests';
import { eventDocument, marker, skippedErrorDocument, successfulTransferDocument, taskDocument, taskListQuery } from './v010/tasks';
import { firstValue as first } from '@xfer/server-kit';

/**
 * Transfer and delete tasks at the hosted paths: submission ids, submit, list, read, relabel,
 * cancel, events, and the files a task moved or skipped.
 */
export function taskRoutes(router: Router, tasks: TaskService): Router {
  const username = (res: Response) => principalOf(res).primary.username;

  router.get('/submission_id', (_req, res) => {
    res.json({ DATA_TYPE: 'submission_id', value: tasks.submissionId() });
  });

  const submit = (kind: 'transfer' | 'delete') => async (req: Request, res: Response) => {
    const request = kind === 'transfer' ? decodeTransferRequest(req.body) : decodeDeleteRequest(req.body);
    const { task, duplicate } = await tasks.submit(principalOf(res), request).catch((error: unknown) => {
      throw inWireNames(error, taskFieldName);
    });
    sendResult(req, res, duplicate ? 200 : 202, {
      DATA_TYPE: `${kind}_result`,
      code: duplicate ? 'Duplicate' : 'Accepted',
      message: duplicate ? 'A task with this submission id was accepted before' : `The ${kind} has been accepted and a task has been created and queued for execution`,
      task_id: task.id,
      submission_id: task.request.submission_id,
      task_link: { DATA_TYPE: 'link', href: `/v0.10/task/${task.id}?format=json`, rel: 'related', resource: 'task', title: 'related task' },
    });
  };
  router.post('/transfer', submit('transfer'));
  router.post('/delete', submit('delete'));

  router.get('/task_list', async (req, res) => {
    const page = await tasks.list(principalOf(res), taskListQuery(req.query));
    res.json({ DATA_TYPE: 'task_list', length: page.tasks.length, limit: page.limit, offset: page.offset, total: page.total, DATA: page.tasks.map((t) => taskDocument(t, username(res))) });
  });

  router.get('/task/:id', async (req, res) => {
    res.json(taskDocument(await tasks.get(principalOf(res), req.params.id), username(res)));
  });

  router.put('/task/:id', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(body).find((key) => !['DATA_TYPE', 'label', 'deadline'].includes(key));
    if (unknown) throw new BadRequestError(`Invalid ${unknown.slice(0, 100)}: only label and deadline change`);
    const deadline = body.deadline === undefined ? undefined : new Date(Date.parse(String(body.deadline).replace(' ', 'T')));
    if (deadline && Number.isNaN(deadline.getTime())) throw new BadRequestError('Invalid deadline: an ISO 8601 date and time');
    if (body.label !== undefined && body.label !== null && typeof body.label !== 'string') throw new BadRequestError('Invalid label: text');
    await tasks.update(principalOf(res), req.params.id, { label: body.label as string | null | undefined, deadline });
    sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'Updated', message: 'Task updated successfully' });
  });

  router.post('/task/:id/cancel', async (req, res) => {
    try {
      await tasks.cancel(principalOf(res), req.params.id);
      sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'Canceled', message: 'The task has been cancelled successfully.' });
    } catch (error) {
      // canceling a finished task is no error: it says so, as the hosted service does
      if (!(error instanceof TaskCompleteError)) throw error;
      sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'TaskComplete', message: error.message });
    }
  });

  router.get('/task/:id/event_list', async (req, res) => {
    // the CLI sends filter= empty for all events
    const filter = first(req.query.filter) || undefined;
    if (filter !== undefined && filter !== 'is_error:1' && filter !== 'is_error:0') throw new BadRequestError(`Invalid filter '${filter.slice(0, 100)}': is_error:1`);
    const page = await tasks.events(principalOf(res), req.params.id, { errorsOnly: filter === 'is_error:1', limit: integer('limit', first(req.query.limit)), offset: integer('offset', first(req.query.offset)) });
    res.json({ DATA_TYPE: 'event_list', length: page.events.length, limit: page.limit, offset: page.offset, total: page.total, DATA: page.events.map(eventDocument) });
  });

  for (const [path, kind, dataType, document] of [
    ['successful_transfers', 'succeeded', 'successful_transfers', successfulTransferDocument],
    ['skipped_errors', 'skipped', 'skipped_errors', skippedErrorDocument],
  ] as const) {
    router.get(`/task/:id/${path}`, async (req, res) => {
      const page = await tasks.files(principalOf(res), req.params.id, kind, marker(req.query), integer('limit', first(req.query.limit)));
      res.json({ DATA_TYPE: dataType, marker: marker(req.query), next_marker: page.next, DATA: page.files.map(document) });
    });
  }

  // the endpoint manager's view: tasks on endpoints the caller administers or monitors, whoever submitted them
  router.get('/endpoint_manager/task_list', async (req, res) => {
    const page = await tasks.managedList(principalOf(res), taskListQuery(req.query));
    res.json({ DATA_TYPE: 'task_list', length: page.tasks.length, limit: page.limit, offset: page.offset, total: page.total, has_next_page: page.offset + page.tasks.length < page.total, last_key: null, DATA: page.tasks.map((t) => taskDocument(t, null)) });
  });

  router.get('/endpoint_manager/task/:id', async (req, res) => {
    res.json(taskDocument(await tasks.managedTask(principalOf(res), req.params.id), null));
  });

  router.post('/endpoint_manager/admin_cancel', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(body).find((key) => !['DATA_TYPE', 'task_id_list', 'message'].includes(key));
    if (unknown) throw new BadRequestError(`Invalid ${unknown.slice(0, 100)}: not a field of admin_cancel`);
    if (!Array.isArray(body.task_id_list) || !body.task_id_list.every((id) => typeof id === 'string')) throw new BadRequestError('Invalid task_id_list: a list of task ids');
    if (typeof body.message !== 'string' || body.message.trim() === '') throw new BadRequestError('Invalid message: why the tasks are canceled, shown to their owners');
    const ended = await tasks.adminCancel(principalOf(res), body.task_id_list as string[], body.message);
    res.status(202).json({ DATA_TYPE: 'admin_cancel', id: tasks.submissionId(), done: true, task_id_list: body.task_id_list, message: body.message, canceled: ended.map((t) => t.id) });
  });

  router.get('/task/:id/pause_info', async (req, res) => {
    const task = await tasks.get(principalOf(res), req.params.id);
    res.json({ DATA_TYPE: 'pause_info_limited', pause_rules: [], source_pause_message: task.isPaused ? task.niceStatus : null, source_pause_message_share: null, destination_pause_message: null, destination_pause_message_share: null });
  });

  return router;
}
