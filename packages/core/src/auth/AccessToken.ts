import { createHash, hash, randomBytes } from 'node:crypto';
import type { IdentityState } from './Identity';

/** Only the SHA-256 of a token is ever stored: a leaked database yields no usable token. */
export interface AccessTokenState {
  token_hash: string;
  identity_id: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  /** The client it was issued to; null for a token an operator issued. */
  client_id: string | null;
  /** The scopes it carries (all of one resource server). */
  scopes: string[];
  /** The service it is for, e.g. transfer.api.globus.org. */
  resource_server: string;
  /** The refresh token it was issued with or from: revoking that revokes this too (RFC 7009 2.1). */
  refresh_token_hash: string | null;
  /**
   * The client the user consented to when that is not `client_id`: a dependent token, obtained by
   * a resource server from that client's token. Rescinding that client's consent revokes it too.
   */
  consent_client_id: string | null;
}

export function hashToken(token: string): string {
  // crypto.hash (Node 20.12 and later): one call and no Hash object, on every authenticated request
  return typeof hash === 'function' ? hash('sha256', token, 'hex') : createHash('sha256').update(token, 'utf8').digest('hex');
}

export function newTokenSecret(): string {
  return `xfer_${randomBytes(32).toString('base64url')}`;
}

export function isTokenUsable(token: AccessTokenState, now: Date): boolean {
  return token.revoked_at === null && (token.expires_at === null || token.expires_at.getTime() > now.getTime());
}

/** A token's public handle: the start of its hash (the secret itself is never stored). */
export function tokenId(token: Pick<AccessTokenState, 'token_hash'>): string {
  return token.token_hash.slice(0, 16);
}

/** A token that is neither revoked nor expired, with the identity it was issued to; null otherwise. */
export async function findLiveToken(
  repos: { accessTokens: AccessTokenRepository },
  token: string,
  now: Date,
): Promise<{ token: AccessTokenState; identity: IdentityState } | null> {
  // the holder: what authenticating the token read (and the repository may remember), its identity with it
  const holder = await repos.accessTokens.findHolder(hashToken(token));
  return holder && isTokenUsable(holder.token, now) ? { token: holder.token, identity: holder.identity } : null;
}

/** A token with the identity it was issued to, that identity's whole set and the groups of all of them. */
export interface TokenHolder {
  token: AccessTokenState;
  identity: IdentityState;
  set: IdentityState[];
  groupIds: string[];
}

export interface AccessTokenRepository {
  add(token: AccessTokenState): Promise<void>;
  findByHash(hash: string): Promise<AccessTokenState | null>;
  /** One read: what authenticating a request needs. */
  findHolder(hash: string): Promise<TokenHolder | null>;
  /** Tokens whose hash starts with `prefix` (a token id). */
  findByHashPrefix(prefix: string): Promise<AccessTokenState[]>;
  listForIdentity(identityId: string): Promise<AccessTokenState[]>;
  revoke(hash: string, at: Date): Promise<void>;
  /** Revokes the live tokens of these identities issued to the client or resting on its consent (consent_client_id); returns how many. */
  revokeIssuedTo(identityIds: readonly string[], clientId: string, at: Date): Promise<number>;
  /** Revokes every live token issued to the client (it is being removed); returns how many. */
  revokeForClient(clientId: string, at: Date): Promise<number>;
  /** Revokes the live tokens issued with or from a refresh token. */
  revokeByRefreshToken(refreshTokenHash: string, at: Date): Promise<void>;
  /** Deletes at most `limit` tokens that expired before `before`; returns how many. */
  purgeExpired(before: Date, limit: number): Promise<number>;
}
