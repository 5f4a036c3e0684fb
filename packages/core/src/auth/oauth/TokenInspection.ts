import { AuthenticationFailedError, ConsentRequiredError } from '../../shared/errors';
import type { Clock } from '../../shared/ports';
import { findLiveToken, hashToken, isTokenUsable, type AccessTokenState } from '../AccessToken';
import type { ClientState } from '../Client';
import { isRefreshTokenLive } from '../Grant';
import { identityDocument, type IdentityState } from '../Identity';
import { identitySetClaim, profileClaims, VIEW_IDENTITY_SET_SCOPE } from '../IdToken';
import type { AuthorizationServerOptions, AuthorizationServerRepositories, IntrospectionDocument, OAuthRepositories } from './rules';

/** What a token stands for and whether it lives: introspection (RFC 7662), userinfo (OpenID Connect), revocation (RFC 7009) and validation. */
export class TokenInspection {
  constructor(
    private readonly uow: AuthorizationServerRepositories,
    private readonly clock: Clock,
    private readonly options: AuthorizationServerOptions,
  ) {}

  /** What a token stands for (RFC 7662), to the client it was issued to or the resource server it is for. */
  async introspect(caller: ClientState, token: string, include: readonly string[]): Promise<IntrospectionDocument> {
    const { identities } = this.uow.repositories;
    const live = await findLiveToken(this.uow.repositories, token, this.clock.now());
    if (!live || !this.mayInspect(caller, live.token)) return { active: false };
    const { token: found, identity } = live;
    const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
    const document: IntrospectionDocument = {
      active: true,
      token_type: 'Bearer',
      scope: found.scopes.join(' '),
      client_id: found.client_id,
      sub: identity.id,
      username: identity.username,
      name: identity.name,
      email: identity.email,
      aud: [found.resource_server, ...(found.client_id ? [found.client_id] : [])],
      iss: this.options.issuer,
      exp: found.expires_at ? seconds(found.expires_at) : null,
      iat: seconds(found.created_at),
      nbf: seconds(found.created_at),
    };
    // Stryker disable next-line ConditionalExpression: reading the set when neither is asked adds nothing to the document
    if (include.includes('identity_set') || include.includes('identity_set_detail')) {
      const set = await identities.listSet(identity.set_id);
      if (include.includes('identity_set')) document.identity_set = set.map((i) => i.id);
      if (include.includes('identity_set_detail')) document.identity_set_detail = set.map((i) => ({ ...identityDocument(i), sub: i.id }));
    }
    if (include.includes('session_info')) document.session_info = await this.sessionInfo(found, identity);
    return document;
  }
  /**
   * The hosted service's session_info of a token: the identity that signed in for it, and when
   * (the sign-in its refresh token records; the token's own issue time for a token without one).
   */
  private async sessionInfo(token: AccessTokenState, identity: IdentityState): Promise<Record<string, unknown>> {
    const refresh = token.refresh_token_hash === null ? null : await this.uow.repositories.refreshTokens.findByHash(token.refresh_token_hash);
    const authTime = refresh?.auth_time ?? token.created_at;
    return {
      session_id: refresh?.token_hash.slice(0, 32) ?? token.token_hash.slice(0, 32),
      authentications: { [identity.id]: { auth_time: Math.floor(authTime.getTime() / 1000), idp: identity.identity_provider, acr: null, amr: null, custom_claims: {} } },
    };
  }
  /**
   * OpenID Connect userinfo for a token carrying `openid`: `sub` always; name, username and
   * provider with `profile`; `email` with `email`; the identity set with the hosted service's
   * view_identity_set scope.
   */
  async userInfo(token: string | undefined): Promise<Record<string, unknown>> {
    const { identities } = this.uow.repositories;
    const live = token ? await findLiveToken(this.uow.repositories, token, this.clock.now()) : null;
    if (!live) throw new AuthenticationFailedError('Token is not valid, expired or revoked.');
    const { token: found, identity } = live;
    const has = (scope: string) => found.scopes.includes(scope);
    if (!has('openid')) throw new ConsentRequiredError('userinfo needs a token with the openid scope', ['openid']);
    return {
      sub: identity.id,
      ...(has('profile') && profileClaims(identity)),
      ...(has('email') && { email: identity.email }),
      ...(has(VIEW_IDENTITY_SET_SCOPE) && {
        identity_set: identitySetClaim(await identities.listSet(identity.set_id)),
      }),
    };
  }
  private mayInspect(caller: ClientState, token: AccessTokenState): boolean {
    // every token has a resource server: a client that runs none (null) never matches
    return token.client_id === caller.id || caller.resource_server === token.resource_server;
  }
  /**
   * RFC 7009: revokes an access or refresh token issued to the calling client (a refresh token
   * takes its access tokens with it). Anything else is ignored, as the RFC asks.
   */
  async revokeToken(caller: ClientState, token: string): Promise<void> {
    const hash = hashToken(token);
    const now = this.clock.now();
    await this.uow.transaction(async (repos) => {
      const refresh = await repos.refreshTokens.findByHash(hash);
      if (refresh && (await this.speaksFor(repos, caller, refresh.client_id))) {
        await repos.refreshTokens.revoke(hash, now);
        await repos.accessTokens.revokeByRefreshToken(hash, now);
        return;
      }
      const access = await repos.accessTokens.findByHash(hash);
      if (access && (await this.speaksFor(repos, caller, access.client_id))) await repos.accessTokens.revoke(hash, now);
    });
  }
  /**
   * Whether the caller may act on tokens issued to `clientId`: its own, and those of the clients
   * made from it (the hosted CLI revokes its users' tokens as its built-in client at logout).
   */
  private async speaksFor(repos: OAuthRepositories, caller: ClientState, clientId: string | null): Promise<boolean> {
    if (clientId === null) return false;
    if (clientId === caller.id) return true;
    return (await repos.clients.findById(clientId))?.template_id === caller.id;
  }
  /**
   * The hosted service's token validation (POST /v2/oauth2/token/validate): whether an access or
   * refresh token issued to the calling client is live. Anything else is simply not active.
   */
  async validateToken(caller: ClientState, token: string): Promise<{ active: boolean }> {
    const hash = hashToken(token);
    const now = this.clock.now();
    const { refreshTokens, accessTokens } = this.uow.repositories;
    const refresh = await refreshTokens.findByHash(hash);
    if (refresh) return { active: isRefreshTokenLive(refresh) && refresh.client_id === caller.id };
    const access = await accessTokens.findByHash(hash);
    return { active: access !== null && isTokenUsable(access, now) && access.client_id === caller.id };
  }
}
