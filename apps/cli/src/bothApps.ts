import { buildApiContainer } from '@xfer/api';
import { buildHelperPagesContainer } from '@xfer/helper-pages';
import { TypeormUnitOfWork } from '@xfer/persistence';
import type { DataSource } from 'typeorm';

/**
 * The composition of both apps in one process on one database: one unit of work between them (on
 * SQLite it queues the one connection's transactions; two would interleave theirs).
 */
export function bothApps(dataSource: DataSource, config: Parameters<typeof buildApiContainer>[1], pagesConfig: Parameters<typeof buildHelperPagesContainer>[1]) {
  const uow = new TypeormUnitOfWork(dataSource);
  return { apiContainer: buildApiContainer(dataSource, { ...config, uow }), pagesContainer: buildHelperPagesContainer(dataSource, { ...pagesConfig, uow }) };
}
