import { AccessRuleService } from './access/AccessRuleService';
import { Administration } from './admin/Administration';
import { AuthenticationService, DEFAULT_AUTHENTICATION_OPTIONS, type AuthenticationOptions } from './auth/AuthenticationService';
import { AuthorizationServerService, DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS, type AuthorizationServerOptions } from './auth/AuthorizationServer';
import { ClientRegistrationService } from './auth/ClientRegistration';
import { DEFAULT_HELPER_PAGES_OPTIONS, HelperPagesService } from './auth/HelperPagesService';
import { IdTokenService } from './auth/IdToken';
import { IdentityDirectory } from './auth/IdentityDirectory';
import type { KeyCrypto } from './auth/SigningKey';
import type { SignInThrottleOptions } from './auth/SignInThrottle';
import { Housekeeping } from './shared/Housekeeping';
import { EndpointManagerService } from './endpoint/EndpointManager';
import { EndpointService } from './endpoint/EndpointService';
import { MaintenanceGate } from './shared/MaintenanceGate';
import { FileService } from './storage/FileService';
import { NodeAccess } from './node/NodeAccess';
import { TaskRunner } from './task/TaskRunner';
import { TaskService } from './task/TaskService';
import { NO_STORAGE, type StorageDirectory } from './storage/Storage';
import type { Clock, IdGenerator } from './shared/ports';
import { GcsManager } from './gcs/GcsManager';
import type { UnitOfWork } from './shared/UnitOfWork';

/** The use cases of the core over one set of adapters. */
export interface CoreServices {
  endpoints: EndpointService;
  endpointManager: EndpointManagerService;
  authentication: AuthenticationService;
  admin: Administration;
  helperPages: HelperPagesService;
  authorizationServer: AuthorizationServerService;
  clientRegistration: ClientRegistrationService;
  maintenance: MaintenanceGate;
  housekeeping: Housekeeping;
  idTokens: IdTokenService;
  identityDirectory: IdentityDirectory;
  accessRules: AccessRuleService;
  files: FileService;
  /** What a data node may serve a client over HTTPS (decided here, for the node that asks). */
  nodeAccess: NodeAccess;
  /** A data node's GCS Manager API, decided here for the node that forwards it. */
  gcsManager: GcsManager;
  tasks: TaskService;
  taskRunner: TaskRunner;
}

export interface CoreOptions {
  authentication?: Partial<AuthenticationOptions>;
  authorizationServer?: Partial<AuthorizationServerOptions>;
  signInThrottle?: Partial<SignInThrottleOptions>;
  /** Signs id_tokens (OpenID Connect); without it the service issues none. */
  keyCrypto?: KeyCrypto;
  /** The storage behind endpoints; without it no endpoint has any (EndpointNotConnected). */
  storages?: StorageDirectory;
  /** Told of each task accepted, so that the process's task workers look at once rather than at their next poll. */
  taskSubmitted?: (taskId: string) => void;
}

/** What every service is built from: each takes the part of the unit of work it declares. */
export interface CoreDependencies {
  uow: UnitOfWork;
  clock: Clock;
  ids: IdGenerator;
  options: CoreOptions;
}

const DEFAULT_ISSUER = 'http://localhost:8081';

/** How each service is built: the one place, used by createCoreServices and by the containers' bindings. */
export const CORE_SERVICE_FACTORIES: { [K in keyof CoreServices]: (d: CoreDependencies) => CoreServices[K] } = {
  endpoints: ({ uow, clock, ids }) => new EndpointService(uow, clock, ids),
  endpointManager: ({ uow, clock, ids }) => new EndpointManagerService(uow, clock, ids),
  authentication: ({ uow, clock, options }) =>
    new AuthenticationService(uow, clock, { ...DEFAULT_AUTHENTICATION_OPTIONS, ...options.authentication }),
  authorizationServer: ({ uow, clock, options }) =>
    new AuthorizationServerService(uow, clock, {
      accessTokenLifetimeSeconds: DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS,
      issuer: DEFAULT_ISSUER,
      ...options.authorizationServer,
    }),
  admin: ({ uow, clock, ids }) => new Administration(uow, clock, ids),
  clientRegistration: ({ uow, clock, ids }) => new ClientRegistrationService(uow, clock, ids),
  helperPages: ({ uow, clock, options }) =>
    new HelperPagesService(uow, clock, {
      ...DEFAULT_HELPER_PAGES_OPTIONS,
      signInThrottle: { ...DEFAULT_HELPER_PAGES_OPTIONS.signInThrottle, ...options.signInThrottle },
    }),
  idTokens: ({ uow, clock, ids, options }) =>
    new IdTokenService(uow, clock, ids, options.keyCrypto ?? null, {
      issuer: options.authorizationServer?.issuer ?? DEFAULT_ISSUER,
      lifetimeSeconds: options.authorizationServer?.accessTokenLifetimeSeconds ?? DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS,
    }),
  identityDirectory: ({ uow, clock, ids }) => new IdentityDirectory(uow, clock, ids),
  accessRules: ({ uow, clock, ids }) => new AccessRuleService(uow, clock, ids),
  housekeeping: ({ uow, clock, options }) =>
    new Housekeeping(uow, clock, { signInWindowSeconds: options.signInThrottle?.windowSeconds ?? DEFAULT_HELPER_PAGES_OPTIONS.signInThrottle.windowSeconds }),
  maintenance: ({ uow, clock }) => new MaintenanceGate(uow, clock),
  files: ({ uow, clock, options }) => new FileService(uow, clock, options.storages ?? NO_STORAGE),
  nodeAccess: (d) => new NodeAccess(CORE_SERVICE_FACTORIES.authentication(d), CORE_SERVICE_FACTORIES.files(d)),
  gcsManager: (d) => new GcsManager(d.uow, CORE_SERVICE_FACTORIES.authentication(d), d.clock, d.ids),
  tasks: ({ uow, clock, ids, options }) => new TaskService(uow, clock, ids, options.taskSubmitted),
  taskRunner: (d) => {
    const authentication = CORE_SERVICE_FACTORIES.authentication(d);
    return new TaskRunner(d.uow, CORE_SERVICE_FACTORIES.files(d), (id) => authentication.principalOf(id), d.clock);
  },
};

/** Every service over one unit of work, without a container: for tests and for embedding the core. */
export function createCoreServices(uow: UnitOfWork, clock: Clock, ids: IdGenerator, options: CoreOptions = {}): CoreServices {
  const dependencies: CoreDependencies = { uow, clock, ids, options };
  return {
    endpoints: CORE_SERVICE_FACTORIES.endpoints(dependencies),
    endpointManager: CORE_SERVICE_FACTORIES.endpointManager(dependencies),
    authentication: CORE_SERVICE_FACTORIES.authentication(dependencies),
    authorizationServer: CORE_SERVICE_FACTORIES.authorizationServer(dependencies),
    admin: CORE_SERVICE_FACTORIES.admin(dependencies),
    clientRegistration: CORE_SERVICE_FACTORIES.clientRegistration(dependencies),
    helperPages: CORE_SERVICE_FACTORIES.helperPages(dependencies),
    maintenance: CORE_SERVICE_FACTORIES.maintenance(dependencies),
    housekeeping: CORE_SERVICE_FACTORIES.housekeeping(dependencies),
    idTokens: CORE_SERVICE_FACTORIES.idTokens(dependencies),
    identityDirectory: CORE_SERVICE_FACTORIES.identityDirectory(dependencies),
    accessRules: CORE_SERVICE_FACTORIES.accessRules(dependencies),
    files: CORE_SERVICE_FACTORIES.files(dependencies),
    nodeAccess: CORE_SERVICE_FACTORIES.nodeAccess(dependencies),
    gcsManager: CORE_SERVICE_FACTORIES.gcsManager(dependencies),
    tasks: CORE_SERVICE_FACTORIES.tasks(dependencies),
    taskRunner: CORE_SERVICE_FACTORIES.taskRunner(dependencies),
  };
}
