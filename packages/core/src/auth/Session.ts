import { randomBytes } from 'node:crypto';
import { hashToken } from './AccessToken';
import type { IdentityState } from './Identity';

/** A signed-in browser. The cookie holds a random secret; only its SHA-256 is stored. */
export interface SessionState {
  id_hash: string;
  identity_id: string;
  created_at: Date;
  expires_at: Date;
}

export function newSessionSecret(): string {
  return randomBytes(32).toString('base64url');
}

export const hashSessionSecret = hashToken;

/** A session with its identity and that identity's whole set (the set's primary first). */
export interface SessionHolder {
  session: SessionState;
  identity: IdentityState;
  set: IdentityState[];
}

export interface SessionRepository {
  add(session: SessionState): Promise<void>;
  findByHash(hash: string): Promise<SessionState | null>;
  /** The session with its identity and set, as every signed-in page needs them; null when either is gone. */
  findHolder(hash: string): Promise<SessionHolder | null>;
  delete(hash: string): Promise<void>;
  /** Ends every session of an identity (its password changed). */
  deleteForIdentity(identityId: string): Promise<void>;
  /** Deletes at most `limit` sessions that expired before `before`; returns how many. */
  purgeExpired(before: Date, limit: number): Promise<number>;
}
