import { writeFileSync } from 'node:fs';
import { NodeNotReachableError } from '@xfer/core';
import { testBackends } from '@xfer/persistence/testing';
import { startApiAndNodes, type ApiAndNodes } from './apiAndNodes';

/** What a storage call of the API's to the node answers, once `settled` says so, within 12 s (a node asks the API every 5 s). */
async function within(call: () => Promise<unknown>, settled: (outcome: string) => boolean): Promise<string> {
  let outcome = '';
  for (const deadline = Date.now() + 12_000; Date.now() < deadline; ) {
    outcome = await call().then(
      () => 'served',
      (error: unknown) => (error instanceof NodeNotReachableError ? error.message : String(error)),
    );
    if (settled(outcome)) return outcome;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return outcome;
}

describe.each(testBackends())("a running node's standing with the API ($name)", (backend) => {
  let world: ApiAndNodes;
  beforeEach(async () => {
    world = await startApiAndNodes(backend, { '/a.txt': 'a' });
  });
  afterEach(() => world.close());

  const statOnLab = () => world.runtime.storages.storageOf(world.lab.id, { type: 'node', node: world.nodes[0]!.id, root: world.lab.root })!.stat('/a.txt');

  it('F8: a new secret stops the running node within seconds (it serves nothing: the API, HTTPS access); the new secret in its file starts it again', async () => {
    expect(await statOnLab()).toMatchObject({ size: 1 });
    const { secret } = await world.runtime.services.admin.nodes.newSecret(world.nodes[0]!.id);
    expect(await within(statOnLab, (outcome) => outcome !== 'served')).toContain('it answered 503: This node serves nothing: the API no longer knows this node with its secret');
    const file = await world.fetch(`${await world.httpsServer(world.lab.id)}/a.txt`, { token: await world.httpsToken('alice', world.lab.id) });
    expect(file.statusCode).toBe(503);
    await file.body.dump();
    writeFileSync(world.nodes[0]!.secretFile, `${secret}\n`);
    expect(await within(statOnLab, (outcome) => outcome === 'served')).toBe('served');
  });

  it('F8: a removed node stops within seconds', async () => {
    expect(await statOnLab()).toMatchObject({ size: 1 });
    await world.runtime.services.admin.nodes.removeNode(world.nodes[0]!.id);
    // the API's client still knows the node's address for a few seconds: the node itself refuses what it is sent
    const answered = await within(statOnLab, (outcome) => outcome !== 'served');
    expect(answered).toMatch(/This node serves nothing|no such node is registered/);
    const file = await world.fetch(`${world.nodes[0]!.server.url}/${world.lab.id}/a.txt`, { token: await world.httpsToken('alice', world.lab.id) });
    expect(file.statusCode).toBe(503);
    await file.body.dump();
  });
});
