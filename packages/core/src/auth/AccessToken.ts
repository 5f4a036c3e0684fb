import { createHash, randomBytes } from 'node:crypto';

/** Only the SHA-256 of a token is ever stored: a leaked database yields no usable token. */
export interface AccessTokenState {
  token_hash: string;
  identity_id: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
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

export interface AccessTokenRepository {
  add(token: AccessTokenState): Promise<void>;
  findByHash(hash: string): Promise<AccessTokenState | null>;
  /** Tokens whose hash starts with `prefix` (a token id). */
  findByHashPrefix(prefix: string): Promise<AccessTokenState[]>;
  listForIdentity(identityId: string): Promise<AccessTokenState[]>;
  revoke(hash: string, at: Date): Promise<void>;
}
