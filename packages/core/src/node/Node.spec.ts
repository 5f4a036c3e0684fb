import { hashToken } from '../auth/AccessToken';
import { NodeAdministration } from '../admin/NodeAdministration';
import { ConflictError } from '../shared/errors';
import { FixedClock, SequentialIdGenerator } from '../testing/fakes';
import { InMemoryUnitOfWork } from '../testing/InMemoryUnitOfWork';
import { checkNodeName, checkNodeUrl, NodeNotFoundError } from './Node';

describe('data nodes as an operator registers them', () => {
  it('takes an https URL with a host, a port and a path prefix, without a trailing slash, and refuses anything else naming the field', () => {
    expect(checkNodeUrl('https://Lab.Example.org:8443/xfer/')).toBe('https://lab.example.org:8443/xfer');
    expect(checkNodeUrl('https://127.0.0.1:9443')).toBe('https://127.0.0.1:9443');
    for (const [url, reason] of [
      ['http://lab.example.org', 'an https:// URL: nodes serve TLS only'],
      ['lab.example.org', "'lab.example.org' is not a URL"],
      ['https://user:pw@lab.example.org', 'a scheme, a host, a port and a path prefix only'],
      ['https://lab.example.org/#x', 'a scheme, a host, a port and a path prefix only'],
      ['https://lab.example.org/?', 'a scheme, a host, a port and a path prefix only'],
    ]) {
      expect(() => checkNodeUrl(url!)).toThrow(expect.objectContaining({ field: 'url', reason }));
    }
    expect(checkNodeName('lab-1.site_a')).toBe('lab-1.site_a');
    for (const name of ['', '-lab', 'a b', 'x'.repeat(64), 'lab/1']) expect(() => checkNodeName(name)).toThrow(expect.objectContaining({ field: 'name' }));
  });

  it('registers a node with a secret shown once and kept as its hash; a new secret replaces it; a name is one node, case ignored', async () => {
    const uow = new InMemoryUnitOfWork();
    const nodes = new NodeAdministration(uow, new FixedClock(new Date('2026-11-28T00:00:00Z')), new SequentialIdGenerator());
    const { node, secret } = await nodes.addNode({ name: 'Lab', url: 'https://lab.example.org' });
    expect(node).toEqual({ id: expect.any(String), name: 'Lab', url: 'https://lab.example.org', createdAt: new Date('2026-11-28T00:00:00Z'), lastContact: null });
    expect((await uow.repositories.nodes.findById(node.id))?.secretHash).toBe(hashToken(secret));
    await expect(nodes.addNode({ name: 'lab', url: 'https://other.example.org' })).rejects.toThrow(ConflictError);
    const renewed = await nodes.newSecret('LAB');
    expect(renewed.secret).not.toBe(secret);
    expect((await uow.repositories.nodes.findById(node.id))?.secretHash).toBe(hashToken(renewed.secret));
    expect(await nodes.listNodes()).toEqual([node]);
    expect(await nodes.removeNode(node.id)).toEqual(node);
    await expect(nodes.removeNode(node.id)).rejects.toThrow(NodeNotFoundError);
    await expect(nodes.newSecret('lab')).rejects.toThrow("No such node 'lab'");
  });

  it('knows a node by its id and its secret alone, and records its contact', async () => {
    const uow = new InMemoryUnitOfWork();
    const clock = new FixedClock(new Date('2026-11-28T00:00:00Z'));
    const nodes = new NodeAdministration(uow, clock, new SequentialIdGenerator());
    const { node, secret } = await nodes.addNode({ name: 'lab', url: 'https://lab.example.org' });
    clock.advance(3600);
    expect(await nodes.authenticate(node.id.toUpperCase(), secret)).toEqual({ ...node, lastContact: new Date('2026-11-28T01:00:00Z') });
    expect((await nodes.listNodes())[0]?.lastContact).toEqual(new Date('2026-11-28T01:00:00Z'));
    expect(await nodes.authenticate(node.id, `${secret}x`)).toBeNull();
    expect(await nodes.authenticate('lab', secret)).toBeNull();
    expect(await nodes.authenticate('00000000-0000-4000-8000-000000000000', secret)).toBeNull();
    const { secret: renewed } = await nodes.newSecret('lab');
    expect(await nodes.authenticate(node.id, secret)).toBeNull();
    expect(await nodes.authenticate(node.id, renewed)).not.toBeNull();
  });
});
