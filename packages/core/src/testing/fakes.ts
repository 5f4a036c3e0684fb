import { createHmac, randomBytes } from 'node:crypto';
import type { KeyCrypto, SigningKeyState } from '../auth/SigningKey';
import type { Clock, IdGenerator } from '../shared/ports';

/** A clock that stands still until a test moves it. */
export class FixedClock implements Clock {
  constructor(private current = new Date('2026-01-02T03:04:05.000Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}

/**
 * Predictable UUIDs: 00000000-0000-4000-8000-000000000001, ...02, ... With a `block` of hex letters
 * ('abcdef' gives ...-abcdef000001), ids have letters, so a test can tell whether case is ignored.
 */
export class SequentialIdGenerator implements IdGenerator {
  private next = 1;
  constructor(private readonly block = '000000') {}
  uuid(): string {
    return `00000000-0000-4000-8000-${this.block}${(this.next++).toString(16).padStart(6, '0')}`;
  }
}

/**
 * A KeyCrypto for unit tests: HS512 JWTs under a per-key random secret, so claims can be read
 * back and a signature checked without a JOSE library. The apps use a real one.
 */
export class FakeKeyCrypto implements KeyCrypto {
  readonly algorithm = 'HS512';
  async generate(kid: string) {
    return { publicJwk: { kid, kty: 'oct', alg: this.algorithm, use: 'sig' }, sealedPrivateKey: randomBytes(32).toString('base64url') };
  }
  async sign(claims: Record<string, unknown>, key: SigningKeyState): Promise<string> {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const input = `${part({ alg: this.algorithm, typ: 'JWT', kid: key.kid })}.${part(claims)}`;
    return `${input}.${createHmac('sha512', key.private_key).update(input).digest('base64url')}`;
  }
  /** The claims of a token it signed, or null when the signature does not match `key`. */
  static verify(jwt: string, key: SigningKeyState): Record<string, unknown> | null {
    const [header, payload, signature] = jwt.split('.');
    const expected = createHmac('sha512', key.private_key).update(`${header}.${payload}`).digest('base64url');
    return expected === signature ? JSON.parse(Buffer.from(payload, 'base64url').toString()) : null;
  }
}
