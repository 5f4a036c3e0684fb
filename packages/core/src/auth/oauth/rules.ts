import { BadRequestError, DomainError } from '../../shared/errors';
import type { Clock } from '../../shared/ports';
import type { RepositoriesOf } from '../../shared/UnitOfWork';
import { hashToken, newTokenSecret } from '../AccessToken';
import type { ClientState } from '../Client';
import type { RefreshTokenState } from '../Grant';
import { CLIENTS_DOMAIN } from '../Identity';
import { parseScopeString, type RequestedScope, type ScopeState } from '../Scope';
import { ConsentSet } from '../Consent';

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
export const MAX_SCOPE_DEPTH = 8;

/**
 * The distinct root scope names of a scope parameter (space separated, RFC 6749 3.3, in the hosted
 * service's grammar: dependencies in brackets), in their order; invalid_scope when it cannot be read.
 */
export function parseScopeParameter(scope: string | undefined): string[] {
  return [...new Set(requestedScopes(scope).map((s) => s.name))];
}

export function requestedScopes(scope: string | undefined): RequestedScope[] {
  try {
    return parseScopeString(scope ?? '');
  } catch (error) {
    throw new OAuthProtocolError('invalid_scope', (error as Error).message);
  }
}

/** The dependencies a scope string names that it does not mark optional (`*`), at any depth. */
export function requiredDependencies(scopes: readonly RequestedScope[]): string[] {
  return scopes.flatMap((s) => s.dependencies.filter((d) => !d.optional).flatMap((d) => [d.name, ...requiredDependencies([d])]));
}


/** The username a client's own identity has, as the hosted service names it. */
export const clientUsername = (clientId: string) => `${clientId}@${CLIENTS_DOMAIN}`;


/** Repositories as a transaction or the unit of work hands them to the shared rules. */
export type OAuthRepositories = AuthorizationServerRepositories['repositories'];

/** What the parts of the authorization server are made of. */
export interface OAuthParts {
  uow: AuthorizationServerRepositories;
  clock: Clock;
  options: AuthorizationServerOptions;
}

/** The requested scopes, each registered; a dependency asked for by name must be registered too. */
export async function knownScopes(repos: OAuthRepositories, scope: string | undefined): Promise<ScopeState[]> {
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

export async function consentSetOf(repos: OAuthRepositories, identityIds: string[]): Promise<ConsentSet> {
  return new ConsentSet(await repos.consents.listForIdentities(identityIds));
}

/** PKCE as this service requires it: public clients must use it; S256 only. */
export function checkPkce(client: ClientState, challenge: string | null, method: string | null): void {
  if (challenge === null) {
    if (client.public_client) throw new OAuthProtocolError('invalid_request', 'A public client must use PKCE: code_challenge is required');
    return;
  }
  if ((method ?? 'S256') !== 'S256') throw new OAuthProtocolError('invalid_request', 'code_challenge_method must be S256');
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) throw new OAuthProtocolError('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters)');
}

/**
 * Checks the grant still rests on approved consents of `clientId`: root consents, or with
 * `anyDepth` consents at any depth (a dependent token's). With `usedAt`, stamps them used.
 */
export async function requireConsents(
  repos: OAuthRepositories,
  identityId: string,
  clientId: string,
  scopeNames: readonly string[],
  options: { usedAt?: Date; anyDepth?: boolean } = {},
): Promise<void> {
  const identity = await repos.identities.findById(identityId);
  if (!identity) throw new OAuthProtocolError('invalid_grant', 'The identity of this grant no longer exists');
  const set = await repos.identities.listSet(identity.set_id);
  const consents = await consentSetOf(repos, set.map((i) => i.id));
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

/** What minting tokens takes: for whom, which scopes, and how they relate to a refresh token and a code. */
export interface MintRequest {
  client: ClientState;
  identityId: string;
  scopes: readonly ScopeState[];
  refresh: 'new' | 'none' | RefreshTokenState;
  refreshSecret: string | null;
  codeHash: string | null;
  authTime: Date | null;
  consentClientId: string | null;
}

/** Stores and returns new tokens, one per resource server of the scopes (with a refresh token each when asked). */
export async function mint(repos: OAuthRepositories, now: Date, lifetimeSeconds: number, input: MintRequest): Promise<IssuedAccessToken[]> {
  const lifetime = lifetimeSeconds;
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
