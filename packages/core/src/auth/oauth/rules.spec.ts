import { InMemoryUnitOfWork } from '../../testing/InMemoryUnitOfWork';
import { knownScopes, parseScopeParameter, requestedScopes, requiredDependencies } from './rules';

describe('the shared rules of the OAuth grants: scope parameters', () => {
  it('reads the hosted grammar, and answers invalid_scope naming what cannot be read', () => {
    expect(parseScopeParameter('a b[c *d[e]] a')).toEqual(['a', 'b']);
    for (const broken of ['a[', 'a]', 'a[]']) {
      expect(() => requestedScopes(broken)).toThrow(expect.objectContaining({ code: 'invalid_scope', message: expect.stringMatching(/^Invalid scope string at character \d+: /) }));
    }
    expect(requestedScopes(undefined)).toEqual([]);
  });

  it('requires the dependencies a scope string names at every depth, but those marked optional (*) and theirs', () => {
    expect(requiredDependencies(requestedScopes('a[b[c *d[e]] *f[g]] h[i]'))).toEqual(['b', 'c', 'i']);
    expect(requiredDependencies(requestedScopes('a b'))).toEqual([]);
  });

  it('knows a request only when every scope and every required dependency it names is registered', async () => {
    const uow = new InMemoryUnitOfWork();
    const now = new Date('2026-01-01T00:00:00Z');
    for (const name of ['urn:x:scope:a.example.org:root', 'urn:x:scope:b.example.org:below']) {
      await uow.repositories.scopes.add({ id: name, name, description: name, resource_server: name.split(':')[3], dependent_scope_ids: [], created_at: now });
    }
    const known = await knownScopes(uow.repositories, 'urn:x:scope:a.example.org:root[urn:x:scope:b.example.org:below] urn:x:scope:a.example.org:root');
    expect(known.map((s) => s.name)).toEqual(['urn:x:scope:a.example.org:root']);
    await expect(knownScopes(uow.repositories, 'urn:x:scope:a.example.org:root[urn:x:scope:c.example.org:nowhere]')).rejects.toMatchObject({ code: 'invalid_scope', message: "Unknown scope 'urn:x:scope:c.example.org:nowhere'" });
    // an optional dependency need not exist
    await expect(knownScopes(uow.repositories, 'urn:x:scope:a.example.org:root[*urn:x:scope:c.example.org:nowhere]')).resolves.toHaveLength(1);
    await expect(knownScopes(uow.repositories, 'urn:x:scope:z.example.org:unknown')).rejects.toMatchObject({ code: 'invalid_scope', message: "Unknown scope 'urn:x:scope:z.example.org:unknown'" });
    await expect(knownScopes(uow.repositories, ' ')).rejects.toMatchObject({ code: 'invalid_scope', message: 'scope is required' });
  });
});
