import { coreContainer } from '@xfer/server-kit';
import type { SignInThrottleOptions, UnitOfWork } from '@xfer/core';
import type { Container } from 'inversify';
import type { HelperPagesConfig } from './config';
import { JoseKeyCrypto } from './oauth/JoseKeyCrypto';
import { persistenceAdapters, type Engine } from '@xfer/persistence';

/** The helper pages' composition root: the same TypeORM adapters and core use cases as the API. */
export function buildHelperPagesContainer(
  engine: Engine,
  config: Partial<Pick<HelperPagesConfig, 'issuer' | 'accessTokenLifetimeSeconds' | 'signingKeySecret'>> & { signInThrottle?: Partial<SignInThrottleOptions>; uow?: UnitOfWork } = {},
): Container {
  const authorizationServer = {
    ...(config.issuer !== undefined && { issuer: config.issuer }),
    ...(config.accessTokenLifetimeSeconds !== undefined && { accessTokenLifetimeSeconds: config.accessTokenLifetimeSeconds }),
  };
  return coreContainer(persistenceAdapters(engine, config.uow), { authorizationServer, signInThrottle: config.signInThrottle, keyCrypto: new JoseKeyCrypto(config.signingKeySecret) });
}
