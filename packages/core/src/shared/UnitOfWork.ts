import type { AccessRuleRepository } from '../access/AccessRule';
import type { AccessTokenRepository } from '../auth/AccessToken';
import type { ClientRepository } from '../auth/Client';
import type { ConsentRepository } from '../auth/Consent';
import type { AuthorizationCodeRepository, RefreshTokenRepository } from '../auth/Grant';
import type { ScopeRepository } from '../auth/Scope';
import type { SessionRepository } from '../auth/Session';
import type { SignInFailureRepository } from '../auth/SignInThrottle';
import type { SigningKeyRepository } from '../auth/SigningKey';
import type { GroupRepository } from '../auth/Group';
import type { IdentityRepository } from '../auth/Identity';
import type { EndpointRepository } from '../endpoint/EndpointRepository';
import type { NodeRepository } from '../node/Node';
import type { StorageGatewayRepository } from '../gcs/StorageGateway';
import type { UserCredentialRepository } from '../gcs/UserCredential';
import type { PauseRuleRepository } from '../pause-rule/PauseRule';
import type { RoleRepository } from '../role/Role';
import type { SubscriptionRepository } from '../subscription/Subscription';
import type { ServiceSettingsRepository } from './ServiceSettings';
import type { TaskRepository } from '../task/TaskRepository';

export interface Repositories {
  endpoints: EndpointRepository;
  roles: RoleRepository;
  accessRules: AccessRuleRepository;
  pauseRules: PauseRuleRepository;
  subscriptions: SubscriptionRepository;
  identities: IdentityRepository;
  groups: GroupRepository;
  accessTokens: AccessTokenRepository;
  clients: ClientRepository;
  scopes: ScopeRepository;
  consents: ConsentRepository;
  sessions: SessionRepository;
  signInFailures: SignInFailureRepository;
  signingKeys: SigningKeyRepository;
  authorizationCodes: AuthorizationCodeRepository;
  refreshTokens: RefreshTokenRepository;
  settings: ServiceSettingsRepository;
  tasks: TaskRepository;
  nodes: NodeRepository;
  storageGateways: StorageGatewayRepository;
  userCredentials: UserCredentialRepository;
}

/**
 * Access to the repositories, and atomic writes: everything done with the repositories handed to
 * `transaction` commits together or not at all. A service declares the repositories it uses as
 * `UnitOfWork<Pick<Repositories, ...>>`, so it cannot reach for the others.
 */
export interface UnitOfWork<R = Repositories> {
  readonly repositories: R;
  transaction<T>(work: (repositories: R) => Promise<T>): Promise<T>;
}

/** The unit of work narrowed to the repositories named. */
export type RepositoriesOf<K extends keyof Repositories> = UnitOfWork<Pick<Repositories, K>>;
