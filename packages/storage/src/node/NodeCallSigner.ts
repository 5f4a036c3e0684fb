import { randomUUID } from 'node:crypto';
import { CALL_KEY_LIVE_MS, CALL_KEY_RENEW_MS, type NodeCallKey } from '@xfer/core';
import { exportJWK, generateKeyPair, SignJWT, type KeyLike } from 'jose';
import { API_ISSUER } from './protocol';

/** The algorithm of the API's calls to nodes: an Ed25519 signature, verified with the public key alone. */
export const NODE_CALL_ALGORITHM = 'EdDSA';

/**
 * How this process signs its calls to data nodes (and the grants it hands one node to read another's
 * files): with a key pair it makes when first asked, whose private half never leaves its memory.
 * The public half is published (the API's database, where nodes fetch it) before the first
 * signature, and its publication renewed while the process signs, so that it stays live.
 */
export class NodeCallSigner {
  private key: Promise<{ kid: string; privateKey: KeyLike; publicJwk: string }> | null = null;
  private publishedAt = 0;
  private publishing: Promise<void> | null = null;

  constructor(private readonly publish: (key: NodeCallKey) => Promise<void>) {}

  /** A token for `audience` (a node's id) with `claims`, living `seconds`. */
  async sign(claims: Record<string, unknown>, audience: string, seconds: number): Promise<string> {
    const key = await this.keyPair();
    await this.published(key);
    return new SignJWT(claims).setProtectedHeader({ alg: NODE_CALL_ALGORITHM, kid: key.kid }).setIssuer(API_ISSUER).setAudience(audience).setIssuedAt().setExpirationTime(`${seconds}s`).sign(key.privateKey);
  }

  private keyPair() {
    this.key ??= (async () => {
      const { privateKey, publicKey } = await generateKeyPair(NODE_CALL_ALGORITHM, { crv: 'Ed25519' });
      const kid = randomUUID();
      return { kid, privateKey, publicJwk: JSON.stringify({ ...(await exportJWK(publicKey)), kid, alg: NODE_CALL_ALGORITHM, use: 'sig' }) };
    })();
    this.key.catch(() => (this.key = null));
    return this.key;
  }

  /** Renews the key's publication once CALL_KEY_RENEW_MS have passed; waits for it only where the key could be no longer live. */
  private async published(key: { kid: string; publicJwk: string }): Promise<void> {
    const age = Date.now() - this.publishedAt;
    if (age < CALL_KEY_RENEW_MS) return;
    const publishing = (this.publishing ??= this.publish({ kid: key.kid, publicJwk: key.publicJwk })
      .then(() => void (this.publishedAt = Date.now()))
      .finally(() => (this.publishing = null)));
    // a key still well within its life signs at once; its renewal goes on meanwhile
    if (age < CALL_KEY_LIVE_MS / 2) publishing.catch(() => undefined);
    else await publishing;
  }
}
