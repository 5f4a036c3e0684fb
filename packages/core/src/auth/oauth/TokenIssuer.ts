import type { Clock } from '../../shared/ports';
import type { ClientState } from '../Client';
import type { RefreshTokenState } from '../Grant';
import { knownScopes, mint, requireConsents, type AuthorizationServerOptions, type AuthorizationServerRepositories, type IssuedAccessToken } from './rules';

/** Access (and refresh) tokens for a grant that passed its checks: what every grant ends in. */
export class TokenIssuer {
  constructor(
    private readonly uow: AuthorizationServerRepositories,
    private readonly clock: Clock,
    private readonly options: AuthorizationServerOptions,
  ) {}

  /**
   * Issues access tokens, one per resource server of the scopes, in the order the scopes came.
   * A user's grant must still rest on approved consents (a dependent token's on the consents it
   * came from). `refresh`: 'new' issues a refresh token with each; an existing refresh token is
   * kept (the hosted service does not rotate them).
   */
  async issueTokens(input: {
    client: ClientState;
    identityId: string;
    scopeNames: string[];
    refresh: 'new' | 'none' | RefreshTokenState;
    requireConsent: boolean;
    refreshSecret?: string;
    /** The authorization code being exchanged, if any. */
    codeHash?: string;
    /** When the user signed in for this grant. */
    authTime?: Date | null;
  }): Promise<IssuedAccessToken[]> {
    const now = this.clock.now();
    return this.uow.transaction(async (repos) => {
      const scopes = await knownScopes(repos, input.scopeNames.join(' '));
      // Stryker disable next-line ConditionalExpression,StringLiteral: for 'none', a string's fields are undefined: the consent client is the caller, and no refresh token is stored
      const rests = input.refresh !== 'new' && input.refresh !== 'none' ? input.refresh : null;
      if (input.requireConsent) {
        const consentClientId = rests?.consent_client_id ?? input.client.id;
        await requireConsents(repos, input.identityId, consentClientId, input.scopeNames, { usedAt: now, anyDepth: consentClientId !== input.client.id });
      }
      return mint(repos, now, this.options.accessTokenLifetimeSeconds, {
        client: input.client,
        identityId: input.identityId,
        scopes,
        refresh: input.refresh,
        refreshSecret: input.refreshSecret ?? null,
        codeHash: input.codeHash ?? null,
        authTime: rests ? rests.auth_time : (input.authTime ?? null),
        consentClientId: rests?.consent_client_id ?? null,
      });
    });
  }
}
