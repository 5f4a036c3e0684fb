import type { Clock } from '../shared/ports';
import { AuthorizationCodeGrant } from './oauth/AuthorizationCodeGrant';
import { ClientCredentialsGrant } from './oauth/ClientCredentialsGrant';
import { DependentTokenGrant } from './oauth/DependentTokenGrant';
import { OAuthRegistry } from './oauth/OAuthRegistry';
import { RefreshTokenGrant } from './oauth/RefreshTokenGrant';
import { DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS, type AuthorizationServerOptions, type AuthorizationServerRepositories } from './oauth/rules';
import { TokenInspection } from './oauth/TokenInspection';
import { TokenIssuer } from './oauth/TokenIssuer';

export {
  clientUsername,
  DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS,
  OAuthProtocolError,
  parseScopeParameter,
  UnsafeAuthorizationRequestError,
  type AuthorizationRequestParams,
  type AuthorizationServerOptions,
  type AuthorizationServerRepositories,
  type CheckedAuthorizationRequest,
  type IntrospectionDocument,
  type IssuedAccessToken,
  type ScopeTreeNode,
} from './oauth/rules';
export { AuthorizationCodeGrant, ClientCredentialsGrant, DependentTokenGrant, OAuthRegistry, RefreshTokenGrant, TokenInspection, TokenIssuer };

/**
 * The authorization service's use cases behind OAuth 2.0 (RFC 6749, 7009, 7636, 7662), by grant:
 * the protocol itself is parsed by a library in the app; the rules about clients, consents and
 * tokens are in these parts, which share only the rules in oauth/rules.ts.
 */
export class AuthorizationServerService {
  readonly registry: OAuthRegistry;
  readonly authorizationCode: AuthorizationCodeGrant;
  readonly refreshToken: RefreshTokenGrant;
  readonly clientCredentials: ClientCredentialsGrant;
  readonly dependentToken: DependentTokenGrant;
  readonly tokens: TokenIssuer;
  readonly inspection: TokenInspection;

  constructor(
    uow: AuthorizationServerRepositories,
    clock: Clock,
    options: AuthorizationServerOptions = { accessTokenLifetimeSeconds: DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS, issuer: 'http://localhost' },
  ) {
    this.registry = new OAuthRegistry(uow);
    this.authorizationCode = new AuthorizationCodeGrant(uow, clock);
    this.refreshToken = new RefreshTokenGrant(uow);
    this.clientCredentials = new ClientCredentialsGrant(uow, clock);
    this.dependentToken = new DependentTokenGrant(uow, clock, options);
    this.tokens = new TokenIssuer(uow, clock, options);
    this.inspection = new TokenInspection(uow, clock, options);
  }
}
