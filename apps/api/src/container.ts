import type { Clock, IdGenerator, UnitOfWork } from '@xfer/core';
import { coreContainer } from '@xfer/persistence';
import type { Container } from 'inversify';
import type { DataSource } from 'typeorm';
import { HttpTokenIntrospector } from './adapters/HttpTokenIntrospector';
import type { ApiConfig } from './config';

/**
 * The API's composition root: TypeORM adapters and the core use cases; tokens are checked locally
 * unless an external authorization server is configured for introspection.
 */
export function buildApiContainer(
  dataSource: DataSource,
  options: Partial<Pick<ApiConfig, 'introspection' | 'requiredScope'>> & { clock?: Clock; ids?: IdGenerator; uow?: UnitOfWork } = {},
): Container {
  const settings = options.introspection;
  const authentication = {
    introspector: settings ? new HttpTokenIntrospector(settings.url, settings.clientId, settings.clientSecret) : null,
    ...(options.requiredScope !== undefined && { requiredScope: options.requiredScope }),
  };
  return coreContainer(dataSource, { authentication, clock: options.clock, ids: options.ids, uow: options.uow });
}
