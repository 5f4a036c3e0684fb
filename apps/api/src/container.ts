import type { Clock, IdGenerator, UnitOfWork } from '@xfer/core';
import { coreContainer } from '@xfer/server-kit';
import type { Container } from 'inversify';
import { HttpTokenIntrospector } from './adapters/HttpTokenIntrospector';
import type { ApiConfig } from './config';
import { persistenceAdapters, type Engine } from '@xfer/persistence';

/**
 * The API's composition root: TypeORM adapters and the core use cases; tokens are checked locally
 * unless an external authorization server is configured for introspection.
 */
export function buildApiContainer(
  engine: Engine,
  options: Partial<Pick<ApiConfig, 'introspection' | 'requiredScope'>> & { clock?: Clock; ids?: IdGenerator; uow?: UnitOfWork } = {},
): Container {
  const settings = options.introspection;
  const authentication = {
    introspector: settings ? new HttpTokenIntrospector(settings.url, settings.clientId, settings.clientSecret) : null,
    ...(options.requiredScope !== undefined && { requiredScope: options.requiredScope }),
  };
  return coreContainer(persistenceAdapters(engine, options.uow), { authentication, clock: options.clock, ids: options.ids });
}
