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
import type { HealthOfDatabase } from '@xfer/server-kit';
import { Container, ContainerModule, type ServiceIdentifier } from 'inversify';

/** What the core services are built over: units of work, the read memo, and the database for the health checks. */
export interface Adapters {
  uow: UnitOfWork;
  readMemo: ReadMemo;
  database: HealthOfDatabase;
}

/** How the core services are built: the apps' settings and adapters (token introspection, key crypto), and a clock and ids (tests fix them). */
export type CoreSettings = CoreOptions & { clock?: Clock; ids?: IdGenerator };

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
  files: Symbol.for('xfer.FileService'),
  nodeAccess: Symbol.for('xfer.NodeAccess'),
  gcsManager: Symbol.for('xfer.GcsManager'),
  tasks: Symbol.for('xfer.TaskService'),
  taskRunner: Symbol.for('xfer.TaskRunner'),
};

/** Typed identifiers of the process's container: the adapters, then every core service. */
export const TOKENS = {
  Database: Symbol.for('xfer.Database') as ServiceIdentifier<HealthOfDatabase>,
  UnitOfWork: Symbol.for('xfer.UnitOfWork') as ServiceIdentifier<UnitOfWork>,
  Clock: Symbol.for('xfer.Clock') as ServiceIdentifier<Clock>,
  IdGenerator: Symbol.for('xfer.IdGenerator') as ServiceIdentifier<IdGenerator>,
  ReadMemo: Symbol.for('xfer.ReadMemo') as ServiceIdentifier<ReadMemo>,
  ...SERVICES,
} as const;

/** The adapters' bindings (the TypeORM repositories behind the unit of work, the read memo, the database). */
function adaptersModule(adapters: Adapters): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.Database).toConstantValue(adapters.database);
    bind(TOKENS.UnitOfWork).toConstantValue(adapters.uow);
    bind(TOKENS.ReadMemo).toConstantValue(adapters.readMemo);
  });
}

/** The core use cases, each bound on its own over whatever UnitOfWork, Clock and IdGenerator are bound. */
function coreModule(settings: CoreSettings): ContainerModule {
  const { clock, ids, ...options } = settings;
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.Clock).toConstantValue(clock ?? systemClock);
    bind(TOKENS.IdGenerator).toConstantValue(ids ?? randomIdGenerator);
    for (const key of Object.keys(SERVICES) as (keyof CoreServices)[]) {
      bind(SERVICES[key] as ServiceIdentifier<unknown>)
        .toResolvedValue(
          (uow: UnitOfWork, clockValue: Clock, idsValue: IdGenerator) => CORE_SERVICE_FACTORIES[key]({ uow, clock: clockValue, ids: idsValue, options }),
          [TOKENS.UnitOfWork, TOKENS.Clock, TOKENS.IdGenerator],
        )
        .inSingletonScope();
    }
  });
}

/** The process's one container: the adapters, and the core services over them. */
export function processContainer(adapters: Adapters, settings: CoreSettings = {}): Container {
  const container = new Container();
  container.loadSync(adaptersModule(adapters), coreModule(settings));
  return container;
}

/** Every core service of a container, resolved once (at the composition root). */
export function resolveCoreServices(container: Container): CoreServices {
  return Object.fromEntries((Object.keys(SERVICES) as (keyof CoreServices)[]).map((key) => [key, container.get(SERVICES[key] as ServiceIdentifier<unknown>)])) as unknown as CoreServices;
}
