import OAuth2Server, { OAuthError, Request, Response, ServerError } from '@node-oauth/oauth2-server';
import { OAuthProtocolError, parseScopeParameter, type AuthorizationServerService, type IdTokenService, type IssuedAccessToken, type SignedIn } from '@xfer/core';
import type { IncomingHttpHeaders } from 'node:http';
import { OAuthModel, tokenDocument, type GrantUser } from './OAuthModel';

export interface OAuthProtocolOptions {
  /** Seconds an authorization code can be exchanged (RFC 6749 4.1.2: at most 10 minutes). */
  codeLifetimeSeconds: number;
}

/** What to send back: a redirect (authorization endpoint) or a JSON body (token endpoint). */
export interface ProtocolResult {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  location: string | null;
  /** An unexpected failure behind a server_error answer, for the request log. */
  failure: unknown;
}

/**
 * A scope parameter as the library reads it (names split at spaces): the roots of the hosted
 * grammar's string, whose bracketed dependencies may hold spaces. An unreadable one is left for
 * the core to refuse.
 */
function rootScopes(scope: unknown): { scope?: string } {
  if (typeof scope !== 'string') return {};
  try {
    return { scope: parseScopeParameter(scope).join(' ') };
  } catch {
    return { scope };
  }
}

/** The token request's `state`, echoed like the hosted service (which says `_default` when none came). */
const stateOf = (body: Record<string, unknown>) => (typeof body.state === 'string' && body.state !== '' ? body.state.slice(0, 512) : '_default');

/**
 * RFC 6749 with PKCE, spoken by @node-oauth/oauth2-server: it parses and checks requests and shapes
 * responses; our OAuthModel answers its questions from the core.
 */
export class OAuthProtocol {
  private readonly authorizeServer: OAuth2Server;
  private readonly tokenServer: OAuth2Server;

  constructor(
    private readonly service: AuthorizationServerService,
    idTokens: IdTokenService,
    options: OAuthProtocolOptions,
  ) {
    this.authorizeServer = new OAuth2Server({
      model: new OAuthModel(service, idTokens, false) as unknown as OAuth2Server.AuthorizationCodeModel,
      authorizationCodeLifetime: options.codeLifetimeSeconds,
      allowEmptyState: true,
    });
    this.tokenServer = new OAuth2Server({
      model: new OAuthModel(service, idTokens, true) as unknown as OAuth2Server.AuthorizationCodeModel,
      // the library's own lifetimes are unused: our model sets expiry; refresh tokens live until revoked
      accessTokenLifetime: 3600,
      refreshTokenLifetime: 3600,
      allowExtendedTokenAttributes: true,
      alwaysIssueNewRefreshToken: false,
      // public clients refresh with their client_id alone, as the hosted service's native apps do
      requireClientAuthentication: { refresh_token: false },
    });
  }

  /**
   * After the user's decision: issues a code and answers with the redirect to the client
   * (`allowed` false: the access_denied redirect).
   */
  async authorize(params: Record<string, string>, user: SignedIn, allowed: boolean): Promise<ProtocolResult> {
    const request = new Request({ headers: {}, method: 'GET', query: { ...params, ...rootScopes(params.scope), allowed: String(allowed) } });
    const response = new Response();
    // what the id_token will say of this sign-in travels with the code
    const grantUser: GrantUser = { id: user.identity.id, nonce: params.nonce ?? null, authTime: user.authenticatedAt ?? null };
    return this.run(response, () => this.authorizeServer.authorize(request, response, { authenticateHandler: { handle: () => grantUser } }));
  }

  /** The token endpoint: a form body and headers as they came. */
  async token(headers: IncomingHttpHeaders, body: Record<string, unknown>): Promise<ProtocolResult> {
    // the library sees only the roots of the scope string: the names in brackets are checked here, never ignored
    if (typeof body.scope === 'string' && body.scope.includes('[')) {
      try {
        await this.service.registry.checkScopeParameter(body.scope);
      } catch (error) {
        if (!(error instanceof OAuthProtocolError)) throw error;
        return { status: 400, headers: { 'cache-control': 'no-store' }, body: { error: error.code, error_description: error.message }, location: null, failure: null };
      }
    }
    const request = new Request({ headers: headers as Record<string, string>, method: 'POST', query: {}, body: { ...body, ...rootScopes(body.scope) } });
    const response = new Response();
    const result = await this.run(response, () => this.tokenServer.token(request, response));
    if (result.status === 200) {
      const state = stateOf(body);
      const others = (result.body.other_tokens ?? []) as IssuedAccessToken[];
      result.body = { ...result.body, state, refresh_token: result.body.refresh_token ?? null, other_tokens: others.map((t) => tokenDocument(t, state)) };
    }
    return result;
  }

  private async run(response: Response, work: () => Promise<unknown>): Promise<ProtocolResult> {
    let failure: unknown = null;
    let error: OAuthError | null = null;
    try {
      await work();
    } catch (caught) {
      if (!(caught instanceof OAuthError)) throw caught;
      error = caught;
    }
    if (error instanceof ServerError) {
      failure = (error as OAuthError & { inner?: unknown }).inner ?? error;
      response.status = 500;
      response.body = { error: 'server_error', error_description: 'An internal error occurred' };
    } else if (error) {
      // some checks (method, content type) fail before the library shapes a response
      response.status = error.code;
      response.body = { error: error.name, error_description: error.message };
    }
    const headers = { ...(response.headers ?? {}) } as Record<string, string>;
    const location = headers.location ?? null;
    delete headers.location;
    return { status: response.status ?? 200, headers, body: (response.body ?? {}) as Record<string, unknown>, location, failure };
  }
}
