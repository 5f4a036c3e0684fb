import { hashToken } from './AccessToken';
import { signInKeys } from './SignInThrottle';

describe('sign-in throttle keys', () => {
  it('count an account under its username in any case and spacing, hashed apart from addresses', () => {
    const keys = signInKeys(' Alice ', '192.0.2.7');
    expect(keys.account).toBe(hashToken('account:alice'));
    expect(keys.address).toBe(hashToken('address:192.0.2.7'));
    expect(signInKeys('ALICE', undefined)).toEqual({ account: keys.account, address: null });
    // an address that reads like a username is another key
    expect(signInKeys('x', 'x').account).not.toBe(signInKeys('x', 'x').address);
  });
});
