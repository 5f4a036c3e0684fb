import { BadRequestError } from '../shared/errors';
import { checkPassword, hashPassword, verifyPassword } from './password';

describe('passwords', () => {
  it('takes 8 to 1024 characters', () => {
    expect(checkPassword('a'.repeat(8))).toHaveLength(8);
    expect(checkPassword('a'.repeat(1024))).toHaveLength(1024);
    expect(() => checkPassword('a'.repeat(7))).toThrow('Invalid password: at least 8 characters');
    expect(() => checkPassword('a'.repeat(1025))).toThrow('Invalid password: at most 1024 characters');
    expect(() => checkPassword('')).toThrow(BadRequestError);
  });

  it("takes any non-empty password of a test fixture (a stand-in's seed), hashed at a lower cost that still verifies", async () => {
    expect(checkPassword('pw', 'fixture')).toBe('pw');
    expect(() => checkPassword('', 'fixture')).toThrow('Invalid password: it is empty');
    expect(() => checkPassword('a'.repeat(1025), 'fixture')).toThrow('Invalid password: at most 1024 characters');
    expect(() => checkPassword('pw')).toThrow('Invalid password: at least 8 characters');
    const stored = await hashPassword('pw', 'fixture');
    expect(stored).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword('pw', stored)).toBe(true);
    expect(await verifyPassword('pW', stored)).toBe(false);
    await expect(hashPassword('pw')).rejects.toThrow('at least 8 characters');
  });

  it('stores scrypt with its parameters and a fresh salt, and verifies the same password only', async () => {
    const one = await hashPassword('correct horse battery');
    const two = await hashPassword('correct horse battery');
    expect(one).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(one).not.toBe(two);
    expect(await verifyPassword('correct horse battery', one)).toBe(true);
    expect(await verifyPassword('correct horse batterY', one)).toBe(false);
    expect(await verifyPassword('correct horse battery ', one)).toBe(false);
  });

  it('verifies a password typed in another Unicode form (NFKC)', async () => {
    const stored = await hashPassword('caf\u00e9 au lait');
    expect(await verifyPassword('cafe\u0301 au lait', stored)).toBe(true);
  });

  it('verifies with the parameters stored beside the hash', async () => {
    const stored = await hashPassword('correct horse battery');
    const [, , , , salt, key] = stored.split('$');
    expect(await verifyPassword('correct horse battery', `scrypt$16384$8$2$${salt}$${key}`)).toBe(false);
  });

  it('says no for an identity without a password or with anything but an scrypt hash', async () => {
    expect(await verifyPassword('correct horse battery', null)).toBe(false);
    expect(await verifyPassword('correct horse battery', '')).toBe(false);
    const stored = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', stored.replace(/^scrypt/, 'bcrypt'))).toBe(false);
    expect(await verifyPassword('correct horse battery', `${stored}$extra`)).toBe(false);
    expect(await verifyPassword('correct horse battery', stored.slice(0, -4))).toBe(false);
  });
});
