import { AuthenticationFailedError, ConsentRequiredError } from '../shared/errors';
import { FixedClock } from '../testing/fakes';
import { TestWorld } from '../testing/TestWorld';
import { AuthenticationService, TRANSFER_SCOPE } from './AuthenticationService';
import type { TokenIntrospection } from './TokenIntrospection';

describe('AuthenticationService', () => {
  let world: TestWorld;
  const authenticate = (token: string | undefined) => world.services.authentication.authenticate(token);

  beforeEach(async () => {
    world = new TestWorld();
    const { admin } = world.services;
    await admin.identities.addIdentity({ username: 'alice', name: 'Alice', email: null });
    await admin.identities.addIdentity({ username: 'alice@work.example.org', name: 'Alice at work', email: null });
    await admin.identities.linkIdentities('alice', 'alice@work.example.org');
    await admin.identities.addGroup('lab');
    await admin.identities.addGroupMember('lab', 'alice@work.example.org');
  });

  it('takes a token of its own as the identity it was issued to, with its whole set and their groups', async () => {
    const { token } = await world.services.admin.tokens.issueToken('alice@work.example.org');
    const caller = await authenticate(token);
    expect(caller.primary.username).toBe('alice@work.example.org');
    expect(caller.identities.map((i) => i.username).sort()).toEqual(['alice', 'alice@work.example.org']);
    expect(caller.groupIds.size).toBe(1);
  });

  it('refuses no token, an unknown one, a revoked one, and one at its expiry', async () => {
    await expect(authenticate(undefined)).rejects.toThrow('No Authentication provided.');
    await expect(authenticate('')).rejects.toThrow('No Authentication provided.');
    await expect(authenticate('xfer_unknown')).rejects.toThrow(AuthenticationFailedError);
    const revoked = await world.services.admin.tokens.issueToken('alice');
    await world.services.admin.tokens.revokeToken(revoked.token);
    await expect(authenticate(revoked.token)).rejects.toThrow(/revoked/);
    const short = await world.services.admin.tokens.issueToken('alice', 60);
    world.clock.advance(59);
    await expect(authenticate(short.token)).resolves.toMatchObject({ primary: expect.objectContaining({ username: 'alice' }) });
    world.clock.advance(1);
    await expect(authenticate(short.token)).rejects.toThrow(/expired/);
  });

  it('needs the API scope on every token, unless configured to take any', async () => {
    const { token } = await world.services.admin.tokens.issueToken('alice', null, 'openid');
    const refused = await authenticate(token).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConsentRequiredError);
    expect((refused as ConsentRequiredError).message).toContain(TRANSFER_SCOPE);
    const any = new AuthenticationService(world.uow, world.clock, { introspector: null, requiredScope: null });
    await expect(any.authenticate(token)).resolves.toMatchObject({ primary: { username: 'alice' } });
  });

  describe("with an external authorization server's introspection", () => {
    let answer: TokenIntrospection;
    let asked: string[];
    const external = () =>
      new AuthenticationService(world.uow, new FixedClock(), {
        requiredScope: TRANSFER_SCOPE,
        introspector: {
          introspect: async (token) => {
            asked.push(token);
            return answer;
          },
        },
      });

    beforeEach(() => {
      asked = [];
      answer = { active: true, sub: 'external-sub', username: 'erin@example.org', name: 'Erin', scope: `openid ${TRANSFER_SCOPE}` };
    });

    it('takes an identity it does not know as the server describes it', async () => {
      const caller = await external().authenticate('their-token');
      expect(asked).toEqual(['their-token']);
      expect(caller.primary).toMatchObject({ id: 'external-sub', username: 'erin@example.org', name: 'Erin', email: null });
      expect([...caller.identityIds]).toEqual(['external-sub']);
      expect(caller.identities).toEqual([caller.primary]);
      answer = { active: true, sub: 'other-sub', scope: TRANSFER_SCOPE };
      expect((await external().authenticate('t')).primary).toMatchObject({ username: 'other-sub', name: null });
    });

    it("counts every identity of the server's identity_set, known or not, and their groups", async () => {
      const work = (await world.uow.repositories.identities.findByUsername('alice@work.example.org'))!;
      answer = { ...answer, identity_set: ['external-sub', work.id, 'unknown-id'] };
      const caller = await external().authenticate('t');
      expect([...caller.identityIds].sort()).toEqual(['external-sub', 'unknown-id', work.id].sort());
      expect(caller.identities.find((i) => i.id === work.id)?.username).toBe('alice@work.example.org');
      expect(caller.identities.find((i) => i.id === 'unknown-id')).toMatchObject({ username: 'unknown-id', set_id: 'external-sub' });
      expect(caller.groupIds.size).toBe(1);
    });

    it('uses what it knows of a known identity', async () => {
      const alice = (await world.uow.repositories.identities.findByUsername('alice'))!;
      answer = { ...answer, sub: alice.id, username: 'renamed' };
      expect((await external().authenticate('t')).primary).toEqual(alice);
    });

    it('refuses inactive tokens, tokens without a subject, and tokens without the API scope', async () => {
      answer = { active: false };
      await expect(external().authenticate('t')).rejects.toThrow(new AuthenticationFailedError('Token is not valid, expired or revoked.'));
      answer = { active: true, scope: TRANSFER_SCOPE };
      await expect(external().authenticate('t')).rejects.toThrow(AuthenticationFailedError);
      answer = { active: true, sub: 's', scope: 'openid' };
      await expect(external().authenticate('t')).rejects.toThrow(ConsentRequiredError);
      answer = { active: true, sub: 's' };
      await expect(external().authenticate('t')).rejects.toThrow(ConsentRequiredError);
      await expect(external().authenticate(undefined)).rejects.toThrow('No Authentication provided.');
      expect(asked).toHaveLength(4);
    });
  });

  it('makes the principal of an identity, and refuses one that is gone', async () => {
    const alice = (await world.services.authentication.identityByUsername('alice'))!;
    expect((await world.services.authentication.principalOf(alice.id)).identities).toHaveLength(2);
    expect(await world.services.authentication.identityByUsername('nobody')).toBeNull();
    await expect(world.services.authentication.principalOf('gone')).rejects.toThrow(/no longer exists/);
  });
});
