import OAuth2Server, {
  AccessDeniedError,
  InvalidClientError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  UnauthorizedClientError,
  UnsupportedResponseTypeError,
  type AuthorizationCode,
  type Client,
  type RefreshToken,
  type Token,
  type User,
} from '@node-oauth/oauth2-server';
import { answerTo } from '../http/errors';
import {
  DomainError,
  grantTypesOf,
  isRegisteredRedirect,
  OWN_AUTH_CODE_PAGE,
  type AuthorizationServerService,
  type ClientState,
  type IdTokenService,
  type IssuedAccessToken,
  type OAuthProtocolError,
  type RefreshTokenState,
} from '@xfer/core';

/** Who a grant acts for: a user's identity, or a client's own identity (client_credentials). */
export interface GrantUser extends User {
  id: string;
  viaClientCredentials?: boolean;
  /** Set on the authorization_code grant: the code being exchanged. */
  codeHash?: string;
  /** Set on the refresh_token grant: the refresh token being used, kept (not rotated). */
  refresh?: { secret: string; state: RefreshTokenState };
  /** OpenID Connect: the authorize request's nonce, and when the user signed in. */
  nonce?: string | null;
  authTime?: Date | null;
}

export interface GrantClient extends Client {
  state: ClientState;
}

/** One token of a response in the hosted service's shape (the SDK reads `other_tokens` entries like the top level). */
export function tokenDocument(token: IssuedAccessToken, state?: string) {
  return {
    access_token: token.access_token,
    expires_in: token.expires_in,
    resource_server: token.resource_server,
    token_type: 'Bearer',
    ...(state !== undefined && { state }),
    scope: token.scopes.join(' '),
    refresh_token: token.refresh_token,
  };
}

const LIBRARY_ERRORS: Record<OAuthProtocolError['code'], new (message: string) => OAuth2Server.OAuthError> = {
  invalid_request: InvalidRequestError,
  invalid_client: InvalidClientError,
  invalid_grant: InvalidGrantError,
  invalid_scope: InvalidScopeError,
  unauthorized_client: UnauthorizedClientError,
  unsupported_response_type: UnsupportedResponseTypeError,
  access_denied: AccessDeniedError,
};

/** Our domain's refusals, as the library's errors (which it turns into RFC 6749 responses): the app's one mapping decides the code. */
async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const code = answerTo(error).oauthError;
    const LibraryError = code in LIBRARY_ERRORS ? LIBRARY_ERRORS[code as OAuthProtocolError['code']] : InvalidRequestError;
    throw new LibraryError(error.message);
  }
}

/**
 * The model @node-oauth/oauth2-server calls: every decision is the core's AuthorizationServerService.
 * `authenticateClients` is off for the authorization endpoint (a client is named, not authenticated,
 * there) and on for the token endpoint.
 */
export class OAuthModel {
  constructor(
    private readonly service: AuthorizationServerService,
    private readonly idTokens: IdTokenService,
    private readonly authenticateClients: boolean,
  ) {}

  static grantClient(state: ClientState): GrantClient {
    return { id: state.id, redirectUris: state.redirect_uris, grants: grantTypesOf(state), state };
  }

  async getClient(clientId: string, clientSecret: string | null | undefined): Promise<GrantClient | null> {
    const state = this.authenticateClients ? await this.service.registry.authenticateClient(clientId, clientSecret) : await this.service.registry.client(clientId);
    return state && OAuthModel.grantClient(state);
  }

  /**
   * Exact match only (RFC 6749 3.1.2.3 with no partial matching). This service's own auth-code
   * page: the authorization page checked it is this service's, at the address it was reached at.
   */
  async validateRedirectUri(redirectUri: string, client: GrantClient): Promise<boolean> {
    const ownPage = URL.canParse(redirectUri) && new URL(redirectUri).pathname === OWN_AUTH_CODE_PAGE ? redirectUri : undefined;
    return isRegisteredRedirect(client.state, redirectUri, ownPage);
  }

  async validateScope(_user: GrantUser, _client: GrantClient, scope?: string[]): Promise<string[]> {
    if (!scope || scope.length === 0) throw new InvalidScopeError('scope is required');
    return scope;
  }

  async saveAuthorizationCode(
    code: Pick<AuthorizationCode, 'authorizationCode' | 'expiresAt' | 'redirectUri' | 'scope' | 'codeChallenge' | 'codeChallengeMethod'>,
    client: GrantClient,
    user: GrantUser,
  ): Promise<AuthorizationCode> {
    await translated(() =>
      this.service.authorizationCode.saveAuthorizationCode({
        code: code.authorizationCode,
        client: client.state,
        identityId: user.id,
        redirectUri: code.redirectUri,
        scopes: code.scope ?? [],
        codeChallenge: code.codeChallenge ?? null,
        codeChallengeMethod: code.codeChallengeMethod ?? null,
        expiresAt: code.expiresAt,
        nonce: user.nonce ?? null,
        authTime: user.authTime ?? null,
      }),
    );
    return { ...code, client, user };
  }

  async getAuthorizationCode(authorizationCode: string): Promise<AuthorizationCode | null> {
    const code = await this.service.authorizationCode.findAuthorizationCode(authorizationCode);
    const client = code && (await this.service.registry.client(code.client_id));
    if (!code || !client) return null;
    return {
      authorizationCode,
      codeHash: code.code_hash,
      expiresAt: code.expires_at,
      redirectUri: code.redirect_uri,
      scope: code.scopes,
      client: OAuthModel.grantClient(client),
      user: { id: code.identity_id, codeHash: code.code_hash, nonce: code.nonce, authTime: code.auth_time } satisfies GrantUser,
      ...(code.code_challenge !== null && { codeChallenge: code.code_challenge, codeChallengeMethod: code.code_challenge_method ?? 'S256' }),
    };
  }

  async revokeAuthorizationCode(code: AuthorizationCode): Promise<boolean> {
    return this.service.authorizationCode.consumeAuthorizationCode(code.codeHash as string);
  }

  async getRefreshToken(refreshToken: string): Promise<RefreshToken | null> {
    const state = await this.service.refreshToken.findRefreshToken(refreshToken);
    const client = state && (await this.service.registry.client(state.client_id));
    if (!state || !client) return null;
    const user: GrantUser = { id: state.identity_id, refresh: { secret: refreshToken, state } };
    return { refreshToken, scope: state.scopes, client: OAuthModel.grantClient(client), user };
  }

  /** Only called when refresh tokens rotate, which they do not here (the hosted service keeps them). */
  async revokeToken(token: RefreshToken): Promise<boolean> {
    await this.service.inspection.revokeToken((token.client as GrantClient).state, token.refreshToken);
    return true;
  }

  async getUserFromClient(client: GrantClient): Promise<GrantUser> {
    const identity = await translated(() => this.service.clientCredentials.clientIdentity(client.state));
    return { id: identity.id, viaClientCredentials: true };
  }

  /** Issues our tokens (one per resource server) in place of the library's; the first is the response's top level. */
  async saveToken(token: Token, client: GrantClient, user: GrantUser): Promise<Token> {
    const issued = await translated(() =>
      this.service.tokens.issueTokens({
        client: client.state,
        identityId: user.id,
        scopeNames: token.scope ?? [],
        refresh: user.viaClientCredentials ? 'none' : (user.refresh?.state ?? 'new'),
        refreshSecret: user.refresh?.secret,
        requireConsent: !user.viaClientCredentials,
        codeHash: user.codeHash,
        authTime: user.authTime ?? null,
      }),
    );
    const [main, ...others] = issued;
    // OpenID Connect: a user's sign-in (code or refresh) whose scopes include openid gets an id_token
    const idToken =
      !user.viaClientCredentials && issued.some((t) => t.scopes.includes('openid'))
        ? await translated(() =>
            this.idTokens.issue({
              clientId: client.state.id,
              identityId: user.id,
              scopes: issued.flatMap((t) => t.scopes),
              accessToken: main.access_token,
              nonce: user.refresh ? null : (user.nonce ?? null),
              authTime: user.refresh ? user.refresh.state.auth_time : (user.authTime ?? null),
            }),
          )
        : null;
    return {
      accessToken: main.access_token,
      accessTokenExpiresAt: main.expires_at,
      ...(main.refresh_token !== null && { refreshToken: main.refresh_token }),
      scope: main.scopes,
      client,
      user,
      // the library would count from its own clock and lose a second; say the lifetime we set
      expires_in: main.expires_in,
      resource_server: main.resource_server,
      ...(idToken !== null && { id_token: idToken }),
      other_tokens: others,
    };
  }
}
