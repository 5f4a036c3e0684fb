import { symlinkSync } from 'node:fs';
import { transfer } from '@globus/sdk';
import { startTaskApi, TASK_CASES, type TaskApi } from './harness';

/** What a new user meets first with tasks (issue 57), on every database and storage. */
describe.each(TASK_CASES)('tasks as users meet them ($name)', ({ backend, storage }) => {
  let world: TaskApi;

  beforeEach(async () => {
    world = await startTaskApi(backend, storage, { '/data/a.txt': 'alpha', '/data/tree/x.csv': 'x', '/data/tree/deeper/y.csv': 'yy' });
  });
  afterEach(() => world.close());

  const submit = async (body: Record<string, unknown>, token = world.alice) =>
    (await world.api.as(token).post('/transfer', { submission_id: await world.submissionId(token), source_endpoint: world.lab, destination_endpoint: world.archive, ...body })).body as { task_id: string };

  it('makes the missing folders of a destination, for a file as for a folder, and the task succeeds', async () => {
    const single = await submit({ DATA: [{ source_path: '/data/a.txt', destination_path: '/results/2026/a.txt' }] });
    expect(await world.finished(world.alice, single.task_id)).toMatchObject({ status: 'SUCCEEDED', files_transferred: 1, faults: 0 });
    expect(world.content(world.archive, '/results/2026/a.txt')).toBe('alpha');
    const tree = await submit({ DATA: [{ source_path: '/data/tree/', destination_path: '/new/place/tree/', recursive: true }] });
    expect(await world.finished(world.alice, tree.task_id)).toMatchObject({ status: 'SUCCEEDED', files_transferred: 2 });
    expect([world.content(world.archive, '/new/place/tree/x.csv'), world.content(world.archive, '/new/place/tree/deeper/y.csv')]).toEqual(['x', 'yy']);
    // a file where a folder should be: the task waits, and nothing is overwritten
    const blocked = await submit({ DATA: [{ source_path: '/data/a.txt', destination_path: '/results/2026/a.txt/inner.txt' }] });
    expect(await world.until(world.alice, blocked.task_id, (task) => task.nice_status !== null && task.nice_status !== 'Queued')).toMatchObject({ status: 'ACTIVE', nice_status: 'NOT_A_DIRECTORY' });
    expect(world.content(world.archive, '/results/2026/a.txt')).toBe('alpha');
    await world.api.as(world.alice).post(`/task/${blocked.task_id}/cancel`, {});
  });

  it('skips a missing source with skip_source_errors and ends', async () => {
    const task = await submit({ skip_source_errors: true, DATA: [{ source_path: '/data/nope.txt', destination_path: '/made/nope.txt' }, { source_path: '/data/a.txt', destination_path: '/made/a.txt' }] });
    expect(await world.finished(world.alice, task.task_id)).toMatchObject({ status: 'SUCCEEDED', subtasks_skipped_errors: 1, files_transferred: 1 });
    const skipped = (await world.api.as(world.alice).get(`/task/${task.task_id}/skipped_errors`)).body.DATA;
    expect(skipped).toEqual([expect.objectContaining({ source_path: '/data/nope.txt', error_code: 'FILE_NOT_FOUND' })]);
  });

  it('refuses what the hosted service refuses: the same paths while they are in flight (409), the files of an unfinished task (400), an unknown task (404)', async () => {
    // a missing source without skip_source_errors: the task waits, ACTIVE
    const paths = { DATA: [{ source_path: '/data/later.txt', destination_path: '/w/later.txt' }, { source_path: '/data/a.txt', destination_path: '/w/a.txt' }] };
    const waiting = await submit(paths);
    await world.until(world.alice, waiting.task_id, (task) => task.nice_status === 'FILE_NOT_FOUND');
    const again = await world.api.as(world.alice).post('/transfer', { submission_id: await world.submissionId(world.alice), source_endpoint: world.lab, destination_endpoint: world.archive, DATA: [...paths.DATA].reverse() });
    expect({ status: again.status, code: again.body.code, message: again.body.message }).toEqual({ status: 409, code: 'Conflict', message: 'A transfer with identical paths has not yet completed' });
    // another destination, or another user, is no conflict
    const elsewhere = await submit({ DATA: [{ source_path: '/data/a.txt', destination_path: '/w/other.txt' }] });
    expect(elsewhere.task_id).toEqual(expect.any(String));
    const files = await world.api.as(world.alice).get(`/task/${waiting.task_id}/successful_transfers`);
    expect({ status: files.status, code: files.body.code, message: files.body.message }).toEqual({ status: 400, code: 'ClientError.BadRequest', message: `Task '${waiting.task_id}' is still in progress, successful transfers are not yet available` });
    await world.api.as(world.alice).post(`/task/${waiting.task_id}/cancel`, {});
    // once it has ended: the same paths go again, and its files are listed
    expect((await world.api.as(world.alice).get(`/task/${waiting.task_id}/successful_transfers`)).status).toBe(200);
    const rerun = await world.api.as(world.alice).post('/transfer', { submission_id: await world.submissionId(world.alice), source_endpoint: world.lab, destination_endpoint: world.archive, ...paths });
    expect(rerun.status).toBe(202);
    await world.api.as(world.alice).post(`/task/${rerun.body.task_id}/cancel`, {});
    for (const id of ['99999999-9999-4999-8999-999999999999', waiting.task_id]) {
      const unknown = await world.api.as(id === waiting.task_id ? world.bob : world.alice).get(`/task/${id}`);
      expect({ status: unknown.status, code: unknown.body.code, message: unknown.body.message }).toEqual({ status: 404, code: 'ClientError.NotFound', message: `No task found with id '${id}'` });
    }
  });

  it('fails a delete of a path that is not there at once (FILE_NOT_FOUND), and skips it with ignore_missing', async () => {
    const remove = async (body: Record<string, unknown>) =>
      (await world.api.as(world.alice).post('/delete', { DATA_TYPE: 'delete', submission_id: await world.submissionId(world.alice), endpoint: world.lab, ...body })).body as { task_id: string };
    const missing = await remove({ DATA: [{ DATA_TYPE: 'delete_item', path: '/data/nope.txt' }] });
    expect(await world.finished(world.alice, missing.task_id)).toMatchObject({ status: 'FAILED', fatal_error: { code: 'FILE_NOT_FOUND', description: 'file not found' }, faults: 1, subtasks_failed: 1, nice_status: null });
    const events = (await world.api.as(world.alice).get(`/task/${missing.task_id}/event_list`)).body.DATA as { code: string; details: string }[];
    expect(events[0]).toMatchObject({ code: 'FAILED', details: expect.stringContaining('/data/nope.txt') });
    const ignored = await remove({ ignore_missing: true, DATA: [{ DATA_TYPE: 'delete_item', path: '/data/nope.txt' }, { DATA_TYPE: 'delete_item', path: '/data/a.txt' }] });
    expect(await world.finished(world.alice, ignored.task_id)).toMatchObject({ status: 'SUCCEEDED', fatal_error: null });
    expect(world.content(world.lab, '/data/a.txt')).toBeNull();
  });

  it('lists tasks by label (exact, pattern, and their negations), id, times and order, as the CLI and the SDK ask', async () => {
    const copy = await submit({ label: 'copy data', DATA: [{ source_path: '/data/a.txt', destination_path: '/c/a.txt' }] });
    const other = await submit({ label: 'Nightly backup', DATA: [{ source_path: '/data/a.txt', destination_path: '/n/a.txt' }] });
    for (const id of [copy.task_id, other.task_id]) await world.finished(world.alice, id);
    const listed = async (query: string) => {
      const res = await world.api.as(world.alice).get(`/task_list?${query}`);
      expect(res.status).toBe(200);
      return (res.body.DATA as { task_id: string }[]).map((t) => t.task_id);
    };
    // the SDK's own call, with a filter of two clauses
    const viaSdk = await (await transfer.task.getAll({ query: { filter: 'status:SUCCEEDED/label:copy data' }, ...world.sdk(world.alice) })).json();
    expect(viaSdk.DATA.map((t: { task_id: string }) => t.task_id)).toEqual([copy.task_id]);
    // `globus task list --filter-label 'COPY*'` (inexact by default) and --exact
    expect(await listed(`filter=${encodeURIComponent('type:TRANSFER,DELETE/label:~COPY*')}&orderby=${encodeURIComponent('request_time DESC')}`)).toEqual([copy.task_id]);
    expect(await listed(`filter=${encodeURIComponent('label:=copy data')}`)).toEqual([copy.task_id]);
    expect(await listed(`filter=${encodeURIComponent('label:=COPY DATA')}`)).toEqual([]);
    expect(await listed(`filter=${encodeURIComponent('label:!copy data')}`)).toEqual([other.task_id]);
    expect(await listed(`filter=${encodeURIComponent('label:!~*backup')}`)).toEqual([copy.task_id]);
    expect(await listed(`filter=task_id:${other.task_id.toUpperCase()}`)).toEqual([other.task_id]);
    expect(await listed('orderby=label ASC')).toEqual([other.task_id, copy.task_id]);
    expect(await listed(`orderby=request_time%20ASC&filter=${encodeURIComponent('request_time:2020-01-01 00:00:00,')}`)).toEqual([copy.task_id, other.task_id]);
    expect(await listed(`filter=${encodeURIComponent('completion_time:,2020-01-01 00:00:00')}`)).toEqual([]);
    for (const [query, message] of [
      ['filter=label', "Invalid filter 'label': <field>:<values>, at most 100 values"],
      ['filter=task_id:nope', "Invalid filter 'task_id:nope': task_id:<task ids>"],
      ['filter=request_time:soon,', "Invalid filter 'request_time:soon,': request_time:<from>,<to>, each a date and time such as 2026-05-01 00:00:00"],
      ['filter=request_time:2026-01-01', "Invalid filter 'request_time:2026-01-01': request_time:<from>,<to> (either may be empty)"],
      ['orderby=owner ASC', "Invalid orderby 'owner ASC': a field (task_id, type, status, label, request_time, completion_time, deadline) and ASC or DESC"],
      ['orderby=label UP', "Invalid orderby 'label UP': a field (task_id, type, status, label, request_time, completion_time, deadline) and ASC or DESC"],
    ]) {
      const res = await world.api.as(world.alice).get(`/task_list?${query}`);
      expect({ query, status: res.status, message: res.body.message }).toEqual({ query, status: 400, message });
    }
  });
});

describe.each(TASK_CASES.filter((c) => c.storage === 'posix'))('links given as items ($name)', ({ backend, storage }) => {
  let world: TaskApi;

  beforeEach(async () => {
    world = await startTaskApi(backend, storage, { '/data/a.txt': 'alpha', '/data/tree/x.csv': 'x' });
  });
  afterEach(() => world.close());

  const submit = async (body: Record<string, unknown>) => (await world.api.as(world.alice).post('/transfer', { submission_id: await world.submissionId(world.alice), source_endpoint: world.lab, destination_endpoint: world.archive, ...body })).body as { task_id: string };

  it('follows a source given as an item that is a link inside the root, and no other link', async () => {
    const root = world.rootOf(world.lab)!;
    symlinkSync(`${root}/data/a.txt`, `${root}/data/a-link.txt`);
    symlinkSync(`${root}/data/tree`, `${root}/data/tree-link`);
    symlinkSync(`${root}/data/a.txt`, `${root}/data/tree/inner-link.txt`);
    const task = await submit({ DATA: [{ source_path: '/data/a-link.txt', destination_path: '/l/a.txt' }, { source_path: '/data/tree-link/', destination_path: '/l/tree/', recursive: true }] });
    expect(await world.finished(world.alice, task.task_id)).toMatchObject({ status: 'SUCCEEDED', files_transferred: 2, symlinks: 1 });
    expect([world.content(world.archive, '/l/a.txt'), world.content(world.archive, '/l/tree/x.csv'), world.content(world.archive, '/l/tree/inner-link.txt')]).toEqual(['alpha', 'x', null]);
  });
});
