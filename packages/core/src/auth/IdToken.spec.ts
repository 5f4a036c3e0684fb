import { createHash } from 'node:crypto';
import { FakeKeyCrypto } from '../testing/fakes';
import { TestWorld } from '../testing/TestWorld';
import { accessTokenHash, IdTokenService, VIEW_IDENTITY_SET_SCOPE } from './IdToken';
import { SigningKeyRing, type SigningKeyState } from './SigningKey';

const HOUR = 3600;
const key = (kid: string, created: number, retired: number | null): SigningKeyState => ({
  kid, algorithm: 'HS512', public_jwk: { kid }, private_key: 'k', created_at: new Date(created * 1000), retired_at: retired === null ? null : new Date(retired * 1000),
});

describe('SigningKeyRing', () => {
  it('signs with the newest live key, and has none before the first', () => {
    expect(new SigningKeyRing([]).current()).toBeNull();
    expect(new SigningKeyRing([key('a', 1, null), key('b', 2, null), key('c', 3, 3)]).current()?.kid).toBe('b');
    // made in the same second: the greater kid, in either order
    expect(new SigningKeyRing([key('b', 2, null), key('a', 2, null)]).current()?.kid).toBe('b');
    expect(new SigningKeyRing([key('a', 2, null), key('b', 2, null)]).current()?.kid).toBe('b');
    // the newer key whatever its kid, in either order
    expect(new SigningKeyRing([key('z', 1, null), key('a', 2, null)]).current()?.kid).toBe('a');
    expect(new SigningKeyRing([key('a', 2, null), key('z', 1, null)]).current()?.kid).toBe('a');
  });

  it('publishes a retired key exactly while tokens it signed may live, then lets it go', () => {
    const ring = new SigningKeyRing([key('old', 0, 100), key('new', 100, null)]);
    expect(ring.published(new Date((100 + HOUR - 1) * 1000), HOUR).map((k) => k.kid)).toEqual(['old', 'new']);
    expect(ring.published(new Date((100 + HOUR) * 1000), HOUR).map((k) => k.kid)).toEqual(['new']);
    expect(ring.expired(new Date((100 + HOUR) * 1000), HOUR).map((k) => k.kid)).toEqual(['old']);
    expect(ring.retireAll(new Date(5000)).map((k) => [k.kid, k.retired_at])).toEqual([['new', new Date(5000)]]);
  });
});

describe('IdTokenService', () => {
  let world: TestWorld;
  let service: IdTokenService;
  beforeEach(async () => {
    world = new TestWorld();
    service = new IdTokenService(world.uow, world.clock, world.ids, new FakeKeyCrypto(), { issuer: 'https://auth.example.org', lifetimeSeconds: HOUR });
    await world.services.admin.identities.addIdentity({ username: 'alice', name: 'Alice', email: 'alice@example.org' });
    await world.services.admin.identities.addIdentity({ username: 'alice-lab' });
    await world.services.admin.identities.linkIdentities('alice', 'alice-lab');
  });
  const alice = async () => (await world.uow.repositories.identities.findByUsername('alice'))!;
  const claimsOf = async (jwt: string) => FakeKeyCrypto.verify(jwt, await service.signingKey());

  it('makes one signing key on first use and keeps signing with it', async () => {
    const first = await service.signingKey();
    expect((await service.signingKey()).kid).toBe(first.kid);
    expect(await world.uow.repositories.signingKeys.list()).toHaveLength(1);
  });

  it("makes a first key's pair before its transaction: writes meanwhile go on, and callers meanwhile get that one key", async () => {
    const crypto = new FakeKeyCrypto();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let begun!: () => void;
    const generating = new Promise<void>((resolve) => (begun = resolve));
    const made: string[] = [];
    const slow = Object.assign(Object.create(crypto) as FakeKeyCrypto, {
      generate: async (kid: string) => {
        made.push(kid);
        begun();
        await gate;
        return crypto.generate(kid);
      },
    });
    const gated = new IdTokenService(world.uow, world.clock, world.ids, slow, { issuer: 'https://auth.example.org', lifetimeSeconds: HOUR });
    const first = gated.signingKey();
    const second = gated.signingKey();
    // a write once the pair is being made
    await generating;
    const write = world.uow.transaction(async () => 'written');
    expect(await Promise.race([write, new Promise((resolve) => setTimeout(() => resolve('waited behind the key pair'), 1000))])).toBe('written');
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(b.kid).toBe(a.kid);
    expect(made).toEqual([a.kid]);
    expect((await world.uow.repositories.signingKeys.list()).map((k) => k.kid)).toEqual([a.kid]);
  });

  it('claims: issuer, subject, audience, lifetime, at_hash, nonce and sign-in time; email and identity set only with their scopes', async () => {
    const authTime = new Date(world.clock.now().getTime() - 60_000);
    const base = { clientId: 'client-1', identityId: (await alice()).id, accessToken: 'xfer_token', authTime };
    const full = (await claimsOf(await service.issue({ ...base, scopes: ['openid', 'email', VIEW_IDENTITY_SET_SCOPE], nonce: 'n1' })))!;
    const now = Math.floor(world.clock.now().getTime() / 1000);
    expect(full).toMatchObject({ iss: 'https://auth.example.org', sub: base.identityId, aud: 'client-1', iat: now, exp: now + HOUR, nonce: 'n1', email: 'alice@example.org', preferred_username: 'alice', last_authentication: now - 60 });
    expect(full.at_hash).toBe(accessTokenHash('xfer_token', 'HS512'));
    expect((full.identity_set as { username: string }[]).map((i) => i.username)).toEqual(['alice', 'alice-lab']);
    const bare = (await claimsOf(await service.issue({ ...base, scopes: ['openid'], nonce: null, authTime: null })))!;
    expect(bare).not.toHaveProperty('email');
    expect(bare).not.toHaveProperty('identity_set');
    expect(bare).not.toHaveProperty('nonce');
    expect(bare.last_authentication).toBeNull();
  });

  it('at_hash is the left half of the hash the algorithm names', () => {
    expect(accessTokenHash('x', 'RS256')).toHaveLength(22);
    expect(accessTokenHash('x', 'RS512')).toHaveLength(43);
    expect(accessTokenHash('x', 'RS512')).not.toBe(accessTokenHash('y', 'RS512'));
    expect(() => accessTokenHash('x', 'none')).toThrow();
  });

  it('rotation: a new key signs, the old one stays published for the token lifetime, and goes at the rotation after', async () => {
    const first = await service.signingKey();
    const second = await service.rotate();
    expect(second.retired).toEqual([first.kid]);
    expect((await service.signingKey()).kid).toBe(second.kid);
    expect((await service.jwks()).keys.map((k) => k.kid)).toEqual([first.kid, second.kid]);
    world.clock.advance(HOUR);
    const third = await service.rotate();
    expect(third.deleted).toEqual([first.kid]);
    expect((await service.jwks()).keys.map((k) => k.kid)).toEqual([second.kid, third.kid]);
  });

  it('refuses to sign without key crypto, with a clear error', async () => {
    const none = new IdTokenService(world.uow, world.clock, world.ids, null, { issuer: 'x', lifetimeSeconds: HOUR });
    await expect(none.signingKey()).rejects.toThrow(/no key crypto/);
  });

  it('computes at_hash with SHA-256, -384 or -512 as the algorithm names (RS, PS, ES, HS)', () => {
    const half = (bits: number, value: string) => {
      const digest = createHash(`sha${bits}`).update(value, 'ascii').digest();
      return digest.subarray(0, digest.length / 2).toString('base64url');
    };
    expect(accessTokenHash('xfer_abc', 'RS256')).toBe(half(256, 'xfer_abc'));
    expect(accessTokenHash('xfer_abc', 'PS384')).toBe(half(384, 'xfer_abc'));
    expect(accessTokenHash('xfer_abc', 'ES512')).toBe(half(512, 'xfer_abc'));
    expect(accessTokenHash('xfer_abc', 'HS256')).toBe(half(256, 'xfer_abc'));
    for (const bad of ['none', 'RS1', 'XS256', 'RS2560', 'rs256']) expect(() => accessTokenHash('x', bad)).toThrow(`No at_hash for algorithm ${bad}`);
  });

  it('refuses an id_token for an identity that is gone, and says when nothing can sign', async () => {
    await expect(service.issue({ clientId: 'c', identityId: 'gone', scopes: ['openid'], accessToken: 't', nonce: null, authTime: null })).rejects.toThrow('The identity of this grant no longer exists');
    const none = new IdTokenService(world.uow, world.clock, world.ids, null, { issuer: 'x', lifetimeSeconds: HOUR });
    await expect(none.jwks()).rejects.toMatchObject({ message: 'This service signs no id_tokens (no key crypto configured)', retryAfterSeconds: 60 });
  });

  it('puts the profile claims of the identity in every id_token', async () => {
    const claims = (await claimsOf(await service.issue({ clientId: 'c', identityId: (await alice()).id, scopes: ['openid'], accessToken: 't', nonce: null, authTime: null })))!;
    expect(claims).toMatchObject({ preferred_username: 'alice', name: 'Alice', organization: null, identity_provider_display_name: 'xfer local accounts' });
  });

  it('rotates keys made in the same second in the order they were made', async () => {
    const first = await service.signingKey();
    const { kid } = await service.rotate();
    expect(kid).not.toBe(first.kid);
    expect((await service.signingKey()).kid).toBe(kid);
  });
});
