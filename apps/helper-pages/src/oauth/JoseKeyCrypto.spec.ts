import type { SigningKeyState } from '@xfer/core';
import { ConfigError } from '@xfer/config';
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import { JoseKeyCrypto } from './JoseKeyCrypto';

const SECRET = 'a secret of at least thirty-two characters';

async function keyFrom(crypto: JoseKeyCrypto): Promise<SigningKeyState> {
  const { publicJwk, sealedPrivateKey } = await crypto.generate('kid-1');
  return { kid: 'kid-1', algorithm: crypto.algorithm, public_jwk: publicJwk, private_key: sealedPrivateKey, created_at: new Date(), retired_at: null };
}

describe('JoseKeyCrypto', () => {
  it('signs RS512 JWTs that its public JWK verifies, with the kid in the header', async () => {
    const crypto = new JoseKeyCrypto(SECRET);
    const key = await keyFrom(crypto);
    expect(key.public_jwk).toMatchObject({ kty: 'RSA', kid: 'kid-1', alg: 'RS512', use: 'sig' });
    expect(key.public_jwk).not.toHaveProperty('d');
    const jwt = await crypto.sign({ sub: 'alice', aud: 'c' }, key);
    const { payload, protectedHeader } = await jwtVerify(jwt, createLocalJWKSet({ keys: [key.public_jwk as unknown as JWK] }));
    expect(payload).toEqual({ sub: 'alice', aud: 'c' });
    expect(protectedHeader).toMatchObject({ alg: 'RS512', kid: 'kid-1' });
  });

  it('stores the private key encrypted under the secret; another secret or none cannot use it', async () => {
    const key = await keyFrom(new JoseKeyCrypto(SECRET));
    expect(key.private_key).toMatch(/^aes-256-gcm:/);
    expect(key.private_key).not.toContain('PRIVATE KEY');
    await expect(new JoseKeyCrypto(`${SECRET}, but another`).sign({}, key)).rejects.toThrow(ConfigError);
    await expect(new JoseKeyCrypto(undefined).sign({}, key)).rejects.toThrow(/set AUTH_SIGNING_KEY_SECRET/);
  });

  it('stores the private key plainly without a secret, and still signs with it', async () => {
    const crypto = new JoseKeyCrypto(undefined);
    const key = await keyFrom(crypto);
    expect(key.private_key).toMatch(/^pkcs8:-----BEGIN PRIVATE KEY-----/);
    await jwtVerify(await crypto.sign({ a: 1 }, key), createLocalJWKSet({ keys: [key.public_jwk as unknown as JWK] }));
  });

  it('makes a fresh pair for every key, named by its kid', async () => {
    const crypto = new JoseKeyCrypto(undefined);
    const first = await crypto.generate('kid-1');
    const second = await crypto.generate('kid-2');
    expect(second.publicJwk.n).not.toBe(first.publicJwk.n);
    expect(first.publicJwk).toMatchObject({ kid: 'kid-1', alg: 'RS512', use: 'sig' });
    expect(second.publicJwk).toMatchObject({ kid: 'kid-2', alg: 'RS512' });
  });
});
