import { AdminService } from './admin/AdminService';
import { AuthenticationService, DEFAULT_AUTHENTICATION_OPTIONS, type AuthenticationOptions } from './auth/AuthenticationService';
import { AuthorizationServerService, DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS, type AuthorizationServerOptions } from './auth/AuthorizationServer';
import { HelperPagesService } from './auth/HelperPagesService';
import { EndpointService } from './endpoint/EndpointService';
import { MaintenanceGate } from './shared/MaintenanceGate';
import type { Clock, IdGenerator } from './shared/ports';
import type { UnitOfWork } from './shared/UnitOfWork';

/** The use cases of the core over one set of adapters. */
export interface CoreServices {
  endpoints: EndpointService;
  authentication: AuthenticationService;
  admin: AdminService;
  helperPages: HelperPagesService;
  authorizationServer: AuthorizationServerService;
  maintenance: MaintenanceGate;
}

export interface CoreOptions {
  authentication?: Partial<AuthenticationOptions>;
  authorizationServer?: Partial<AuthorizationServerOptions>;
}

export function createCoreServices(uow: UnitOfWork, clock: Clock, ids: IdGenerator, options: CoreOptions = {}): CoreServices {
  return {
    endpoints: new EndpointService(uow, clock, ids),
    authentication: new AuthenticationService(uow, clock, { ...DEFAULT_AUTHENTICATION_OPTIONS, ...options.authentication }),
    authorizationServer: new AuthorizationServerService(uow, clock, {
      accessTokenLifetimeSeconds: DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS,
      issuer: 'http://localhost:8081',
      ...options.authorizationServer,
    }),
    admin: new AdminService(uow, clock, ids),
    helperPages: new HelperPagesService(uow, clock),
    maintenance: new MaintenanceGate(uow, clock),
  };
}
