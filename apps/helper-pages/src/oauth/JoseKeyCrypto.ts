import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError } from '@xfer/config';
import type { KeyCrypto, SigningKeyState } from '@xfer/core';
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, SignJWT, type KeyLike } from 'jose';

const ALGORITHM = 'RS512';
const SEALED = 'aes-256-gcm:';
const PLAIN = 'pkcs8:';

/**
 * Signing keys with jose (RS512, as the hosted service signs its id_tokens). The private key is
 * stored encrypted with AES-256-GCM under a key derived from `secret` (AUTH_SIGNING_KEY_SECRET),
 * or plainly when there is no secret.
 */
export class JoseKeyCrypto implements KeyCrypto {
  readonly algorithm = ALGORITHM;
  private readonly sealingKey: Buffer | null;
  private readonly imported = new Map<string, Promise<KeyLike>>();

  constructor(secret: string | undefined) {
    this.sealingKey = secret ? createHash('sha256').update(`xfer signing keys\0${secret}`).digest() : null;
  }

  async generate(kid: string) {
    const { publicKey, privateKey } = await generateKeyPair(ALGORITHM, { modulusLength: 2048, extractable: true });
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALGORITHM, use: 'sig' };
    return { publicJwk, sealedPrivateKey: this.seal(await exportPKCS8(privateKey)) };
  }

  async sign(claims: Record<string, unknown>, key: SigningKeyState): Promise<string> {
    let privateKey = this.imported.get(key.kid);
    if (!privateKey) {
      privateKey = importPKCS8(this.open(key), key.algorithm);
      this.imported.set(key.kid, privateKey);
    }
    return new SignJWT(claims).setProtectedHeader({ alg: key.algorithm, kid: key.kid, typ: 'JWT' }).sign(await privateKey);
  }

  private seal(pem: string): string {
    if (!this.sealingKey) return `${PLAIN}${pem}`;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealingKey, iv);
    const body = Buffer.concat([cipher.update(pem, 'utf8'), cipher.final()]);
    return `${SEALED}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  private open(key: SigningKeyState): string {
    if (key.private_key.startsWith(PLAIN)) return key.private_key.slice(PLAIN.length);
    if (!this.sealingKey) throw new ConfigError(`Signing key ${key.kid} is stored encrypted: set AUTH_SIGNING_KEY_SECRET to the secret it was made with`);
    const raw = Buffer.from(key.private_key.slice(SEALED.length), 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealingKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new ConfigError(`AUTH_SIGNING_KEY_SECRET does not open signing key ${key.kid}: it was made with another secret`);
    }
  }
}
