import type { Clock } from '../../shared/ports';
import { findLiveToken } from '../AccessToken';
import type { ClientState } from '../Client';
import type { ScopeState } from '../Scope';
import { consentSetOf, mint, type AuthorizationServerOptions, type AuthorizationServerRepositories, type IssuedAccessToken, OAuthProtocolError } from './rules';

/** The hosted service's dependent token grant: a resource server's tokens for what a user's token depends on. */
export class DependentTokenGrant {
  constructor(
    private readonly uow: AuthorizationServerRepositories,
    private readonly clock: Clock,
    private readonly options: AuthorizationServerOptions,
  ) {}

  /**
   * The dependent-token grant: a resource server that received a user's token gets tokens for the
   * scopes that the token's scopes depend on, provided the user consented to each (beneath the
   * consent the token rests on). `offline` adds refresh tokens. Consents used are stamped.
   */
  async issueDependentTokens(caller: ClientState, token: string, offline: boolean): Promise<IssuedAccessToken[]> {
    if (caller.public_client || caller.resource_server === null) {
      throw new OAuthProtocolError('unauthorized_client', 'Only a resource server (a confidential client registered for one) may ask for dependent tokens');
    }
    const live = await findLiveToken(this.uow.repositories, token, this.clock.now());
    if (!live) throw new OAuthProtocolError('invalid_grant', 'The token is not valid, expired or revoked');
    if (live.token.resource_server !== caller.resource_server) throw new OAuthProtocolError('invalid_grant', 'The token was not issued for your resource server');
    const consentClientId = live.token.client_id;
    if (consentClientId === null) throw new OAuthProtocolError('invalid_grant', 'The token rests on no consent (an operator issued it)');
    const now = this.clock.now();
    return this.uow.transaction(async (repos) => {
      const set = await repos.identities.listSet(live.identity.set_id);
      const consents = await consentSetOf(repos, set.map((i) => i.id));
      const roots = consents.approvedRoots(consentClientId);
      // Stryker disable next-line ArrayDeclaration: an id no consent has stamps nothing
      const used: number[] = [];
      const dependentScopes: ScopeState[] = [];
      for (const name of live.token.scopes) {
        const scope = await repos.scopes.findByName(name);
        const rootId = scope ? roots.get(scope.id) : undefined;
        if (!scope || rootId === undefined) throw new OAuthProtocolError('invalid_grant', `The user has not consented to '${name}' for this client, or rescinded it`);
        const below = consents.approvedDependentsOf(rootId);
        for (const dependent of await repos.scopes.findByIds(scope.dependent_scope_ids)) {
          const consent = below.find((c) => c.scope_id === dependent.id);
          if (!consent) throw new OAuthProtocolError('invalid_grant', `The user has not consented to '${dependent.name}' beneath '${name}', or rescinded it`);
          used.push(consent.id);
          if (!dependentScopes.some((s) => s.id === dependent.id)) dependentScopes.push(dependent);
        }
      }
      consents.markUsed(used, now);
      await repos.consents.update(consents.changes());
      return mint(repos, now, this.options.accessTokenLifetimeSeconds, {
        client: caller,
        identityId: live.token.identity_id,
        scopes: dependentScopes,
        refresh: offline ? 'new' : 'none',
        refreshSecret: null,
        codeHash: null,
        authTime: null,
        consentClientId,
      });
    });
  }
}
