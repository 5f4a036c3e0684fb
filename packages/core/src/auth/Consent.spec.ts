import { consentForest, ConsentSet, type ConsentState } from './Consent';

const T0 = new Date('2026-01-01T00:00:00Z');
const T1 = new Date('2026-01-02T00:00:00Z');

/** A consent of `client` for `scope` whose dependency path is `path` (the last id is its own). */
function consent(path: number[], client = 'portal', scope = `scope-${path.at(-1)}`, status: ConsentState['status'] = 'approved'): ConsentState {
  return { id: path.at(-1)!, client_id: client, scope_id: scope, identity_id: 'alice', dependency_path: path, created: T0, updated: T0, last_used: null, status };
}

describe('ConsentSet', () => {
  // portal: 1 > 2 > 3 and 4; other client: 5 > 6; a revoked root of portal: 7
  const consents = () => [consent([1]), consent([1, 2]), consent([1, 2, 3]), consent([4]), consent([5], 'other'), consent([5, 6], 'other'), consent([7], 'portal', 'scope-7', 'revoked')];

  it('counts only approved root consents of the client asked about, by scope', () => {
    const set = new ConsentSet(consents());
    expect(set.approvedRoots('portal')).toEqual(new Map([['scope-1', 1], ['scope-4', 4]]));
    expect(set.approvedRoots('other')).toEqual(new Map([['scope-5', 5]]));
    expect(set.approvedRoots('nobody')).toEqual(new Map());
  });

  it('revoking a consent revokes what depends on it, and nothing above or beside it', () => {
    const set = new ConsentSet(consents());
    set.revoke(2, T1);
    expect(set.changes().map((c) => [c.id, c.status, c.updated])).toEqual([
      [2, 'revoked', T1],
      [3, 'revoked', T1],
    ]);
    expect(set.approvedRoots('portal').get('scope-1')).toBe(1);
  });

  it('rescinding a client revokes its approved trees only, and says how many roots went', () => {
    const set = new ConsentSet(consents());
    expect(set.rescind('portal', T1)).toBe(2);
    expect(set.changes().map((c) => c.id).sort()).toEqual([1, 2, 3, 4]);
    expect(set.approvedRoots('portal').size).toBe(0);
    expect(set.approvedRoots('other').size).toBe(1);
    expect(new ConsentSet(consents()).rescind('nobody', T1)).toBe(0);
  });

  it('a token issued under a root stamps the root and its dependents as used, not other trees', () => {
    const set = new ConsentSet(consents());
    set.markUsed([1], T1);
    expect(set.changes().map((c) => [c.id, c.last_used])).toEqual([
      [1, T1],
      [2, T1],
      [3, T1],
    ]);
  });

  it('changes nothing it was handed, and reports each changed consent once with every change', () => {
    const given = consents();
    const set = new ConsentSet(given);
    set.markUsed([1], T1);
    set.revoke(1, T1);
    expect(given[0]).toEqual(consent([1]));
    expect(set.changes()).toHaveLength(3);
    expect(set.changes()[0]).toMatchObject({ id: 1, status: 'revoked', last_used: T1 });
    expect(new ConsentSet(given).changes()).toEqual([]);
  });
});

describe('consents at any depth', () => {
  it('finds the approved consents of a client at every depth, and the approved ones directly beneath one', () => {
    const set = new ConsentSet([consent([1]), consent([1, 2]), consent([1, 2, 3]), consent([1, 8], 'portal', 'scope-8', 'revoked'), consent([1, 9]), consent([5], 'other')]);
    expect([...set.approvedAnyDepth('portal').entries()]).toEqual([
      ['scope-1', 1],
      ['scope-2', 2],
      ['scope-3', 3],
      ['scope-9', 9],
    ]);
    expect(set.approvedDependentsOf(1).map((c) => c.id)).toEqual([2, 9]);
    expect(set.approvedDependentsOf(2).map((c) => c.id)).toEqual([3]);
    expect(set.approvedDependentsOf(3)).toEqual([]);
    expect(set.approvedDependentsOf(5)).toEqual([]);
  });
});

describe('consentForest', () => {
  it('builds the trees that dependency paths describe, ordered by id, an orphan as a root', () => {
    const forest = consentForest([consent([4]), consent([1, 3]), consent([1]), consent([1, 2]), consent([9, 10]), consent([1, 2, 5])]);
    const shape = (nodes: ReturnType<typeof consentForest<ConsentState>>): unknown[] => nodes.map((n) => [n.consent.id, shape(n.children)]);
    expect(shape(forest)).toEqual([
      [1, [[2, [[5, []]]], [3, []]]],
      [4, []],
      [10, []],
    ]);
  });
});
