import type { AccessTokenRepository } from '../auth/AccessToken';
import type { ClientRepository } from '../auth/Client';
import type { ConsentRepository } from '../auth/Consent';
import type { AuthorizationCodeRepository, RefreshTokenRepository } from '../auth/Grant';
import type { ScopeRepository } from '../auth/Scope';
import type { SessionRepository } from '../auth/Session';
import type { GroupRepository } from '../auth/Group';
import type { IdentityRepository } from '../auth/Identity';
import type { EndpointRepository } from '../endpoint/EndpointRepository';
import type { PauseRuleRepository } from '../pause-rule/PauseRule';
import type { RoleRepository } from '../role/Role';
import type { SubscriptionRepository } from '../subscription/Subscription';
import type { ServiceSettingsRepository } from './ServiceSettings';

export interface Repositories {
  endpoints: EndpointRepository;
  roles: RoleRepository;
  pauseRules: PauseRuleRepository;
  subscriptions: SubscriptionRepository;
  identities: IdentityRepository;
  groups: GroupRepository;
  accessTokens: AccessTokenRepository;
  clients: ClientRepository;
  scopes: ScopeRepository;
  consents: ConsentRepository;
  sessions: SessionRepository;
  authorizationCodes: AuthorizationCodeRepository;
  refreshTokens: RefreshTokenRepository;
  settings: ServiceSettingsRepository;
}

/**
 * Access to the repositories, and atomic writes: everything done with the repositories handed to
 * `transaction` commits together or not at all.
 */
export interface UnitOfWork {
  readonly repositories: Repositories;
  transaction<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
}
