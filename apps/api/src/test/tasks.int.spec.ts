import { transfer } from '@globus/sdk';
import { startTaskApi, TASK_CASES, type Api, type TaskApi } from './harness';

/** The fields of the SDK's task_list fixture: a task document has every one. */
const TASK_FIELDS = [
  'bytes_checksummed', 'bytes_transferred', 'canceled_by_admin', 'canceled_by_admin_message', 'command', 'completion_time', 'deadline', 'delete_destination_extra',
  'destination_endpoint', 'destination_endpoint_display_name', 'destination_endpoint_id', 'destination_local_user', 'destination_local_user_status', 'directories', 'effective_bytes_per_second', 'encrypt_data', 'fail_on_quota_errors',
  'fatal_error', 'faults', 'files', 'files_skipped', 'files_transferred', 'filter_rules', 'history_deleted', 'is_ok', 'is_paused', 'label', 'nice_status', 'nice_status_details',
  'nice_status_expires_in', 'nice_status_short_description', 'owner_id', 'preserve_timestamp', 'recursive_symlinks', 'request_time', 'skip_source_errors', 'source_endpoint',
  'source_endpoint_display_name', 'source_endpoint_id', 'source_local_user', 'source_local_user_status', 'status', 'subtasks_canceled', 'subtasks_expired', 'subtasks_failed', 'subtasks_pending', 'subtasks_retrying',
  'subtasks_skipped_errors', 'subtasks_succeeded', 'subtasks_total', 'symlinks', 'sync_level', 'task_id', 'type', 'username', 'verify_checksum',
];

describe.each(TASK_CASES)('transfer and delete tasks ($name)', ({ backend, storage }) => {
  let world: TaskApi;
  let api: Api;
  let alice: string;
  let bob: string;
  let lab: string;
  let archive: string;
  const as = (token: string) => world.sdk(token);
  const content = (endpointId: string, path: string) => world.content(endpointId, path);
  const finished = (token: string, taskId: string) => world.finished(token, taskId);

  beforeEach(async () => {
    world = await startTaskApi(backend, storage, { '/data/run1.csv': 't,v\n0,1\n', '/data/run2.csv': 'xx', '/data/sub/deep.txt': 'deep', '/in/': null });
    ({ api, alice, bob, lab, archive } = world);
  });

  afterEach(() => world.close());

  it('submits a transfer through the SDK, runs it, and shows the hosted task document, events and files', async () => {
    const submission = await (await transfer.taskSubmission.submissionId(as(alice))).json();
    expect(submission).toEqual({ DATA_TYPE: 'submission_id', value: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const payload = {
      submission_id: submission.value,
      source_endpoint: lab,
      destination_endpoint: archive,
      label: 'Nightly',
      verify_checksum: true,
      DATA: [
        { DATA_TYPE: 'transfer_item' as const, source_path: '/data/run1.csv', destination_path: '/in/run1.csv' },
        { DATA_TYPE: 'transfer_item' as const, source_path: '/data/sub/', destination_path: '/in/sub/', recursive: true },
      ],
    };
    const response = await transfer.taskSubmission.submitTransfer({ payload, ...as(alice) });
    expect(response.status).toBe(202);
    const accepted = (await response.json()) as unknown as Record<string, string>;
    expect(accepted).toMatchObject({ DATA_TYPE: 'transfer_result', code: 'Accepted', submission_id: submission.value, task_id: expect.any(String), request_id: expect.any(String), resource: '/transfer', task_link: { href: `/v0.10/task/${accepted.task_id}?format=json` } });
    const again = await transfer.taskSubmission.submitTransfer({ payload, ...as(alice) });
    expect([again.status, (await again.json()).code, accepted.task_id]).toEqual([200, 'Duplicate', accepted.task_id]);

    const task = await finished(alice, accepted.task_id);
    expect(Object.keys(task).filter((k) => k !== 'DATA_TYPE').sort()).toEqual([...TASK_FIELDS].sort());
    expect(task).toMatchObject({ DATA_TYPE: 'task', type: 'TRANSFER', status: 'SUCCEEDED', label: 'Nightly', files: 2, files_transferred: 2, directories: 1, bytes_transferred: 12, bytes_checksummed: 12, subtasks_succeeded: 2, source_endpoint_display_name: 'Lab', destination_endpoint_display_name: 'Archive', verify_checksum: true, username: 'alice', fatal_error: null });
    expect(String(task.completion_time)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    expect([content(archive, '/in/run1.csv'), content(archive, '/in/sub/deep.txt')]).toEqual(['t,v\n0,1\n', 'deep']);

    const events = await (await transfer.task.getEventList(accepted.task_id, as(alice))).json();
    expect(events.DATA.map((e: { code: string }) => e.code)).toEqual(['SUCCEEDED', 'STARTED', 'SUBMITTED']);
    expect((await api.as(alice).get(`/task/${accepted.task_id}/event_list?filter=`)).body.total).toBe(3);
    expect((await api.as(alice).get(`/task/${accepted.task_id}/event_list?filter=code:X`)).body.message).toBe("Invalid filter 'code:X': is_error:1");
    expect(events.DATA[0]).toEqual({ DATA_TYPE: 'event', code: 'SUCCEEDED', description: 'succeeded', details: expect.any(String), is_error: false, time: expect.any(String) });
    const files = await (await transfer.task.getSuccessfulTransfers(accepted.task_id, as(alice))).json();
    expect(files).toEqual({ DATA_TYPE: 'successful_transfers', marker: 0, next_marker: null, DATA: [{ DATA_TYPE: 'successful_transfer', source_path: '/data/run1.csv', destination_path: '/in/run1.csv' }, { DATA_TYPE: 'successful_transfer', source_path: '/data/sub/deep.txt', destination_path: '/in/sub/deep.txt' }] });
    const page = (await api.as(alice).get(`/task/${accepted.task_id}/successful_transfers?limit=1`)).body;
    expect([page.DATA.length, page.next_marker]).toEqual([1, 1]);
    expect((await api.as(alice).get(`/task/${accepted.task_id}/successful_transfers?marker=1`)).body.DATA).toHaveLength(1);

    const list = await (await transfer.task.getAll({ query: { filter: 'status:SUCCEEDED/type:TRANSFER' }, ...as(alice) })).json();
    expect(list).toMatchObject({ DATA_TYPE: 'task_list', total: 1, length: 1, offset: 0, DATA: [{ task_id: accepted.task_id }] });
    expect((await api.as(alice).get('/task_list?filter=status:ACTIVE')).body.total).toBe(0);
    expect((await api.as(alice).get('/task_list?filter=owner:me')).body).toMatchObject({ code: 'BadRequest', message: expect.stringContaining("Invalid filter 'owner:me'") });
    expect((await api.as(alice).post(`/task/${accepted.task_id}/cancel`, {})).body).toMatchObject({ code: 'TaskComplete' });
  });

  it('records what it skipped, deletes, and answers the hosted errors', async () => {
    const id = async () => (await api.as(alice).get('/submission_id')).body.value as string;
    const skipping = (await api.as(alice).post('/transfer', { submission_id: await id(), source_endpoint: lab, destination_endpoint: archive, skip_source_errors: true, DATA: [{ source_path: '/data/gone.csv', destination_path: '/in/gone.csv' }, { source_path: '/data/run2.csv', destination_path: '/in/run2.csv' }] })).body;
    expect(await finished(alice, skipping.task_id)).toMatchObject({ status: 'SUCCEEDED', subtasks_skipped_errors: 1, files_transferred: 1 });
    expect((await api.as(alice).get(`/task/${skipping.task_id}/skipped_errors`)).body).toMatchObject({ DATA_TYPE: 'skipped_errors', next_marker: null, DATA: [{ DATA_TYPE: 'skipped_error', source_path: '/data/gone.csv', error_code: 'FILE_NOT_FOUND', is_directory: false }] });

    const deleting = (await api.as(alice).post('/delete', { DATA_TYPE: 'delete', submission_id: await id(), endpoint: lab, recursive: true, DATA: [{ DATA_TYPE: 'delete_item', path: '/data/sub/' }] }));
    expect([deleting.status, deleting.body.DATA_TYPE, deleting.body.code]).toEqual([202, 'delete_result', 'Accepted']);
    expect(await finished(alice, deleting.body.task_id)).toMatchObject({ type: 'DELETE', status: 'SUCCEEDED', files: 1, directories: 1, source_endpoint_id: lab, destination_endpoint_id: null });
    expect(content(lab, '/data/sub/deep.txt')).toBeNull();

    const none = await api.as(alice).post('/transfer', { submission_id: await id(), source_endpoint: lab, destination_endpoint: archive, DATA: [] });
    expect([none.status, none.body.code]).toEqual([400, 'ClientError.BadRequest.NoTransferItems']);
    const unknown = await api.as(alice).post('/transfer', { submission_id: await id(), source_endpoint: lab, destination_endpoint: archive, shiny: true, DATA: [{ source_path: '/a', destination_path: '/b' }] });
    expect([unknown.status, unknown.body.message]).toEqual([400, 'Invalid shiny: not a field of this document']);
    expect((await api.as(bob).get(`/task/${skipping.task_id}`)).body).toMatchObject({ code: 'ClientError.NotFound' });
    expect((await api.as(bob).post('/transfer', { submission_id: await id(), source_endpoint: lab, destination_endpoint: archive, DATA: [{ source_path: '/a', destination_path: '/b' }] })).status).toBe(403);
  });

  it("shows a task to the monitors of its endpoints and lets their activity managers cancel it, with a message", async () => {
    await api.world.subscriptionFor('alice');
    const managed = (await api.as(alice).post('/endpoint', { display_name: 'Managed lab', subscription_id: 'DEFAULT', DATA: [{ hostname: 'm.example.org' }] })).body.id as string;
    await api.world.services.admin.endpoints.setStorage(managed, { type: 'memory' });
    const { token: carol, id: carolId } = await api.world.user('carol');
    const bobId = (await api.world.services.admin.identities.listIdentities()).find((i) => i.username === 'bob')!.id;
    expect((await api.as(alice).post(`/endpoint/${managed}/role`, { principal_type: 'identity', principal: bobId, role: 'activity_monitor' })).status).toBe(201);
    expect((await api.as(alice).post(`/endpoint/${managed}/role`, { principal_type: 'identity', principal: carolId, role: 'activity_manager' })).status).toBe(201);
    const submitted = (await api.as(alice).post('/transfer', { submission_id: (await api.as(alice).get('/submission_id')).body.value, source_endpoint: managed, destination_endpoint: archive, DATA: [{ source_path: '/waiting.csv', destination_path: '/in/w.csv' }] })).body;
    const listed = (await api.as(bob).get('/endpoint_manager/task_list')).body;
    expect(listed).toMatchObject({ DATA_TYPE: 'task_list', total: 1, has_next_page: false, DATA: [{ task_id: submitted.task_id, source_endpoint_id: managed }] });
    expect((await api.as(bob).get(`/endpoint_manager/task/${submitted.task_id}`)).body).toMatchObject({ task_id: submitted.task_id });
    expect((await api.as(alice).get('/endpoint_manager/task_list')).body.total).toBe(1);
    expect((await api.as(carol).get('/task_list')).body.total).toBe(0);
    const refused = await api.as(bob).post('/endpoint_manager/admin_cancel', { task_id_list: [submitted.task_id], message: 'disk swap' });
    expect([refused.status, refused.body.code]).toEqual([403, 'PermissionDenied']);
    expect((await api.as(carol).post('/endpoint_manager/admin_cancel', { task_id_list: [submitted.task_id] })).status).toBe(400);
    const canceled = await api.as(carol).post('/endpoint_manager/admin_cancel', { DATA_TYPE: 'admin_cancel', task_id_list: [submitted.task_id], message: 'disk swap' });
    expect([canceled.status, canceled.body.DATA_TYPE, canceled.body.canceled]).toEqual([202, 'admin_cancel', [submitted.task_id]]);
    expect((await api.as(alice).get(`/task/${submitted.task_id}`)).body).toMatchObject({ status: 'FAILED', canceled_by_admin: 'SOURCE', canceled_by_admin_message: 'disk swap', fatal_error: { code: 'CANCELED' } });
    const stranger = (await api.world.user('dave')).token;
    expect((await api.as(stranger).get(`/endpoint_manager/task/${submitted.task_id}`)).body.code).toBe('ClientError.NotFound');
    expect((await api.as(stranger).post('/endpoint_manager/admin_cancel', { task_id_list: [submitted.task_id], message: 'x' })).body.code).toBe('ClientError.NotFound');
  });

  it('pauses under a pause rule and resumes when it is removed; waits with PERMISSION_DENIED, ENDPOINT_NOT_CONNECTED or FILE_NOT_FOUND where it may not go', async () => {
    const id = async (token = alice) => world.submissionId(token);
    const until = world.until;
    await api.world.subscriptionFor('alice');
    const managed = (await api.as(alice).post('/endpoint', { display_name: 'Managed', subscription_id: 'DEFAULT', DATA: [{ hostname: 'm.example.org' }] })).body.id as string;
    await api.world.services.admin.endpoints.setStorage(managed, { type: 'memory' });
    const rule = (await api.as(alice).post('/endpoint_manager/pause_rule', { DATA_TYPE: 'pause_rule', endpoint_id: managed, message: 'Disk swap', pause_ls: false, pause_mkdir: false, pause_rename: false, pause_task_delete: false, pause_task_transfer_write: true, pause_task_transfer_read: false })).body;
    const paused = (await api.as(alice).post('/transfer', { submission_id: await id(), source_endpoint: lab, destination_endpoint: managed, DATA: [{ source_path: '/data/run1.csv', destination_path: '/run1.csv' }] })).body;
    expect(await until(alice, paused.task_id, (t) => t.nice_status === 'PAUSED')).toMatchObject({ status: 'ACTIVE', is_paused: true });
    expect((await api.as(alice).get(`/task/${paused.task_id}/pause_info`)).status).toBe(200);
    expect((await api.as(alice).delete(`/endpoint_manager/pause_rule/${rule.id}`)).status).toBe(200);
    expect(await finished(alice, paused.task_id)).toMatchObject({ status: 'SUCCEEDED', is_paused: false, files_transferred: 1 });
    expect(api.runtime.storages.treeOf(managed).files()['/run1.csv']).toBe('t,v\n0,1\n');

    // a reader of a share may read it, not write into it
    const share = (await api.as(alice).post('/shared_endpoint', { display_name: 'Shared data', host_endpoint: managed, host_path: '/' })).body.id as string;
    const bobId = (await api.world.services.admin.identities.listIdentities()).find((i) => i.username === 'bob')!.id;
    expect((await api.as(alice).post(`/endpoint/${share}/access`, { DATA_TYPE: 'access', principal_type: 'identity', principal: bobId, path: '/', permissions: 'r' })).status).toBe(201);
    const bobs = (await api.as(bob).post('/endpoint', { display_name: 'Bob', DATA: [{ hostname: 'b.example.org' }] })).body.id as string;
    await api.world.services.admin.endpoints.setStorage(bobs, { type: 'memory' });
    const reading = (await api.as(bob).post('/transfer', { submission_id: await id(bob), source_endpoint: share, destination_endpoint: bobs, DATA: [{ source_path: '/run1.csv', destination_path: '/mine.csv' }] })).body;
    expect(await finished(bob, reading.task_id)).toMatchObject({ status: 'SUCCEEDED' });
    const writing = (await api.as(bob).post('/transfer', { submission_id: await id(bob), source_endpoint: bobs, destination_endpoint: share, DATA: [{ source_path: '/mine.csv', destination_path: '/theirs.csv' }] })).body;
    expect(await until(bob, writing.task_id, (t) => t.nice_status !== null && t.nice_status !== 'Queued')).toMatchObject({ status: 'ACTIVE', nice_status: 'PERMISSION_DENIED' });
    expect(api.runtime.storages.treeOf(managed).files()['/theirs.csv']).toBeUndefined();

    // no storage; a path that climbs out of the root stays inside it
    const bare = (await api.as(alice).post('/endpoint', { display_name: 'Bare', DATA: [{ hostname: 'bare.example.org' }] })).body.id as string;
    const unconnected = (await api.as(alice).post('/transfer', { submission_id: await id(), source_endpoint: lab, destination_endpoint: bare, DATA: [{ source_path: '/data/run1.csv', destination_path: '/x.csv' }] })).body;
    expect(await until(alice, unconnected.task_id, (t) => t.nice_status !== null && t.nice_status !== 'Queued')).toMatchObject({ nice_status: 'ENDPOINT_NOT_CONNECTED' });
    const climbing = await api.as(alice).post('/transfer', { submission_id: await id(), source_endpoint: lab, destination_endpoint: archive, DATA: [{ source_path: '/data/../../../etc/hostname', destination_path: '/in/host.txt' }] });
    expect([climbing.status, climbing.body.code, climbing.body.message]).toEqual([400, 'InvalidPath', "Invalid DATA[0].source_path: it climbs out of the endpoint's root"]);
    // from the home, resolved where it runs (the home is the endpoint's): never above the root either
    const fromHome = (await api.as(alice).post('/transfer', { submission_id: await id(), source_endpoint: lab, destination_endpoint: archive, DATA: [{ source_path: `/~/${'../'.repeat(20)}etc/hostname`, destination_path: '/in/host.txt' }] })).body;
    expect(await until(alice, fromHome.task_id, (t) => t.nice_status !== null && t.nice_status !== 'Queued')).toMatchObject({ status: 'ACTIVE', nice_status: 'InvalidPath' });
    expect(content(archive, '/in/host.txt')).toBeNull();
    for (const taskId of [writing.task_id]) await api.as(bob).post(`/task/${taskId}/cancel`, {});
    for (const taskId of [unconnected.task_id, fromHome.task_id]) await api.as(alice).post(`/task/${taskId}/cancel`, {});
  });

  it('waits on a missing source, changes its label, and cancels it', async () => {
    const submitted = (await api.as(alice).post('/transfer', { submission_id: (await api.as(alice).get('/submission_id')).body.value, source_endpoint: lab, destination_endpoint: archive, DATA: [{ source_path: '/data/later.csv', destination_path: '/in/later.csv' }] })).body;
    let task: Record<string, unknown> = {};
    for (let i = 0; i < 200 && task.nice_status !== 'FILE_NOT_FOUND'; i += 1) {
      task = (await api.as(alice).get(`/task/${submitted.task_id}`)).body;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(task).toMatchObject({ status: 'ACTIVE', nice_status: 'FILE_NOT_FOUND', is_ok: false });
    expect((await api.as(alice).get(`/task/${submitted.task_id}/event_list?filter=is_error:1`)).body.DATA[0]).toMatchObject({ code: 'FILE_NOT_FOUND', is_error: true });
    // in_use: the endpoints of the caller's ACTIVE tasks, to the caller only
    const inUse = async (token: string, id: string) => (await api.as(token).get(`/endpoint/${id}`)).body.in_use;
    expect([await inUse(alice, lab), await inUse(alice, archive)]).toEqual([true, true]);
    expect((await api.as(alice).get('/endpoint_search?filter_scope=my-endpoints')).body.DATA.map((e: { in_use: boolean }) => e.in_use)).toEqual([true, true]);
    await api.as(alice).put(`/endpoint/${archive}`, { public: true });
    expect(await inUse(bob, archive)).toBe(false);
    const sentBack = (await api.as(alice).get(`/endpoint/${lab}`)).body;
    expect((await api.as(alice).put(`/endpoint/${lab}`, { description: 'Busy', in_use: sentBack.in_use })).status).toBe(200);
    expect((await api.as(alice).put(`/task/${submitted.task_id}`, { DATA_TYPE: 'task', label: 'Renamed' })).body).toMatchObject({ code: 'Updated' });
    expect((await api.as(alice).put(`/task/${submitted.task_id}`, { status: 'SUCCEEDED' })).body.message).toBe('Invalid status: only label and deadline change');
    const canceled = await transfer.task.cancel(submitted.task_id, as(alice));
    expect(await canceled.json()).toMatchObject({ DATA_TYPE: 'result', code: 'Canceled' });
    expect(await finished(alice, submitted.task_id)).toMatchObject({ status: 'FAILED', label: 'Renamed', fatal_error: { code: 'CANCELED' }, subtasks_canceled: 1 });
    expect([await inUse(alice, lab), await inUse(alice, archive)]).toEqual([false, false]);
  });
});
