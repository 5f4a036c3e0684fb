import { transferRequest } from '@xfer/core/testing';
import { hidden, signInOverHttp, startConsoleWorld, type ConsoleWorld } from './harness';

/** The Activity pages: a person's tasks, a task's events and files, cancel. */
describe("the web console's Activity pages", () => {
  let world: ConsoleWorld;
  let done: string;
  let waiting: string;

  beforeAll(async () => {
    world = await startConsoleWorld();
    const alice = await world.services.authentication.principalOf((await world.services.admin.identities.listIdentities()).find((i) => i.username === 'alice')!.id);
    const lab = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Lab', personal: false })).id;
    await world.services.admin.endpoints.setStorage(lab, { type: 'memory' });
    world.storages.treeOf(lab).replace({ '/data/run1.csv': 't,v\n0,1\n', '/in/': null });
    const submit = async (source: string, label: string) =>
      (await world.services.tasks.submit(alice, transferRequest({ submission_id: world.services.tasks.submissionId(), source_endpoint: lab, destination_endpoint: lab, label, items: [{ source_path: source, destination_path: '/in/copy.csv' }] }))).task.id;
    done = await submit('/data/run1.csv', 'Copy <b>run</b>');
    waiting = await submit('/data/later.csv', 'Waits for a file');
    await world.services.taskRunner.run(done);
    await world.services.taskRunner.run(waiting);
  });
  afterAll(() => world.close());

  it("lists a person's tasks newest first with status and progress, and opens one with its events and files", async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    const page = await agent.get('/console/activity');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<a href="/console/activity">Activity</a>');
    expect(page.text.indexOf('Waits for a file')).toBeLessThan(page.text.indexOf('Copy &lt;b&gt;run&lt;/b&gt;'));
    expect(page.text).toContain('Active: FILE_NOT_FOUND');
    expect(page.text).toContain('1 of 1 files, 8 bytes');
    expect(page.text).toContain('Tasks 1–2 of 2');
    const detail = await agent.get(`/console/activity/${done}`);
    expect(detail.text).toContain('SUCCEEDED');
    expect(detail.text).toContain('/data/run1.csv → /in/copy.csv');
    expect(detail.text).not.toContain('Cancel task');
    expect(detail.text.match(/<strong>(\w+)<\/strong>/g)).toEqual(['<strong>SUCCEEDED</strong>', '<strong>STARTED</strong>', '<strong>SUBMITTED</strong>']);
  });

  it('cancels an unfinished task once, and says so', async () => {
    const { agent } = await signInOverHttp(world, 'alice');
    const detail = await agent.get(`/console/activity/${waiting}`);
    expect(detail.text).toContain('Cancel task');
    const canceled = await agent.post(`/console/activity/${waiting}/cancel`).type('form').send({ _csrf: hidden(detail.text, '_csrf') });
    expect({ status: canceled.status, location: canceled.headers.location }).toEqual({ status: 303, location: `/console/activity/${waiting}` });
    const after = await agent.get(canceled.headers.location);
    expect(after.text).toContain('Task canceled.');
    expect(after.text).toContain('FAILED');
    expect(after.text).toContain('canceled');
    const again = await agent.post(`/console/activity/${waiting}/cancel`).type('form').send({ _csrf: hidden(detail.text, '_csrf') });
    expect((await agent.get(again.headers.location)).text).toContain('The task had already finished.');
  });

  it("shows nobody else's tasks: bob has none, and alice's is no page of his", async () => {
    const { agent } = await signInOverHttp(world, 'bob');
    expect((await agent.get('/console/activity')).text).toContain('No tasks yet.');
    const other = await agent.get(`/console/activity/${done}`);
    expect(other.status).toBe(404);
    expect(other.text).not.toContain('run1.csv');
    expect((await agent.get('/console/activity/not-a-task')).status).toBe(404);
  });
});
