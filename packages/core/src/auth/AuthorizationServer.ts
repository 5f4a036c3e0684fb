import { timingSafeEqual } from 'node:crypto';
import { AuthenticationFailedError, BadRequestError, ConsentRequiredError, DomainError } from '../shared/errors';
import type { Clock } from '../shared/ports';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { findLiveToken, hashToken, isTokenUsable, newTokenSecret, type AccessTokenState } from './AccessToken';
import { findNamedClient, isRegisteredRedirect, type ClientState } from './Client';
import type { AuthorizationCodeState, RefreshTokenState } from './Grant';
import type { SignedIn } from './HelperPagesService';
import { CLIENTS_DOMAIN, identityDocument, newIdentity, type IdentityState } from './Identity';
import { identitySetClaim, profileClaims, VIEW_IDENTITY_SET_SCOPE } from './IdToken';
import { parseScopeString, type RequestedScope, type ScopeState } from './Scope';
import { ConsentSet } from './Consent';

/** The repositories the OAuth 2.0 authorization server uses. */
export type AuthorizationServerRepositories = RepositoriesOf<'accessTokens' | 'authorizationCodes' | 'clients' | 'consents' | 'identities' | 'refreshTokens' | 'scopes'>;

/** An RFC 6749 error: `code` is the protocol's error code, sent to the client as `error`. */
export class OAuthProtocolError extends DomainError {
  constructor(
    readonly code:
      | 'invalid_request'
      | 'invalid_client'
      | 'invalid_grant'
      | 'invalid_scope'
      | 'unauthorized_client'
      | 'unsupported_response_type'
      | 'access_denied',
    message: string,
  ) {
    super(message);
  }
}

/**
 * An authorization request that must not be answered by redirecting: the client is unknown or the
 * redirect URI is not one it registered (RFC 6749 4.1.2.1), so the user sees an error page instead.
 */
export class UnsafeAuthorizationRequestError extends BadRequestError {}

export interface AuthorizationRequestParams {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  nonce?: string;
}

export interface CheckedAuthorizationRequest {
  client: ClientState;
  redirectUri: string;
  scopes: ScopeState[];
}

/** A scope as the consent screen shows it, with the scopes it depends on beneath it. */
export interface ScopeTreeNode {
  scope: ScopeState;
  children: ScopeTreeNode[];
}

/** One token of a token response; a request spanning several resource servers gets one each. */
export interface IssuedAccessToken {
  access_token: string;
  expires_in: number;
  expires_at: Date;
  resource_server: string;
  scopes: string[];
  refresh_token: string | null;
}

export interface IntrospectionDocument {
  active: boolean;
  [key: string]: unknown;
}

export interface AuthorizationServerOptions {
  accessTokenLifetimeSeconds: number;
  /** Identifies this service in introspection results (`iss`). */
  issuer: string;
}

export const DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS = 48 * 60 * 60;
const MAX_SCOPE_DEPTH = 8;

/**
 * The distinct root scope names of a scope parameter (space separated, RFC 6749 3.3, in the hosted
 * service's grammar: dependencies in brackets), in their order; invalid_scope when it cannot be read.
 */
export function parseScopeParameter(scope: string | undefined): string[] {
  return [...new Set(requestedScopes(scope).map((s) => s.name))];
}

function requestedScopes(scope: string | undefined): RequestedScope[] {
  try {
    return parseScopeString(scope ?? '');
  } catch (error) {
    throw new OAuthProtocolError('invalid_scope', (error as Error).message);
  }
}

/** The dependencies a scope string names that it does not mark optional (`*`), at any depth. */
function requiredDependencies(scopes: readonly RequestedScope[]): string[] {
  return scopes.flatMap((s) => s.dependencies.filter((d) => !d.optional).flatMap((d) => [d.name, ...requiredDependencies([d])]));
}


/** The username a client's own identity has, as the hosted service names it. */
export const clientUsername = (clientId: string) => `${clientId}@${CLIENTS_DOMAIN}`;

/**
 * The authorization service's use cases behind OAuth 2.0 (RFC 6749, 7009, 7636, 7662): the protocol
 * itself is parsed by a library in the app; the rules about clients, consents and tokens are here.
 */
export class AuthorizationServerService {
  constructor(
    private readonly uow: AuthorizationServerRepositories,
    private readonly clock: Clock,
    private readonly options: AuthorizationServerOptions = { accessTokenLifetimeSeconds: DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS, issuer: 'http://localhost' },
  ) {}

  /** A registered client by id (no secret checked): who an authorization request is for. */
  async client(clientId: string | undefined): Promise<ClientState | null> {
    return findNamedClient(this.uow.repositories.clients, clientId);
  }

  /**
   * Authenticates a client at the token, introspection and revocation endpoints: a confidential
   * client by its secret; a public client has none and must not send one.
   */
  async authenticateClient(clientId: string | undefined, secret: string | undefined | null): Promise<ClientState | null> {
    const client = await this.client(clientId);
    if (!client) return null;
    if (client.public_client) return secret ? null : client;
    if (!secret || !client.secret_hash) return null;
    const given = Buffer.from(hashToken(secret), 'hex');
    return timingSafeEqual(given, Buffer.from(client.secret_hash, 'hex')) ? client : null;
  }

  /**
   * Checks an authorization request before the user is asked anything. Throws
   * UnsafeAuthorizationRequestError when the client may not be redirected to, OAuthProtocolError
   * for what the client is told at its redirect URI.
   */
  async checkAuthorizationRequest(params: AuthorizationRequestParams, ownAuthCodePage?: string): Promise<CheckedAuthorizationRequest> {
    const client = await this.client(params.client_id);
    if (!client) throw new UnsafeAuthorizationRequestError('The application that sent you here is not registered with this service (unknown client_id).');
    // Stryker disable next-line StringLiteral: a client registers absolute URLs only, so no other default matches either
    const redirectUri = params.redirect_uri ?? '';
    if (!isRegisteredRedirect(client, redirectUri, ownAuthCodePage)) {
      throw new UnsafeAuthorizationRequestError(
        `The redirect_uri the application sent is not one it registered, so you are not sent back to it.`,
      );
    }
    if (params.response_type !== 'code') throw new OAuthProtocolError('unsupported_response_type', 'response_type must be code');
    // RFC 6749 A.5: VSCHAR only, so the state can travel back unchanged
    // Stryker disable next-line ConditionalExpression: RegExp.test(undefined) tests 'undefined', which passes
    if (params.state !== undefined && !/^[\x20-\x7e]{0,1024}$/.test(params.state)) throw new OAuthProtocolError('invalid_request', 'state must be printable ASCII, at most 1024 characters');
    // Stryker disable next-line ConditionalExpression: RegExp.test(undefined) tests 'undefined', which passes
    if (params.nonce !== undefined && !/^[\x20-\x7e]{1,512}$/.test(params.nonce)) throw new OAuthProtocolError('invalid_request', 'nonce must be printable ASCII, at most 512 characters');
    this.checkPkce(client, params.code_challenge ?? null, params.code_challenge_method ?? null);
    return { client, redirectUri, scopes: await this.knownScopes(params.scope) };
  }

  private checkPkce(client: ClientState, challenge: string | null, method: string | null): void {
    if (challenge === null) {
      if (client.public_client) throw new OAuthProtocolError('invalid_request', 'A public client must use PKCE: code_challenge is required');
      return;
    }
    if ((method ?? 'S256') !== 'S256') throw new OAuthProtocolError('invalid_request', 'code_challenge_method must be S256');
    if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) throw new OAuthProtocolError('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters)');
  }

  private async knownScopes(scope: string | undefined, repos: AuthorizationServerRepositories['repositories'] = this.uow.repositories): Promise<ScopeState[]> {
    const requested = requestedScopes(scope);
    const names = [...new Set(requested.map((s) => s.name))];
    if (names.length === 0) throw new OAuthProtocolError('invalid_scope', 'scope is required');
    const scopes: ScopeState[] = [];
    for (const name of names) {
      const found = await repos.scopes.findByName(name);
      if (!found) throw new OAuthProtocolError('invalid_scope', `Unknown scope '${name.slice(0, 200)}'`);
      scopes.push(found);
    }
    // a dependency asked for by name must exist; what is consented beneath a scope is its registered dependents
    for (const name of new Set(requiredDependencies(requested))) {
      if (!(await repos.scopes.findByName(name))) throw new OAuthProtocolError('invalid_scope', `Unknown scope '${name.slice(0, 200)}'`);
    }
    return scopes;
  }

  /** The names of every registered scope (for the discovery document). */
  async scopeNames(): Promise<string[]> {
    return (await this.uow.repositories.scopes.list()).map((s) => s.name);
  }

  /** The requested scopes with their dependent scopes beneath them, as the consent screen shows them. */
  async scopeTree(scopes: readonly ScopeState[]): Promise<ScopeTreeNode[]> {
    const build = async (scope: ScopeState, seen: Set<string>): Promise<ScopeTreeNode> => {
      const below = seen.size >= MAX_SCOPE_DEPTH ? [] : (await this.uow.repositories.scopes.findByIds(scope.dependent_scope_ids)).filter((s) => !seen.has(s.id));
      return { scope, children: await Promise.all(below.map((s) => build(s, new Set([...seen, s.id])))) };
    };
    return Promise.all(scopes.map((s) => build(s, new Set([s.id]))));
  }

  /** The requested scopes the user has not consented to for this client yet (empty: ask nothing). */
  async scopesToConsent(user: SignedIn, client: ClientState, scopes: readonly ScopeState[]): Promise<ScopeState[]> {
    const approved = await this.approvedConsents(this.uow.repositories, user.set.map((i) => i.id), client.id);
    return scopes.filter((s) => !approved.has(s.id));
  }

  /** The user's approved root consents for a client, by scope id. */
  private async approvedConsents(repos: AuthorizationServerRepositories['repositories'], identityIds: string[], clientId: string): Promise<Map<string, number>> {
    return (await this.consentSet(repos, identityIds)).approvedRoots(clientId);
  }

  private async consentSet(repos: AuthorizationServerRepositories['repositories'], identityIds: string[]): Promise<ConsentSet> {
    return new ConsentSet(await repos.consents.listForIdentities(identityIds));
  }

  /** Allow on the consent screen: records a consent per scope not consented yet, its dependent scopes beneath it. */
  async recordConsents(user: SignedIn, client: ClientState, scopes: readonly ScopeState[]): Promise<void> {
    const trees = await this.scopeTree(scopes);
    const now = this.clock.now();
    await this.uow.transaction(async (repos) => {
      // read inside the transaction: a second Allow (another tab) adds nothing twice
      const approved = await this.approvedConsents(repos, user.set.map((i) => i.id), client.id);
      const add = async (node: ScopeTreeNode, parentPath: readonly number[]): Promise<void> => {
        const consent = await repos.consents.add({
          client_id: client.id,
          scope_id: node.scope.id,
          identity_id: user.identity.id,
          parent_path: parentPath,
          created: now,
          updated: now,
          last_used: null,
          status: 'approved',
        });
        for (const child of node.children) await add(child, consent.dependency_path);
      };
      for (const tree of trees) if (!approved.has(tree.scope.id)) await add(tree, []);
    });
  }

  /** Stores a code for a consented request; only its hash is kept. */
  async saveAuthorizationCode(input: {
    code: string;
    client: ClientState;
    identityId: string;
    redirectUri: string;
    scopes: string[];
    codeChallenge: string | null;
    codeChallengeMethod: string | null;
    expiresAt: Date;
    /** OpenID Connect: the authorize request's nonce. */
    nonce?: string | null;
    /** When the user signed in (the session's start). */
    authTime?: Date | null;
  }): Promise<AuthorizationCodeState> {
    this.checkPkce(input.client, input.codeChallenge, input.codeChallengeMethod);
    const state: AuthorizationCodeState = {
      code_hash: hashToken(input.code),
      client_id: input.client.id,
      identity_id: input.identityId,
      redirect_uri: input.redirectUri,
      scopes: input.scopes,
      code_challenge: input.codeChallenge,
      code_challenge_method: input.codeChallenge === null ? null : 'S256',
      nonce: input.nonce ?? null,
      auth_time: input.authTime ?? null,
      created_at: this.clock.now(),
      expires_at: input.expiresAt,
      used_at: null,
    };
    await this.uow.transaction(async (repos) => {
      await this.requireConsents(repos, input.identityId, input.client.id, input.scopes);
      await repos.authorizationCodes.add(state);
    });
    return state;
  }

  /**
   * An unused code by its value (expiry is the protocol library's check). A code presented again
   * was probably stolen: the tokens issued for it are revoked (RFC 6749 4.1.2).
   */
  async findAuthorizationCode(code: string): Promise<AuthorizationCodeState | null> {
    const found = await this.uow.repositories.authorizationCodes.findByHash(hashToken(code));
    if (found?.used_at) {
      const now = this.clock.now();
      await this.uow.transaction(async (repos) => {
        for (const hash of await repos.refreshTokens.revokeIssuedForCode(found.code_hash, now)) await repos.accessTokens.revokeByRefreshToken(hash, now);
      });
    }
    return found && found.used_at === null ? found : null;
  }

  /** Spends a code: true for the one exchange that wins. */
  async consumeAuthorizationCode(codeHash: string): Promise<boolean> {
    return this.uow.transaction((repos) => repos.authorizationCodes.markUsed(codeHash, this.clock.now()));
  }

  /** A live refresh token by its value. */
  async findRefreshToken(secret: string): Promise<RefreshTokenState | null> {
    const found = await this.uow.repositories.refreshTokens.findByHash(hashToken(secret));
    return found && found.revoked_at === null ? found : null;
  }

  /** The identity a confidential client acts as with client_credentials: its own, made on first use. */
  async clientIdentity(client: ClientState): Promise<IdentityState> {
    return this.uow.transaction(async (repos) => {
      const existing = await repos.identities.findById(client.id);
      if (existing) return existing;
      const identity: IdentityState = {
        ...newIdentity({ id: client.id, username: clientUsername(client.id), name: client.display_name, now: this.clock.now() }),
        identity_type: 'client',
      };
      await repos.identities.add(identity);
      return identity;
    });
  }

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
      const scopes = await this.knownScopes(input.scopeNames.join(' '), repos);
      // Stryker disable next-line ConditionalExpression,StringLiteral: for 'none', a string's fields are undefined: the consent client is the caller, and no refresh token is stored
      const rests = input.refresh !== 'new' && input.refresh !== 'none' ? input.refresh : null;
      if (input.requireConsent) {
        const consentClientId = rests?.consent_client_id ?? input.client.id;
        await this.requireConsents(repos, input.identityId, consentClientId, input.scopeNames, { usedAt: now, anyDepth: consentClientId !== input.client.id });
      }
      return this.mint(repos, now, {
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

  /** Stores and returns new tokens, one per resource server of the scopes (with a refresh token each when asked). */
  private async mint(
    repos: AuthorizationServerRepositories['repositories'],
    now: Date,
    input: {
      client: ClientState;
      identityId: string;
      scopes: readonly ScopeState[];
      refresh: 'new' | 'none' | RefreshTokenState;
      refreshSecret: string | null;
      codeHash: string | null;
      authTime: Date | null;
      consentClientId: string | null;
    },
  ): Promise<IssuedAccessToken[]> {
    const lifetime = this.options.accessTokenLifetimeSeconds;
    const groups = new Map<string, string[]>();
    for (const scope of input.scopes) groups.set(scope.resource_server, [...(groups.get(scope.resource_server) ?? []), scope.name]);
    const issued: IssuedAccessToken[] = [];
    for (const [resourceServer, names] of groups) {
      let refreshHash: string | null = null;
      let refreshSecret: string | null = null;
      if (input.refresh === 'new') {
        refreshSecret = newTokenSecret();
        refreshHash = hashToken(refreshSecret);
        await repos.refreshTokens.add({
          token_hash: refreshHash,
          identity_id: input.identityId,
          client_id: input.client.id,
          scopes: names,
          resource_server: resourceServer,
          authorization_code_hash: input.codeHash,
          auth_time: input.authTime,
          consent_client_id: input.consentClientId,
          created_at: now,
          revoked_at: null,
        });
      } else if (input.refresh !== 'none') {
        refreshHash = input.refresh.token_hash;
        refreshSecret = input.refreshSecret;
      }
      const secret = newTokenSecret();
      const expiresAt = new Date(now.getTime() + lifetime * 1000);
      await repos.accessTokens.add({
        token_hash: hashToken(secret),
        identity_id: input.identityId,
        created_at: now,
        expires_at: expiresAt,
        revoked_at: null,
        client_id: input.client.id,
        scopes: names,
        resource_server: resourceServer,
        refresh_token_hash: refreshHash,
        consent_client_id: input.consentClientId,
      });
      issued.push({ access_token: secret, expires_in: lifetime, expires_at: expiresAt, resource_server: resourceServer, scopes: names, refresh_token: refreshSecret });
    }
    return issued;
  }

  /**
   * The dependent-token grant: a resource server that received a user's token gets tokens for the
   * scopes that the token's scopes depend on, provided the user consented to each (beneath the
   * consent the token rests on). `offline` adds refresh tokens. Consents used are stamped.
   */
  async issueDependentTokens(caller: ClientState, token: string, offline: boolean): Promise<IssuedAccessToken[]> {
    if (caller.public_client || caller.resource_server === null) {
      throw new OAuthProtocolError('unauthorized_client', 'Only a resource server (a confidential client registered for one) may ask for dependent tokens');
    }
    const live = await this.liveToken(token);
    if (!live) throw new OAuthProtocolError('invalid_grant', 'The token is not valid, expired or revoked');
    if (live.token.resource_server !== caller.resource_server) throw new OAuthProtocolError('invalid_grant', 'The token was not issued for your resource server');
    const consentClientId = live.token.client_id;
    if (consentClientId === null) throw new OAuthProtocolError('invalid_grant', 'The token rests on no consent (an operator issued it)');
    const now = this.clock.now();
    return this.uow.transaction(async (repos) => {
      const set = await repos.identities.listSet(live.identity.set_id);
      const consents = await this.consentSet(repos, set.map((i) => i.id));
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
      return this.mint(repos, now, {
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

  /**
   * Checks the grant still rests on approved consents of `clientId`: root consents, or with
   * `anyDepth` consents at any depth (a dependent token's). With `usedAt`, stamps them used.
   */
  private async requireConsents(
    repos: AuthorizationServerRepositories['repositories'],
    identityId: string,
    clientId: string,
    scopeNames: readonly string[],
    options: { usedAt?: Date; anyDepth?: boolean } = {},
  ): Promise<void> {
    const identity = await repos.identities.findById(identityId);
    if (!identity) throw new OAuthProtocolError('invalid_grant', 'The identity of this grant no longer exists');
    const set = await repos.identities.listSet(identity.set_id);
    const consents = await this.consentSet(repos, set.map((i) => i.id));
    const approved = options.anyDepth ? consents.approvedAnyDepth(clientId) : consents.approvedRoots(clientId);
    // Stryker disable next-line ArrayDeclaration: an id no consent has stamps nothing
    const ids: number[] = [];
    for (const name of scopeNames) {
      const scope = await repos.scopes.findByName(name);
      const consentId = scope && approved.get(scope.id);
      if (consentId === undefined || consentId === null) throw new OAuthProtocolError('invalid_grant', `The user has not consented to '${name}' for this client, or rescinded it`);
      ids.push(consentId);
    }
    if (options.usedAt) {
      consents.markUsed(ids, options.usedAt);
      await repos.consents.update(consents.changes());
    }
  }

  /** What a token stands for (RFC 7662), to the client it was issued to or the resource server it is for. */
  async introspect(caller: ClientState, token: string, include: readonly string[]): Promise<IntrospectionDocument> {
    const { identities } = this.uow.repositories;
    const live = await this.liveToken(token);
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
    const live = token ? await this.liveToken(token) : null;
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

  /** A token that is neither revoked nor expired, with the identity it was issued to. */
  private liveToken(token: string): Promise<{ token: AccessTokenState; identity: IdentityState } | null> {
    return findLiveToken(this.uow.repositories, token, this.clock.now());
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
  private async speaksFor(repos: AuthorizationServerRepositories['repositories'], caller: ClientState, clientId: string | null): Promise<boolean> {
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
    if (refresh) return { active: refresh.revoked_at === null && refresh.client_id === caller.id };
    const access = await accessTokens.findByHash(hash);
    return { active: access !== null && isTokenUsable(access, now) && access.client_id === caller.id };
  }

  /** "Rescind" on the consents page: the user's consents for the client go, and every token issued under them. */
  async rescind(user: SignedIn, clientId: string): Promise<{ consents: number; tokens: number }> {
    const ids = user.set.map((i) => i.id);
    const now = this.clock.now();
    return this.uow.transaction(async (repos) => {
      const consents = await this.consentSet(repos, ids);
      const rescinded = consents.rescind(clientId, now);
      await repos.consents.update(consents.changes());
      const tokens = (await repos.accessTokens.revokeIssuedTo(ids, clientId, now)) + (await repos.refreshTokens.revokeIssuedTo(ids, clientId, now));
      return { consents: rescinded, tokens };
    });
  }
}
