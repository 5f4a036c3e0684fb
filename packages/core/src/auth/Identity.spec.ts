import { BadRequestError, ConflictError } from '../shared/errors';
import { checkUsername, IdentitySet, identityDocument, identityProviderDisplayName, LOCAL_IDENTITY_PROVIDER, MAX_USERNAME, newIdentity, shortUsername, sortIdentitySet, type IdentityState } from './Identity';

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
    expect(() => new IdentitySet([alice]).unlink(alice.id)).toThrow("'alice' is not linked to another identity");
    expect(() => new IdentitySet([alice]).unlink('id-bob')).toThrow("Identity 'id-bob' is not in this set");
    expect(() => new IdentitySet([])).toThrow('An identity set has at least one identity');
  });

  it('unlinks one of two identities, leaving two sets of one', () => {
    const alice = person('alice');
    const set = new IdentitySet([alice, linked(person('alice-work'), alice.id, T1)]);
    set.unlink('id-alice-work');
    expect(set.identities().map((i) => i.username)).toEqual(['alice']);
  });

  it('names both usernames when asked to link a set with itself', () => {
    const alice = person('alice');
    const work = linked(person('alice-work'), alice.id, T0);
    expect(() => new IdentitySet([alice, work]).link(new IdentitySet([work, alice]), T1)).toThrow("'alice' and 'alice' are already linked");
  });
});

describe('identity values', () => {
  it('takes usernames of up to 64 characters, optionally @ a domain', () => {
    for (const ok of ['a', 'alice', 'alice.b_c+d-e', 'a'.repeat(64), 'alice@example.org', 'go@globusid.org', `a@${'d'.repeat(192)}`]) expect(checkUsername(ok)).toBe(ok);
    for (const bad of ['', '.alice', 'a'.repeat(65), 'alice@', 'alice@-example.org', 'alice@example.org-', 'al ice', 'alice@@example.org', `a@${'d'.repeat(193)}`]) {
      expect(() => checkUsername(bad)).toThrow(BadRequestError);
    }
    expect(() => checkUsername('al ice')).toThrow("Invalid username 'al ice': letters, digits and . _ + - , optionally followed by @domain");
  });

  it('takes at most 255 characters in all, however long its name and domain parts', () => {
    const longest = `${'a'.repeat(64)}@${'d'.repeat(190)}`;
    expect(longest).toHaveLength(MAX_USERNAME);
    expect(checkUsername(longest)).toBe(longest);
    const over = `${'a'.repeat(64)}@${'d'.repeat(191)}`;
    expect(() => checkUsername(over)).toThrow(new BadRequestError(`Invalid username '${'a'.repeat(40)}...': at most ${MAX_USERNAME} characters`));
  });

  it('shortens a username to its part before the @', () => {
    expect(shortUsername('go@globusid.org')).toBe('go');
    expect(shortUsername('alice')).toBe('alice');
    expect(shortUsername('@odd')).toBe('');
  });

  it('makes a used local login identity in a set of its own, checking every field', () => {
    const identity = newIdentity({ id: 'id-1', username: 'alice', name: 'Alice', email: 'alice@example.org', organization: 'Lab', now: T0 });
    expect(identity).toEqual({
      id: 'id-1',
      username: 'alice',
      name: 'Alice',
      email: 'alice@example.org',
      organization: 'Lab',
      identity_provider: LOCAL_IDENTITY_PROVIDER.id,
      identity_type: 'login',
      status: 'used',
      set_id: 'id-1',
      linked_at: null,
      created_at: T0,
      password_hash: null,
    });
    expect(newIdentity({ id: 'id-2', username: 'bob', now: T0 })).toMatchObject({ name: null, email: null, organization: null });
    expect(() => newIdentity({ id: 'x', username: 'bob', name: 'a\nb', now: T0 })).toThrow(/name/);
    expect(() => newIdentity({ id: 'x', username: 'bob', name: 'n'.repeat(257), now: T0 })).toThrow(/at most 256/);
    expect(() => newIdentity({ id: 'x', username: 'bob', email: 'not-an-address', now: T0 })).toThrow(/email/);
    expect(() => newIdentity({ id: 'x', username: 'bob', organization: 'o'.repeat(1025), now: T0 })).toThrow(/organization/);
    expect(() => newIdentity({ id: 'x', username: 'bob', organization: 'Reef\nLab', now: T0 })).toThrow('Invalid organization: must not contain new lines');
  });

  it("names this service's own provider, and any other by its id", () => {
    expect(identityProviderDisplayName(person('alice'))).toBe('xfer local accounts');
    expect(identityProviderDisplayName({ ...person('alice'), identity_provider: 'other-idp' })).toBe('other-idp');
  });

  it('shows an identity as the hosted service does, without its password hash or set', () => {
    const document = identityDocument({ ...person('alice'), password_hash: 'secret', email: 'a@example.org' });
    expect(document).toEqual({ id: 'id-alice', username: 'alice', name: null, email: 'a@example.org', organization: null, identity_provider: LOCAL_IDENTITY_PROVIDER.id, identity_type: 'login', status: 'used' });
  });

  it('orders a set: the primary first, then by link time', () => {
    const primary = person('alice');
    const late = linked(person('late'), primary.id, T2);
    const early = linked(person('early'), primary.id, T1);
    expect(sortIdentitySet([late, primary, early], primary.id).map((i) => i.username)).toEqual(['alice', 'early', 'late']);
    expect(sortIdentitySet([early, late, primary], primary.id).map((i) => i.username)).toEqual(['alice', 'early', 'late']);
    // the primary first whatever its own link time; an identity without one before those linked
    const relinked = { ...primary, linked_at: T2 };
    const unstamped = linked(person('unstamped'), primary.id, T0);
    unstamped.linked_at = null;
    expect(sortIdentitySet([late, early, relinked], primary.id).map((i) => i.username)).toEqual(['alice', 'early', 'late']);
    expect(sortIdentitySet([early, relinked, late], primary.id).map((i) => i.username)).toEqual(['alice', 'early', 'late']);
    for (const order of [[relinked, early, late], [relinked, late, early], [early, late, relinked], [late, relinked, early]]) {
      expect(sortIdentitySet(order, primary.id).map((i) => i.username)).toEqual(['alice', 'early', 'late']);
    }
    expect(sortIdentitySet([late, unstamped, early, primary], primary.id).map((i) => i.username)).toEqual(['alice', 'unstamped', 'early', 'late']);
    expect(sortIdentitySet([early, primary, late, unstamped], primary.id).map((i) => i.username)).toEqual(['alice', 'unstamped', 'early', 'late']);
    expect(() => new IdentitySet([])).toThrow(BadRequestError);
  });
});
