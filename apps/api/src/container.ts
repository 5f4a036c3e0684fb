import type { Clock, IdGenerator } from '@xfer/core';
import { coreModule, persistenceModule } from '@xfer/persistence';
import { Container } from 'inversify';
import type { DataSource } from 'typeorm';
import { HttpTokenIntrospector } from './adapters/HttpTokenIntrospector';
import type { ApiConfig } from './config';

/**
 * The API's composition root: TypeORM adapters and the core use cases; tokens are checked locally
 * unless an external authorization server is configured for introspection.
 */
export function buildApiContainer(
  dataSource: DataSource,
  options: Partial<Pick<ApiConfig, 'introspection' | 'requiredScope' | 'tokenCacheSeconds'>> & { clock?: Clock; ids?: IdGenerator } = {},
): Container {
  const container = new Container();
  const settings = options.introspection;
  const authentication = {
    introspector: settings ? new HttpTokenIntrospector(settings.url, settings.clientId, settings.clientSecret) : null,
    ...(options.requiredScope !== undefined && { requiredScope: options.requiredScope }),
    ...(options.tokenCacheSeconds !== undefined && { cacheSeconds: options.tokenCacheSeconds }),
  };
  container.loadSync(persistenceModule(dataSource), coreModule({ authentication, clock: options.clock, ids: options.ids }));
  return container;
}
