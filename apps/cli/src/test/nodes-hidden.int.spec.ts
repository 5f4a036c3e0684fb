import { readdirSync } from 'node:fs';
import { transfer } from '@globus/sdk';
import { httpsScopeOf } from '@xfer/core';
import { testBackends } from '@xfer/persistence/testing';
import { request } from 'undici';
import { inside, startHiddenNodes, type HiddenNode, type HiddenNodes } from './hiddenNodes';

/**
 * The API (this process) and two data nodes, each its own `xfer node serve` process whose storage
 * is a tmpfs mounted in a mount namespace of its own: the files are where the API process cannot
 * see them (its view of the directory is empty), and reached only through the nodes.
 */
describe.each(testBackends())('data nodes whose storage the API cannot see ($name)', (backend) => {
  let world: HiddenNodes;
  beforeEach(async () => {
    world = await startHiddenNodes(backend);
  });
  afterEach(() => world.close());

  const put = async (endpoint: string, path: string, body: string, token: string) => {
    const server = ((await (await transfer.endpoint.get(endpoint, world.as(world.alice))).json()) as { https_server: string }).https_server;
    const answer = await request(`${server}${path}`, { dispatcher: world.agent, method: 'PUT', headers: { authorization: `Bearer ${token}` }, body });
    await answer.body.dump();
    return answer.statusCode;
  };

  it('writes over HTTPS, lists, stats, makes, renames and deletes through the API, on files only the node sees', async () => {
    const [one] = world.nodes as [HiddenNode, HiddenNode];
    const [lab] = world.endpoints as [string, string];
    const token = (await world.runtime.services.admin.tokens.issueToken('alice', null, httpsScopeOf(lab))).token;
    expect(await put(lab, '/data/a.txt', 'written over HTTPS', token)).toBe(200);
    expect(await put(lab, '/data/old/b.txt', 'b', token)).toBe(200);
    expect(inside(one, 'cat', `${one.storage}/data/a.txt`)).toBe('written over HTTPS');
    // this process (the API's) sees an empty directory where the node keeps them
    expect(readdirSync(one.storage)).toEqual([]);

    const listing = (await (await transfer.fileOperations.ls(lab, { query: { path: '/data/' }, ...world.as(world.alice) })).json()) as { DATA: { name: string; size: number }[] };
    expect(listing.DATA.map((entry) => [entry.name, entry.size]).sort()).toEqual([['a.txt', 18], ['old', expect.any(Number)]]);
    expect(await (await transfer.fileOperations.stat(lab, { query: { path: '/data/a.txt' }, ...world.as(world.alice) })).json()).toMatchObject({ name: 'a.txt', type: 'file', size: 18 });
    expect((await transfer.fileOperations.mkdir(lab, { payload: { path: '/data/new' }, ...world.as(world.alice) })).status).toBe(200);
    expect((await transfer.fileOperations.rename(lab, { payload: { old_path: '/data/a.txt', new_path: '/data/new/a.txt' }, ...world.as(world.alice) })).status).toBe(200);
    expect(inside(one, 'find', `${one.storage}/data`, '-type', 'f').split('\n').filter(Boolean).sort()).toEqual([`${one.storage}/data/new/a.txt`, `${one.storage}/data/old/b.txt`]);

    const submission = ((await (await transfer.taskSubmission.submissionId(world.as(world.alice))).json()) as { value: string }).value;
    const submitted = await transfer.taskSubmission.submitDelete({ payload: { DATA_TYPE: 'delete', submission_id: submission, endpoint: lab, recursive: true, DATA: [{ DATA_TYPE: 'delete_item', path: '/data/old' }] } as never, ...world.as(world.alice) });
    const taskId = ((await submitted.json()) as { task_id: string }).task_id;
    let task: { status: string } = { status: 'ACTIVE' };
    for (let i = 0; i < 400 && task.status === 'ACTIVE'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      task = (await (await transfer.task.get(taskId, world.as(world.alice))).json()) as typeof task;
    }
    expect(task.status).toBe('SUCCEEDED');
    expect(inside(one, 'ls', `${one.storage}/data`).split('\n').filter(Boolean)).toEqual(['new']);
  });

  it("keeps each node's files to itself, and a node that is down is ExternalError.NodeNotReachable while the other answers", async () => {
    const [one, two] = world.nodes as [HiddenNode, HiddenNode];
    const [lab, archive] = world.endpoints as [string, string];
    expect(await put(archive, '/kept.txt', 'on two', (await world.runtime.services.admin.tokens.issueToken('alice', null, httpsScopeOf(archive))).token)).toBe(200);
    // a token for the lab's scope writes nothing on the archive
    expect(await put(archive, '/planted.txt', 'x', (await world.runtime.services.admin.tokens.issueToken('alice', null, httpsScopeOf(lab))).token)).toBe(403);
    expect(inside(two, 'ls', two.storage).trim()).toBe('kept.txt');
    expect(inside(one, 'ls', one.storage).trim()).toBe('');
    await world.kill(two);
    const down = await transfer.fileOperations.ls(archive, { query: { path: '/' }, ...world.as(world.alice) });
    expect([down.status, ((await down.json()) as { code: string }).code]).toEqual([409, 'ExternalError.NodeNotReachable']);
    expect((await transfer.fileOperations.ls(lab, { query: { path: '/' }, ...world.as(world.alice) })).status).toBe(200);
  });
});
