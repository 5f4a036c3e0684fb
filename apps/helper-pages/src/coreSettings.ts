import type { CoreOptions, SignInThrottleOptions } from '@xfer/core';
import type { HelperPagesConfig } from './config';
import { JoseKeyCrypto } from './oauth/JoseKeyCrypto';

/**
 * What the authorization service asks of the core services of its process: its issuer and token
 * lifetime, the sign-in throttle, and the keys that sign id_tokens (jose, sealed with
 * AUTH_SIGNING_KEY_SECRET).
 */
export function pagesCoreSettings(
  config: Partial<Pick<HelperPagesConfig, 'issuer' | 'accessTokenLifetimeSeconds' | 'signingKeySecret'>> & {
    signInThrottle?: Partial<SignInThrottleOptions>;
  },
): Pick<CoreOptions, 'authorizationServer' | 'signInThrottle' | 'keyCrypto'> {
  return {
    authorizationServer: {
      ...(config.issuer !== undefined && { issuer: config.issuer }),
      ...(config.accessTokenLifetimeSeconds !== undefined && { accessTokenLifetimeSeconds: config.accessTokenLifetimeSeconds }),
    },
    signInThrottle: config.signInThrottle,
    keyCrypto: new JoseKeyCrypto(config.signingKeySecret),
  };
}
