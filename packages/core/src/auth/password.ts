import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { BadRequestError } from '../shared/errors';

// scrypt from node:crypto (OpenSSL): memory-hard, no extra dependency. Parameters are stored with the hash.
const PARAMS = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;

/**
 * Whose password it is: a person's, in a real deployment (at least 8 characters, the full cost of
 * scrypt), or a test fixture's (a stand-in's seed: any non-empty password, hashed at a cost that
 * lets a test suite start in a moment; its database lives only as long as the test run).
 */
export type PasswordPolicy = 'person' | 'fixture';
const COST: Record<PasswordPolicy, typeof PARAMS> = { person: PARAMS, fixture: { N: 1024, r: 8, p: 1 } };

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export function checkPassword(password: string, policy: PasswordPolicy = 'person'): string {
  if (password.length === 0) throw new BadRequestError('Invalid password: it is empty');
  if (policy === 'person' && password.length < 8) throw new BadRequestError('Invalid password: at least 8 characters');
  if (password.length > 1024) throw new BadRequestError('Invalid password: at most 1024 characters');
  return password;
}

export async function hashPassword(password: string, policy: PasswordPolicy = 'person'): Promise<string> {
  const salt = randomBytes(16);
  const cost = COST[policy];
  const key = await derive(checkPassword(password, policy), salt, cost);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = stored?.split('$');
  if (!parts || parts.length !== 6 || parts[0] !== 'scrypt') {
    // Same work as a real check, so timing does not tell which usernames exist.
    await derive(password, randomBytes(16), PARAMS);
    return false;
  }
  const [, N, r, p, salt, key] = parts;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(N), r: Number(r), p: Number(p) });
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
