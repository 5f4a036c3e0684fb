import { randomBytes } from 'node:crypto';
import { hashToken } from './AccessToken';

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

export interface SessionRepository {
  add(session: SessionState): Promise<void>;
  findByHash(hash: string): Promise<SessionState | null>;
  delete(hash: string): Promise<void>;
  /** Ends every session of an identity (its password changed). */
  deleteForIdentity(identityId: string): Promise<void>;
  /** Deletes at most `limit` sessions that expired before `before`; returns how many. */
  purgeExpired(before: Date, limit: number): Promise<number>;
}
