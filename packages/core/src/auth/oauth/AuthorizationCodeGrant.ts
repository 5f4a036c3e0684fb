import type { Clock } from '../../shared/ports';
import { hashToken } from '../AccessToken';
import { findNamedClient, isRegisteredRedirect, type ClientState } from '../Client';
import type { AuthorizationCodeState } from '../Grant';
import type { SignedIn } from '../HelperPagesService';
import type { ScopeState } from '../Scope';
import { checkPkce, consentSetOf, knownScopes, MAX_SCOPE_DEPTH, requireConsents, type AuthorizationServerRepositories, type AuthorizationRequestParams, type CheckedAuthorizationRequest, type OAuthRepositories, type ScopeTreeNode, OAuthProtocolError, UnsafeAuthorizationRequestError } from './rules';

/** The authorization code grant (RFC 6749 4.1, PKCE RFC 7636): the request checked before the user is asked, the consent screen's scopes and the consents recorded, the code stored, found and spent; and Rescind on the consents page. */
export class AuthorizationCodeGrant {
  constructor(
    private readonly uow: AuthorizationServerRepositories,
    private readonly clock: Clock,
  ) {}

  /**
   * Checks an authorization request before the user is asked anything. Throws
   * UnsafeAuthorizationRequestError when the client may not be redirected to, OAuthProtocolError
   * for what the client is told at its redirect URI.
   */
  async checkAuthorizationRequest(params: AuthorizationRequestParams, ownAuthCodePage?: string): Promise<CheckedAuthorizationRequest> {
    const client = await findNamedClient(this.uow.repositories.clients, params.client_id);
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
    checkPkce(client, params.code_challenge ?? null, params.code_challenge_method ?? null);
    return { client, redirectUri, scopes: await knownScopes(this.uow.repositories, params.scope) };
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
  private async approvedConsents(repos: OAuthRepositories, identityIds: string[], clientId: string): Promise<Map<string, number>> {
    return (await consentSetOf(repos, identityIds)).approvedRoots(clientId);
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
    checkPkce(input.client, input.codeChallenge, input.codeChallengeMethod);
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
      await requireConsents(repos, input.identityId, input.client.id, input.scopes);
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
  /** "Rescind" on the consents page: the user's consents for the client go, and every token issued under them. */
  async rescind(user: SignedIn, clientId: string): Promise<{ consents: number; tokens: number }> {
    const ids = user.set.map((i) => i.id);
    const now = this.clock.now();
    return this.uow.transaction(async (repos) => {
      const consents = await consentSetOf(repos, ids);
      const rescinded = consents.rescind(clientId, now);
      await repos.consents.update(consents.changes());
      const tokens = (await repos.accessTokens.revokeIssuedTo(ids, clientId, now)) + (await repos.refreshTokens.revokeIssuedTo(ids, clientId, now));
      return { consents: rescinded, tokens };
    });
  }
}
