/**
 * A key the authorization service signs id_tokens with (OpenID Connect). Kept in the database so
 * that every instance signs alike and publishes the same keys.
 */
export interface SigningKeyState {
  kid: string;
  /** The JWS algorithm, e.g. RS512 as the hosted service signs. */
  algorithm: string;
  /** The public key as a JWK, as published at the jwks_uri. */
  public_jwk: Record<string, unknown>;
  /** The private key as KeyCrypto sealed it: encrypted when a secret is configured. */
  private_key: string;
  created_at: Date;
  /** When a newer key took over signing; it stays published while tokens it signed may still be valid. */
  retired_at: Date | null;
}

export interface SigningKeyRepository {
  add(key: SigningKeyState): Promise<void>;
  /** Every key, oldest first. */
  list(): Promise<SigningKeyState[]>;
  /** Writes back `retired_at`. */
  update(key: SigningKeyState): Promise<void>;
  delete(kid: string): Promise<void>;
}

/** The cryptography of signing keys, left to a maintained library behind this port. */
export interface KeyCrypto {
  /** The JWS algorithm of the keys it makes. */
  readonly algorithm: string;
  /** A new key pair: the public JWK (with `kid`, `alg`, `use`) and the private key sealed for storage. */
  generate(kid: string): Promise<{ publicJwk: Record<string, unknown>; sealedPrivateKey: string }>;
  /** A compact JWS of the claims, signed with the key (its `kid` in the header). */
  sign(claims: Record<string, unknown>, key: SigningKeyState): Promise<string>;
}

/**
 * The keys and their rotation: the newest live key signs; a retired key stays published for
 * `keepSeconds` (the longest an id_token it signed can live), then goes.
 */
export class SigningKeyRing {
  constructor(private readonly keys: readonly SigningKeyState[]) {}

  /** The key that signs now; null when there is none yet. */
  current(): SigningKeyState | null {
    const live = this.keys.filter((k) => k.retired_at === null);
    if (live.length === 0) return null;
    return live.reduce((a, b) => {
      // Stryker disable next-line EqualityOperator: the times differ here, so `>=` is `>`
      if (b.created_at.getTime() !== a.created_at.getTime()) return b.created_at.getTime() > a.created_at.getTime() ? b : a;
      // made in the same millisecond: the greater kid
      // Stryker disable next-line EqualityOperator: kids are unique, so `>=` never meets two equal ones
      return b.kid > a.kid ? b : a;
    });
  }

  /** The keys to publish at `now`. */
  published(now: Date, keepSeconds: number): SigningKeyState[] {
    return this.keys.filter((k) => k.retired_at === null || k.retired_at.getTime() + keepSeconds * 1000 > now.getTime());
  }

  /** The keys no longer published, to delete. */
  expired(now: Date, keepSeconds: number): SigningKeyState[] {
    const published = new Set(this.published(now, keepSeconds));
    return this.keys.filter((k) => !published.has(k));
  }

  /** Every live key retired at `now` (a new key is about to take over). */
  retireAll(now: Date): SigningKeyState[] {
    return this.keys.filter((k) => k.retired_at === null).map((k) => ({ ...k, retired_at: now }));
  }
}
