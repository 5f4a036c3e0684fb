import {
  CORE_SERVICE_FACTORIES,
  randomIdGenerator,
  systemClock,
  type Clock,
  type CoreOptions,
  type CoreServices,
  type IdGenerator,
  type ReadMemo,
  type UnitOfWork,
} from '@xfer/core';
import { Container, ContainerModule, type ServiceIdentifier } from 'inversify';
import type { Engine } from './engine/Engine';
import { TypeormUnitOfWork } from './TypeormUnitOfWork';

type ServiceTokens = { [K in keyof CoreServices]: ServiceIdentifier<CoreServices[K]> };

/** One typed identifier per core service, bound one by one. */
const SERVICES: ServiceTokens = {
  endpoints: Symbol.for('xfer.EndpointService'),
  endpointManager: Symbol.for('xfer.EndpointManagerService'),
  authentication: Symbol.for('xfer.AuthenticationService'),
  authorizationServer: Symbol.for('xfer.AuthorizationServerService'),
  admin: Symbol.for('xfer.AdminService'),
  clientRegistration: Symbol.for('xfer.ClientRegistrationService'),
  helperPages: Symbol.for('xfer.HelperPagesService'),
  maintenance: Symbol.for('xfer.MaintenanceGate'),
  housekeeping: Symbol.for('xfer.Housekeeping'),
  idTokens: Symbol.for('xfer.IdTokenService'),
  identityDirectory: Symbol.for('xfer.IdentityDirectory'),
  accessRules: Symbol.for('xfer.AccessRuleService'),
};

/** Typed service identifiers shared by every composition root (API, helper pages, CLI). */
export const TOKENS = {
  Engine: Symbol.for('xfer.Engine') as ServiceIdentifier<Engine>,
  UnitOfWork: Symbol.for('xfer.UnitOfWork') as ServiceIdentifier<UnitOfWork>,
  Clock: Symbol.for('xfer.Clock') as ServiceIdentifier<Clock>,
  IdGenerator: Symbol.for('xfer.IdGenerator') as ServiceIdentifier<IdGenerator>,
  ReadMemo: Symbol.for('xfer.ReadMemo') as ServiceIdentifier<ReadMemo>,
  ...SERVICES,
} as const;

/** The TypeORM adapters over an open engine (every unit of work on it shares its transaction queue). `uow`: another unit of work (tests). */
export function persistenceModule(engine: Engine, uow: UnitOfWork = new TypeormUnitOfWork(engine)): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.Engine).toConstantValue(engine);
    bind(TOKENS.UnitOfWork).toConstantValue(uow);
    bind(TOKENS.ReadMemo).toConstantValue(engine.readMemo);
  });
}

/** The core use cases, each bound on its own over whatever UnitOfWork, Clock and IdGenerator are bound. */
export function coreModule(options: { clock?: Clock; ids?: IdGenerator } & CoreOptions = {}): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.Clock).toConstantValue(options.clock ?? systemClock);
    bind(TOKENS.IdGenerator).toConstantValue(options.ids ?? randomIdGenerator);
    for (const key of Object.keys(SERVICES) as (keyof CoreServices)[]) {
      bind(SERVICES[key] as ServiceIdentifier<unknown>)
        .toResolvedValue(
          (uow: UnitOfWork, clock: Clock, ids: IdGenerator) => CORE_SERVICE_FACTORIES[key]({ uow, clock, ids, options }),
          [TOKENS.UnitOfWork, TOKENS.Clock, TOKENS.IdGenerator],
        )
        .inSingletonScope();
    }
  });
}

/** Every core service a container binds, for a caller that uses many of them (the CLI). */
export function coreServicesOf(container: Container): CoreServices {
  return {
    endpoints: container.get(TOKENS.endpoints),
    endpointManager: container.get(TOKENS.endpointManager),
    authentication: container.get(TOKENS.authentication),
    authorizationServer: container.get(TOKENS.authorizationServer),
    admin: container.get(TOKENS.admin),
    clientRegistration: container.get(TOKENS.clientRegistration),
    helperPages: container.get(TOKENS.helperPages),
    maintenance: container.get(TOKENS.maintenance),
    housekeeping: container.get(TOKENS.housekeeping),
    idTokens: container.get(TOKENS.idTokens),
    identityDirectory: container.get(TOKENS.identityDirectory),
    accessRules: container.get(TOKENS.accessRules),
  };
}

/** A container of the TypeORM adapters and the core services: what each app's composition root starts from. */
export function coreContainer(engine: Engine, options: Parameters<typeof coreModule>[0] & { uow?: UnitOfWork } = {}): Container {
  const container = new Container();
  container.loadSync(persistenceModule(engine, options.uow), coreModule(options));
  return container;
}
