import {
  createCoreServices,
  randomIdGenerator,
  systemClock,
  type Clock,
  type CoreServices,
  type IdGenerator,
  type CoreOptions,
  type UnitOfWork,
} from '@xfer/core';
import { ContainerModule, type ServiceIdentifier } from 'inversify';
import type { DataSource } from 'typeorm';
import { TypeormUnitOfWork } from './TypeormUnitOfWork';

/** Typed service identifiers shared by both apps' composition roots. */
export const TOKENS = {
  DataSource: Symbol.for('xfer.DataSource') as ServiceIdentifier<DataSource>,
  UnitOfWork: Symbol.for('xfer.UnitOfWork') as ServiceIdentifier<UnitOfWork>,
  Clock: Symbol.for('xfer.Clock') as ServiceIdentifier<Clock>,
  IdGenerator: Symbol.for('xfer.IdGenerator') as ServiceIdentifier<IdGenerator>,
  CoreServices: Symbol.for('xfer.CoreServices') as ServiceIdentifier<CoreServices>,
} as const;

/** The TypeORM adapters over an open DataSource. */
export function persistenceModule(dataSource: DataSource): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.DataSource).toConstantValue(dataSource);
    bind(TOKENS.UnitOfWork).toConstantValue(new TypeormUnitOfWork(dataSource));
  });
}

/** The core use cases, built over whatever UnitOfWork, Clock and IdGenerator are bound. */
export function coreModule(options: { clock?: Clock; ids?: IdGenerator } & CoreOptions = {}): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.Clock).toConstantValue(options.clock ?? systemClock);
    bind(TOKENS.IdGenerator).toConstantValue(options.ids ?? randomIdGenerator);
    bind(TOKENS.CoreServices)
      .toResolvedValue(
        (uow: UnitOfWork, clock: Clock, ids: IdGenerator) => createCoreServices(uow, clock, ids, options),
        [TOKENS.UnitOfWork, TOKENS.Clock, TOKENS.IdGenerator],
      )
      .inSingletonScope();
  });
}
