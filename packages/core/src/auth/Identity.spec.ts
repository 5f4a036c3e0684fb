import { BadRequestError, ConflictError } from '../shared/errors';
import { IdentitySet, newIdentity, type IdentityState } from './Identity';

const T0 = new Date('2026-01-01T00:00:00Z');
const T1 = new Date('2026-01-02T00:00:00Z');
const T2 = new Date('2026-01-03T00:00:00Z');

const person = (username: string): IdentityState => newIdentity({ id: `id-${username}`, username, now: T0 });
const linked = (identity: IdentityState, setId: string, at: Date): IdentityState => ({ ...identity, set_id: setId, linked_at: at });

describe('IdentitySet', () => {
  it('linking moves every identity of the other set under this one, stamped with the link time', () => {
    const alice = person('alice');
    const work = person('alice-work');
    const lab = linked(person('alice-lab'), work.id, T0);
    const set = new IdentitySet([alice]);
    set.link(new IdentitySet([lab, work]), T1);
    expect(set.id).toBe(alice.id);
    expect(set.identities().map((i) => [i.username, i.set_id, i.linked_at])).toEqual([
      ['alice', alice.id, null],
      ['alice-work', alice.id, T1],
      ['alice-lab', alice.id, T1],
    ]);
    expect(set.changes().map((i) => i.username).sort()).toEqual(['alice-lab', 'alice-work']);
  });

  it('refuses to link a set with itself', () => {
    const alice = person('alice');
    const work = linked(person('alice-work'), alice.id, T0);
    expect(() => new IdentitySet([alice, work]).link(new IdentitySet([work, alice]), T1)).toThrow(ConflictError);
  });

  it('unlinking a linked identity gives it a set of its own and leaves the others as they were', () => {
    const alice = person('alice');
    const work = linked(person('alice-work'), alice.id, T1);
    const lab = linked(person('alice-lab'), alice.id, T2);
    const set = new IdentitySet([alice, work, lab]);
    set.unlink(work.id);
    expect(set.changes()).toEqual([{ ...work, set_id: work.id, linked_at: null }]);
    expect(set.identities().map((i) => i.username)).toEqual(['alice', 'alice-lab']);
  });

  it('unlinking the primary makes the first linked identity primary; the rest keep their link times', () => {
    const alice = person('alice');
    const work = linked(person('alice-work'), alice.id, T1);
    const lab = linked(person('alice-lab'), alice.id, T2);
    const set = new IdentitySet([lab, alice, work]);
    set.unlink(alice.id);
    const byName = new Map(set.changes().map((i) => [i.username, i]));
    expect(byName.get('alice')).toMatchObject({ set_id: alice.id, linked_at: null });
    expect(byName.get('alice-work')).toMatchObject({ set_id: work.id, linked_at: null });
    expect(byName.get('alice-lab')).toMatchObject({ set_id: work.id, linked_at: T2 });
    expect(set.id).toBe(work.id);
  });

  it('refuses to unlink an identity that is alone in its set, or not in it', () => {
    const alice = person('alice');
    expect(() => new IdentitySet([alice]).unlink(alice.id)).toThrow(/not linked to another identity/);
    expect(() => new IdentitySet([alice]).unlink('id-bob')).toThrow(BadRequestError);
    expect(() => new IdentitySet([])).toThrow(BadRequestError);
  });
});
