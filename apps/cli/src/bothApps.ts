import { buildApiContainer } from '@xfer/api';
import { buildHelperPagesContainer } from '@xfer/helper-pages';
import type { Engine } from '@xfer/persistence';

/**
 * The composition of both apps in one process on one database engine. Their units of work share
 * the engine's transaction queue (on SQLite the one connection's: two queues would interleave).
 */
export function bothApps(engine: Engine, config: Parameters<typeof buildApiContainer>[1], pagesConfig: Parameters<typeof buildHelperPagesContainer>[1]) {
  return { apiContainer: buildApiContainer(engine, config), pagesContainer: buildHelperPagesContainer(engine, pagesConfig) };
}
