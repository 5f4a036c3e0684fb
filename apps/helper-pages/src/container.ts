import { coreModule, persistenceModule } from '@xfer/persistence';
import { Container } from 'inversify';
import type { DataSource } from 'typeorm';

/** The helper pages' composition root: the same TypeORM adapters and core use cases as the API. */
export function buildHelperPagesContainer(dataSource: DataSource): Container {
  const container = new Container();
  container.loadSync(persistenceModule(dataSource), coreModule());
  return container;
}
