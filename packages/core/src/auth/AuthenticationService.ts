import { AuthenticationFailedError, ConsentRequiredError } from '../shared/errors';
import type { Clock } from '../shared/ports';
import type { UnitOfWork } from '../shared/UnitOfWork';
import { hashToken, isTokenUsable, type TokenHolder } from './AccessToken';
import { newIdentity, type IdentityState } from './Identity';
import { Principal } from './Principal';
import type { TokenIntrospector } from './TokenIntrospection';

export interface IntrospectionOptions {
  introspector: TokenIntrospector;
  /** A scope the token must carry; null to accept any. */
  requiredScope: string | null;
}

const CACHED_TOKENS = 10_000;

/**
 * Turns a bearer token into the caller. What a token stands for may be remembered for
 * `cacheSeconds` (default 1 s): a revocation, a new link or group membership takes effect within
 * that bound on every instance; expiry is always checked at once.
 */
export class AuthenticationService {
  private readonly cache = new Map<string, { holder: TokenHolder; readAt: number }>();

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly introspection: IntrospectionOptions | null = null,
    private readonly cacheSeconds = 1,
  ) {}

  async authenticate(token: string | undefined): Promise<Principal> {
    if (!token) throw new AuthenticationFailedError('No Authentication provided.');
    if (this.introspection) return this.authenticateByIntrospection(token, this.introspection);
    const now = this.clock.now();
    const holder = await this.holderOf(hashToken(token), now.getTime());
    if (!holder || !isTokenUsable(holder.token, now)) {
      throw new AuthenticationFailedError('Token is not valid, expired or revoked.');
    }
    return new Principal(holder.identity, holder.set, holder.groupIds);
  }

  private async holderOf(hash: string, now: number): Promise<TokenHolder | null> {
    const cached = this.cache.get(hash);
    if (cached && now - cached.readAt < this.cacheSeconds * 1000) return cached.holder;
    const holder = await this.uow.repositories.accessTokens.findHolder(hash);
    this.cache.delete(hash);
    if (holder && this.cacheSeconds > 0) {
      if (this.cache.size >= CACHED_TOKENS) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(hash, { holder, readAt: now });
    }
    return holder;
  }

  /**
   * Tokens of an external authorization server: every id of its identity_set counts as the
   * caller, `sub` is the primary identity. Identities this service does not know yet are taken
   * as the server describes them.
   */
  private async authenticateByIntrospection(token: string, options: IntrospectionOptions): Promise<Principal> {
    const result = await options.introspector.introspect(token);
    if (!result.active || !result.sub) throw new AuthenticationFailedError('Token is not valid, expired or revoked.');
    const scopes = (result.scope ?? '').split(' ').filter(Boolean);
    if (options.requiredScope && !scopes.includes(options.requiredScope)) {
      throw new ConsentRequiredError(`This token lacks the scope ${options.requiredScope}`, [options.requiredScope]);
    }
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
