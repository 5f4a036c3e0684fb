import { AuthenticationFailedError, ConsentRequiredError } from '../shared/errors';
import type { Clock } from '../shared/ports';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { hashToken, isTokenUsable } from './AccessToken';
import { newIdentity, type IdentityState } from './Identity';
import { Principal } from './Principal';
import type { TokenIntrospector } from './TokenIntrospection';

/** The repositories token authentication reads. */
export type AuthenticationRepositories = RepositoriesOf<'accessTokens' | 'identities' | 'groups'>;

export interface AuthenticationOptions {
  /** An external authorization server's introspection (RFC 7662) instead of this service's own tokens. */
  introspector: TokenIntrospector | null;
  /** A scope every token must carry (the API's own); null to accept any. */
  requiredScope: string | null;
}

/** The hosted service's transfer scope: what unchanged clients ask for to call this API. */
export const TRANSFER_SCOPE = 'urn:globus:auth:scope:transfer.api.globus.org:all';

export const DEFAULT_AUTHENTICATION_OPTIONS: AuthenticationOptions = { introspector: null, requiredScope: TRANSFER_SCOPE };

/** Turns a bearer token into the caller; expiry is always checked at once. */
export class AuthenticationService {
  /** The principal made of each token holder the repository answered: a holder it remembers (until anything changes) is made into a principal once. */
  private readonly principals = new WeakMap<object, Principal>();

  constructor(
    private readonly uow: AuthenticationRepositories,
    private readonly clock: Clock,
    private readonly options: AuthenticationOptions = DEFAULT_AUTHENTICATION_OPTIONS,
  ) {}

  async authenticate(token: string | undefined): Promise<Principal> {
    return this.authenticateFor(token, this.options.requiredScope);
  }

  /** The caller of a token that carries `requiredScope` (another service's, e.g. an endpoint's https scope); null: any scope. */
  async authenticateFor(token: string | undefined, requiredScope: string | null): Promise<Principal> {
    if (!token) throw new AuthenticationFailedError('No Authentication provided.');
    const { introspector } = this.options;
    if (introspector) return this.authenticateByIntrospection(token, introspector, requiredScope);
    const now = this.clock.now();
    // read on every request: a revocation counts at once (the persistence adapters cache exactly)
    const holder = await this.uow.repositories.accessTokens.findHolder(hashToken(token));
    if (!holder || !isTokenUsable(holder.token, now)) {
      throw new AuthenticationFailedError('Token is not valid, expired or revoked.');
    }
    requireScope(holder.token.scopes, requiredScope);
    let principal = this.principals.get(holder);
    if (!principal) this.principals.set(holder, (principal = new Principal(holder.identity, holder.set, holder.groupIds)));
    return principal;
  }

  /**
   * Tokens of an external authorization server: every id of its identity_set counts as the
   * caller, `sub` is the primary identity. Identities this service does not know yet are taken
   * as the server describes them.
   */
  private async authenticateByIntrospection(token: string, introspector: TokenIntrospector, requiredScope: string | null): Promise<Principal> {
    const result = await introspector.introspect(token);
    if (!result.active || !result.sub) throw new AuthenticationFailedError('Token is not valid, expired or revoked.');
    requireScope(result.scope?.split(' ') ?? [], requiredScope);
    const { identities, groups } = this.uow.repositories;
    const known = async (id: string, describe: () => IdentityState): Promise<IdentityState> => (await identities.findById(id)) ?? describe();
    const now = this.clock.now();
    const primary = await known(result.sub, () =>
      newIdentity({ id: result.sub!, username: result.username ?? result.sub!, name: result.name ?? null, email: null, now }),
    );
    const ids = [...new Set([result.sub, ...(result.identity_set ?? [])])];
    const set = await Promise.all(ids.map((id) => (id === primary.id ? primary : known(id, () => ({ ...primary, id, username: id, set_id: primary.id })))));
    return new Principal(primary, set, await groups.groupIdsOf(ids));
  }

  async identityByUsername(username: string) {
    return this.uow.repositories.identities.findByUsername(username);
  }

  /** The principal of an identity: its whole identity set and the groups of all of them. */
  async principalOf(identityId: string): Promise<Principal> {
    const { identities, groups } = this.uow.repositories;
    const primary = await identities.findById(identityId);
    if (!primary) throw new AuthenticationFailedError('The identity of this token no longer exists.');
    const set = await identities.listSet(primary.set_id);
    const groupIds = await groups.groupIdsOf(set.map((i) => i.id));
    return new Principal(primary, set, groupIds);
  }
}

function requireScope(scopes: readonly string[], requiredScope: string | null): void {
  if (requiredScope && !scopes.includes(requiredScope)) {
    throw new ConsentRequiredError(`This token lacks the scope ${requiredScope}: ask the user to consent to it`, [requiredScope]);
  }
}
