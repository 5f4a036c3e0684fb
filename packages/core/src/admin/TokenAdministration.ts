import { hashToken, newTokenSecret, tokenId, type AccessTokenRepository, type AccessTokenState } from '../auth/AccessToken';
import { TRANSFER_SCOPE } from '../auth/AuthenticationService';
import { checkScopeName, parseScopeString, resourceServerOf } from '../auth/Scope';
import { ConsentSet, type ConsentState } from '../auth/Consent';
import { BadRequestError, ConflictError, ResourceNotFoundError } from '../shared/errors';
import type { Clock } from '../shared/ports';

import type { RepositoriesOf } from '../shared/UnitOfWork';
import { identityNamed } from './lookups';

export interface IssuedToken {
  token: string;
  identity_id: string;
  expires_at: Date | null;
}

/** The repositories TokenAdministration uses. */
export type TokenAdminRepositories = RepositoriesOf<'accessTokens' | 'clients' | 'consents' | 'identities' | 'scopes'>;

/** Tokens an operator issues or revokes, and consents. */
/** The longest lifetime an operator may give a token: ten years. */
export const MAX_OPERATOR_TOKEN_LIFETIME = 10 * 365 * 24 * 60 * 60;

/** A token whose value (its hash) another token has already is refused: two holders would share one credential. */
async function addOnce(tokens: AccessTokenRepository, token: AccessTokenState): Promise<void> {
  if (await tokens.findByHash(token.token_hash)) throw new ConflictError('Invalid value: a token with this value exists already: give another value');
  await tokens.add(token);
}

export class TokenAdministration {
  constructor(
    private readonly uow: TokenAdminRepositories,
    private readonly clock: Clock,
  ) {}

  /**
   * Issues an access token for an identity (no client, no consent), by default for the transfer
   * API's scope; `value`: the token's secret as given (a test stand-in's
   * seed, so tests can hard-code it), else a new random one.
   */
  async issueToken(username: string, lifetimeSeconds: number | null = null, scope: string = TRANSFER_SCOPE, value?: string): Promise<IssuedToken> {
    return this.uow.transaction(async (repos) => {
      const identity = await identityNamed(repos, username);
      // several scopes, space-separated as in OAuth 2.0, in the hosted grammar: a root's dependencies
      // in brackets (`manage_collections[*<collection>/data_access]`) are the resource server's to use, the token is of the roots
      const scopes = [...new Set(parseScopeString(scope).map((root) => root.name))];
      if (value !== undefined && !/^[\x21-\x7e]{8,512}$/.test(value)) throw new BadRequestError('Invalid token value: 8 to 512 printable ASCII characters without spaces');
      if (lifetimeSeconds !== null && (!Number.isInteger(lifetimeSeconds) || lifetimeSeconds < 1 || lifetimeSeconds > MAX_OPERATOR_TOKEN_LIFETIME)) {
        throw new BadRequestError(`Invalid expires_in: a whole number of seconds from 1 to ${MAX_OPERATOR_TOKEN_LIFETIME} (ten years)`);
      }
      const token = value ?? newTokenSecret();
      const now = this.clock.now();
      const expires_at = lifetimeSeconds === null ? null : new Date(now.getTime() + lifetimeSeconds * 1000);
      await addOnce(repos.accessTokens, operatorToken(identity.id, scopes, hashToken(token), expires_at, now));
      return { token, identity_id: identity.id, expires_at };
    });
  }
  /** An access token known by its hash only (an export's round trip): for an identity, of scopes of one resource server. */
  async importToken(username: string, token: { token_hash: string; scopes: readonly string[]; expires_at: Date | null }): Promise<void> {
    if (!/^[0-9a-f]{64}$/.test(token.token_hash)) throw new BadRequestError('Invalid value_hash: a token hash as xfer export writes it');
    await this.uow.transaction(async (repos) => {
      const identity = await identityNamed(repos, username);
      await addOnce(repos.accessTokens, operatorToken(identity.id, token.scopes, token.token_hash, token.expires_at, this.clock.now()));
    });
  }
  /** Tokens of an identity, without their secrets (which are never stored). */
  async listTokens(username: string): Promise<{ id: string; created_at: Date; expires_at: Date | null; revoked_at: Date | null; usable: boolean }[]> {
    const identity = await identityNamed(this.uow.repositories, username);
    const now = this.clock.now();
    return (await this.uow.repositories.accessTokens.listForIdentity(identity.id)).map((t: AccessTokenState) => ({
      id: tokenId(t),
      created_at: t.created_at,
      expires_at: t.expires_at,
      revoked_at: t.revoked_at,
      usable: t.revoked_at === null && (t.expires_at === null || t.expires_at > now),
    }));
  }
  /** Revokes a token by its id (as `listTokens` shows it) or by the token itself. */
  async revokeToken(idOrToken: string): Promise<string> {
    return this.uow.transaction(async (repos) => {
      const byToken = await repos.accessTokens.findByHash(hashToken(idOrToken));
      // Stryker disable next-line Regex: a prefix with anything but hex digits finds no token either
      const matches = byToken ? [byToken] : /^[0-9a-f]{8,64}$/.test(idOrToken) ? await repos.accessTokens.findByHashPrefix(idOrToken) : [];
      if (matches.length === 0) throw new ResourceNotFoundError(`No such token '${idOrToken}'`);
      if (matches.length > 1) throw new BadRequestError(`Token id '${idOrToken}' is ambiguous: give more characters`);
      await repos.accessTokens.revoke(matches[0].token_hash, this.clock.now());
      return tokenId(matches[0]);
    });
  }
  /** Records that `username` consented to `clientId` using `scopeName`, under consent `parentId` when dependent. */
  async grantConsent(username: string, clientId: string, scopeName: string, parentId: number | null = null): Promise<number> {
    return this.uow.transaction(async (repos) => {
      const identity = await identityNamed(repos, username);
      const client = await repos.clients.findById(clientId);
      if (!client) throw new ResourceNotFoundError(`No such client '${clientId}'`);
      const scope = await repos.scopes.findByName(scopeName);
      if (!scope) throw new ResourceNotFoundError(`No such scope '${scopeName}'`);
      // Stryker disable next-line ConditionalExpression: no consent has a null id
      const parent = parentId === null ? null : await repos.consents.findById(parentId);
      if (parentId !== null && (!parent || parent.identity_id !== identity.id || parent.client_id !== client.id)) {
        throw new ConflictError(`No consent ${parentId} of '${username}' for this client to depend on`);
      }
      const now = this.clock.now();
      const consent = await repos.consents.add({
        client_id: client.id,
        scope_id: scope.id,
        identity_id: identity.id,
        parent_path: parent?.dependency_path ?? [],
        created: now,
        updated: now,
        last_used: null,
        status: 'approved',
      });
      return consent.id;
    });
  }
  /** An identity's consents, with the names of their scopes and clients beside the ids. */
  async listConsents(username: string): Promise<(ConsentState & { scope_name: string | null; client_name: string | null })[]> {
    const repos = this.uow.repositories;
    const identity = await identityNamed(repos, username);
    const consents = await repos.consents.listForIdentities([identity.id]);
    const scopes = new Map((await repos.scopes.findByIds([...new Set(consents.map((c) => c.scope_id))])).map((s) => [s.id, s.name]));
    const clients = new Map((await repos.clients.findByIds([...new Set(consents.map((c) => c.client_id))])).map((c) => [c.id, c.display_name]));
    return consents.map((c) => ({ ...c, scope_name: scopes.get(c.scope_id) ?? null, client_name: clients.get(c.client_id) ?? null }));
  }
  /** Revokes a consent and the consents that depend on it. */
  async revokeConsent(consentId: number): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const consent = await repos.consents.findById(consentId);
      if (!consent) throw new ResourceNotFoundError(`No such consent '${consentId}'`);
      // a consent's dependents are its identity's own (grantConsent and Allow keep them so)
      const consents = new ConsentSet(await repos.consents.listForIdentities([consent.identity_id]));
      consents.revoke(consentId, this.clock.now());
      await repos.consents.update(consents.changes());
    });
  }
}

/** A token an operator (or a seed) issues: for an identity, of scopes of one resource server (a token is for one), from no client. */
function operatorToken(identityId: string, names: readonly string[], tokenHash: string, expiresAt: Date | null, now: Date): AccessTokenState {
  const scopes = [...new Set(names.map(checkScopeName))];
  if (scopes.length === 0) throw new BadRequestError('A token needs a scope');
  const servers = new Set(scopes.map(resourceServerOf));
  if (servers.size > 1) throw new BadRequestError(`The scopes of one token must be of one resource server, not ${[...servers].join(' and ')}`);
  return {
    token_hash: tokenHash,
    identity_id: identityId,
    created_at: now,
    expires_at: expiresAt,
    revoked_at: null,
    client_id: null,
    scopes,
    resource_server: resourceServerOf(scopes[0]),
    refresh_token_hash: null,
    consent_client_id: null,
  };
}
