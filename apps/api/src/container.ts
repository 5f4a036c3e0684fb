import { coreModule, persistenceModule } from '@xfer/persistence';
import { Container } from 'inversify';
import type { DataSource } from 'typeorm';

/** The API's composition root: TypeORM adapters and the core use cases. */
export function buildApiContainer(dataSource: DataSource): Container {
  const container = new Container();
  container.loadSync(persistenceModule(dataSource), coreModule());
  return container;
}
