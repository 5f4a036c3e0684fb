import { coreModule, persistenceModule } from '@xfer/persistence';
import { Container } from 'inversify';
import type { DataSource } from 'typeorm';
import { HttpTokenIntrospector } from './adapters/HttpTokenIntrospector';
import type { ApiConfig } from './config';

/**
 * The API's composition root: TypeORM adapters and the core use cases; tokens are checked locally
 * unless an external authorization server is configured for introspection.
 */
export function buildApiContainer(dataSource: DataSource, options: { introspection?: ApiConfig['introspection'] } = {}): Container {
  const container = new Container();
  const settings = options.introspection;
  const introspection = settings
    ? { introspector: new HttpTokenIntrospector(settings.url, settings.clientId, settings.clientSecret), requiredScope: settings.requiredScope }
    : null;
  container.loadSync(persistenceModule(dataSource), coreModule({ introspection }));
  return container;
}
