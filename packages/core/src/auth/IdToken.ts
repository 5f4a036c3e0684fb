import { createHash } from 'node:crypto';
import { BadRequestError, ServiceUnavailableError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { identityProviderDisplayName, type IdentityState } from './Identity';
import { SigningKeyRing, type KeyCrypto, type SigningKeyState } from './SigningKey';

export type IdTokenRepositories = RepositoriesOf<'identities' | 'signingKeys'>;

/** The hosted service's scope for reading a user's linked identities (userinfo, id_token). */
export const VIEW_IDENTITY_SET_SCOPE = 'urn:globus:auth:scope:auth.globus.org:view_identity_set';

export interface IdTokenOptions {
  /** `iss`: this service's public address. */
  issuer: string;
  /** How long an id_token is valid; a retired key stays published this long. */
  lifetimeSeconds: number;
}

/** An identity's profile claims, as the hosted service's userinfo and id_token show them. */
export function profileClaims(identity: IdentityState) {
  return {
    preferred_username: identity.username,
    name: identity.name,
    organization: identity.organization,
    identity_provider: identity.identity_provider,
    identity_provider_display_name: identityProviderDisplayName(identity),
  };
}

/** The identity set as the `identity_set` claim lists it. */
export function identitySetClaim(set: readonly IdentityState[]) {
  return set.map((i) => ({ sub: i.id, ...profileClaims(i), username: i.username, email: i.email }));
}

/** OpenID Connect Core 3.1.3.6: the left half of the access token's hash under the signing algorithm's hash, base64url. */
export function accessTokenHash(accessToken: string, algorithm: string): string {
  const bits = /^[RPEH]S(256|384|512)$/.exec(algorithm)?.[1];
  if (!bits) throw new BadRequestError(`No at_hash for algorithm ${algorithm}`);
  const digest = createHash(`sha${bits}`).update(accessToken, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * OpenID Connect id_tokens and the keys that sign them: what a token says is decided here; the
 * signing itself is KeyCrypto's.
 */
export class IdTokenService {
  /** The first signing key while it is being made. */
  private firstKey: Promise<SigningKeyState> | null = null;

  constructor(
    private readonly uow: IdTokenRepositories,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly crypto: KeyCrypto | null,
    private readonly options: IdTokenOptions,
  ) {}

  private keyCrypto(): KeyCrypto {
    if (!this.crypto) throw new ServiceUnavailableError('This service signs no id_tokens (no key crypto configured)', 60);
    return this.crypto;
  }

  /** The key that signs now, made on first use: every instance on the database then signs alike. */
  async signingKey(): Promise<SigningKeyState> {
    const existing = new SigningKeyRing(await this.uow.repositories.signingKeys.list()).current();
    if (existing) return existing;
    // callers meanwhile wait for the same key
    this.firstKey ??= this.addFirstKey().finally(() => (this.firstKey = null));
    return this.firstKey;
  }

  /**
   * A first key, its pair made before its transaction (RSA takes 0.1-0.4 s: no write of the
   * process waits behind it meanwhile); when another instance made one meanwhile, that one signs.
   */
  private async addFirstKey(): Promise<SigningKeyState> {
    const made = await this.newKey();
    return this.uow.transaction(async (repos) => {
      const current = new SigningKeyRing(await repos.signingKeys.list()).current();
      if (current) return current;
      await repos.signingKeys.add(made);
      return made;
    });
  }

  /** A new signing key takes over; the old ones stay published until what they signed has expired. */
  async rotate(): Promise<{ kid: string; retired: string[]; deleted: string[] }> {
    const now = this.clock.now();
    return this.uow.transaction(async (repos) => {
      const ring = new SigningKeyRing(await repos.signingKeys.list());
      const retired = ring.retireAll(now);
      for (const key of retired) await repos.signingKeys.update(key);
      const deleted = new SigningKeyRing(await repos.signingKeys.list()).expired(now, this.options.lifetimeSeconds);
      for (const key of deleted) await repos.signingKeys.delete(key.kid);
      const added = await this.addKey(repos);
      return { kid: added.kid, retired: retired.map((k) => k.kid), deleted: deleted.map((k) => k.kid) };
    });
  }

  private async addKey(repos: IdTokenRepositories['repositories']): Promise<SigningKeyState> {
    const key = await this.newKey();
    await repos.signingKeys.add(key);
    return key;
  }

  private async newKey(): Promise<SigningKeyState> {
    const crypto = this.keyCrypto();
    const kid = this.ids.uuid();
    const { publicJwk, sealedPrivateKey } = await crypto.generate(kid);
    return { kid, algorithm: crypto.algorithm, public_jwk: publicJwk, private_key: sealedPrivateKey, created_at: this.clock.now(), retired_at: null };
  }

  /** The JWK Set to publish: the signing key and the retired keys whose tokens may still be valid. */
  async jwks(): Promise<{ keys: Record<string, unknown>[] }> {
    await this.signingKey();
    const ring = new SigningKeyRing(await this.uow.repositories.signingKeys.list());
    return { keys: ring.published(this.clock.now(), this.options.lifetimeSeconds).map((k) => k.public_jwk) };
  }

  /**
   * The id_token of a token response whose scopes include openid: who signed in (`sub`, profile
   * claims), for whom (`aud`), when, bound to the access token (`at_hash`) and to the
   * authorization request (`nonce`); `email` with the email scope, `identity_set` with
   * view_identity_set.
   */
  async issue(input: { clientId: string; identityId: string; scopes: readonly string[]; accessToken: string; nonce: string | null; authTime: Date | null }): Promise<string> {
    const { identities } = this.uow.repositories;
    const identity = await identities.findById(input.identityId);
    if (!identity) throw new BadRequestError('The identity of this grant no longer exists');
    const key = await this.signingKey();
    const now = this.clock.now();
    const has = (scope: string) => input.scopes.includes(scope);
    const claims: Record<string, unknown> = {
      iss: this.options.issuer,
      sub: identity.id,
      aud: input.clientId,
      iat: seconds(now),
      exp: seconds(now) + this.options.lifetimeSeconds,
      at_hash: accessTokenHash(input.accessToken, key.algorithm),
      ...(input.nonce !== null && { nonce: input.nonce }),
      ...profileClaims(identity),
      ...(has('email') && { email: identity.email }),
      last_authentication: input.authTime ? seconds(input.authTime) : null,
      ...(has(VIEW_IDENTITY_SET_SCOPE) && { identity_set: identitySetClaim(await identities.listSet(identity.set_id)) }),
    };
    return this.keyCrypto().sign(claims, key);
  }
}
