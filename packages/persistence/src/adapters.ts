import type { ReadMemo, UnitOfWork } from '@xfer/core';
import type { Engine } from './engine/Engine';
import { TypeormUnitOfWork } from './TypeormUnitOfWork';

/**
 * What an app composes over an open engine: units of work (sharing the engine's transaction queue),
 * the read memo, and the engine itself for the health checks. `uow`: another unit of work (tests).
 */
export function persistenceAdapters(engine: Engine, uow: UnitOfWork = new TypeormUnitOfWork(engine)): { uow: UnitOfWork; readMemo: ReadMemo; database: Engine } {
  return { uow, readMemo: engine.readMemo, database: engine };
}
