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
import type { HealthOfDatabase } from './health';

/** What an app's composition root takes from its persistence: units of work, the read memo, and the database for the health checks. */
export interface Adapters {
  uow: UnitOfWork;
  readMemo: ReadMemo;
  database: HealthOfDatabase;
}

type ServiceTokens = { [K in keyof CoreServices]: ServiceIdentifier<CoreServices[K]> };

/** One typed identifier per core service, bound one by one. */
const SERVICES: ServiceTokens = {
  endpoints: Symbol.for('xfer.EndpointService'),
  endpointManager: Symbol.for('xfer.EndpointManagerService'),
  authentication: Symbol.for('xfer.AuthenticationService'),
  authorizationServer: Symbol.for('xfer.AuthorizationServerService'),
  admin: Symbol.for('xfer.Administration'),
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
  Database: Symbol.for('xfer.Database') as ServiceIdentifier<HealthOfDatabase>,
  UnitOfWork: Symbol.for('xfer.UnitOfWork') as ServiceIdentifier<UnitOfWork>,
  Clock: Symbol.for('xfer.Clock') as ServiceIdentifier<Clock>,
  IdGenerator: Symbol.for('xfer.IdGenerator') as ServiceIdentifier<IdGenerator>,
  ReadMemo: Symbol.for('xfer.ReadMemo') as ServiceIdentifier<ReadMemo>,
  ...SERVICES,
} as const;

/** The adapters' bindings. */
function adaptersModule(adapters: Adapters): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.Database).toConstantValue(adapters.database);
    bind(TOKENS.UnitOfWork).toConstantValue(adapters.uow);
    bind(TOKENS.ReadMemo).toConstantValue(adapters.readMemo);
  });
}

/** The core use cases, each bound on its own over whatever UnitOfWork, Clock and IdGenerator are bound. */
function coreModule(options: { clock?: Clock; ids?: IdGenerator } & CoreOptions = {}): ContainerModule {
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
  return Object.fromEntries((Object.keys(SERVICES) as (keyof CoreServices)[]).map((key) => [key, container.get(SERVICES[key] as ServiceIdentifier<unknown>)])) as unknown as CoreServices;
}

/** A container of the adapters and the core services over them: what each app's composition root starts from. */
export function coreContainer(adapters: Adapters, options: Parameters<typeof coreModule>[0] = {}): Container {
  const container = new Container();
  container.loadSync(adaptersModule(adapters), coreModule(options));
  return container;
}
