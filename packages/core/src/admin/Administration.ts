import type { Clock, IdGenerator } from '../shared/ports';
import type { UnitOfWork } from '../shared/UnitOfWork';
import { ClientAdministration } from './ClientAdministration';
import { EndpointAdministration } from './EndpointAdministration';
import { IdentityAdministration } from './IdentityAdministration';
import { MaintenanceAdministration } from './MaintenanceAdministration';
import { NodeAdministration } from './NodeAdministration';
import { SubscriptionAdministration } from './SubscriptionAdministration';
import { TokenAdministration } from './TokenAdministration';

/**
 * Operator actions that have no API of their own (the `xfer` command, seeds, the demo), by what
 * they administer: identities and groups, clients and scopes, tokens and consents, endpoints'
 * roles and pause rules, subscriptions, maintenance, data nodes.
 */
export class Administration {
  readonly identities: IdentityAdministration;
  readonly clients: ClientAdministration;
  readonly tokens: TokenAdministration;
  readonly endpoints: EndpointAdministration;
  readonly subscriptions: SubscriptionAdministration;
  readonly maintenance: MaintenanceAdministration;
  readonly nodes: NodeAdministration;

  constructor(uow: UnitOfWork, clock: Clock, ids: IdGenerator) {
    this.identities = new IdentityAdministration(uow, clock, ids);
    this.clients = new ClientAdministration(uow, clock, ids);
    this.tokens = new TokenAdministration(uow, clock);
    this.endpoints = new EndpointAdministration(uow, clock, ids);
    this.subscriptions = new SubscriptionAdministration(uow, clock, ids);
    this.maintenance = new MaintenanceAdministration(uow, clock);
    this.nodes = new NodeAdministration(uow, clock, ids);
  }
}
