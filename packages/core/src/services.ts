import { AdminService } from './admin/AdminService';
import { AuthenticationService, type IntrospectionOptions } from './auth/AuthenticationService';
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
  maintenance: MaintenanceGate;
}

export function createCoreServices(uow: UnitOfWork, clock: Clock, ids: IdGenerator, options: { introspection?: IntrospectionOptions | null } = {}): CoreServices {
  return {
    endpoints: new EndpointService(uow, clock, ids),
    authentication: new AuthenticationService(uow, clock, options.introspection ?? null),
    admin: new AdminService(uow, clock, ids),
    helperPages: new HelperPagesService(uow, clock),
    maintenance: new MaintenanceGate(uow, clock),
  };
}
