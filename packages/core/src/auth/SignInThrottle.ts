import { hashToken } from './AccessToken';

/**
 * Failed sign-ins, kept where every instance of the app sees them (its database). Keys are
 * hashed: the table holds no address or username in the clear.
 */
export interface SignInFailureRepository {
  /** Records one failed sign-in under each key. */
  add(keyHashes: readonly string[], at: Date): Promise<void>;
  /** How many failures were recorded under the key since `since`. */
  countSince(keyHash: string, since: Date): Promise<number>;
  /** Forgets the failures under a key (its account signed in). */
  clear(keyHash: string): Promise<void>;
  /** Deletes at most `limit` failures recorded before `before`; returns how many. */
  purgeBefore(before: Date, limit: number): Promise<number>;
}

export interface SignInThrottleOptions {
  /** Failed sign-ins allowed from one client address per window. */
  attemptsPerAddress: number;
  /**
   * Failed sign-ins allowed on one account per window, from anywhere: higher than per address, so
   * that one address cannot lock a user out quickly, while guessing from many addresses stays slow.
   */
  attemptsPerAccount: number;
  windowSeconds: number;
}

export const DEFAULT_SIGN_IN_THROTTLE: SignInThrottleOptions = { attemptsPerAddress: 10, attemptsPerAccount: 50, windowSeconds: 15 * 60 };

/** The keys a failed sign-in counts under: its account (usernames are case-insensitive here) and its address. */
export function signInKeys(username: string, address: string | undefined): { account: string; address: string | null } {
  return {
    account: hashToken(`account:${username.trim().toLowerCase()}`),
    address: address ? hashToken(`address:${address}`) : null,
  };
}
