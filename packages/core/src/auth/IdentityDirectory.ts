import { AuthenticationFailedError, BadRequestError, PermissionDeniedError, ResourceNotFoundError, TooManyRequestsError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { findLiveToken, hashToken } from './AccessToken';
import type { ConsentState } from './Consent';
import { identityDocument, isClientUsername, LOCAL_IDENTITY_PROVIDER, MAX_USERNAME, newIdentity, type IdentityState } from './Identity';
import { AUTH_RESOURCE_SERVER } from './Scope';
import { DEFAULT_SIGN_IN_THROTTLE } from './SignInThrottle';

export type IdentityDirectoryRepositories = RepositoriesOf<'accessTokens' | 'consents' | 'identities' | 'scopes' | 'signInFailures'>;

/**
 * Who asks: the identity a live token was issued to, with its set (whose e-mail addresses it may
 * see when the token was granted the `email` scope).
 */
export interface DirectoryCaller {
  identity: IdentityState;
  setIds: ReadonlySet<string>;
  /** Whether the token carries the `email` scope: without it no address is shown, the caller's own included. */
  mayReadEmail: boolean;
  /** The service the token is for: consents are the authorization service's to show. */
  resourceServer: string;
}

/** The OpenID Connect scope that lets a token read e-mail addresses. */
export const EMAIL_SCOPE = 'email';

export const MAX_IDENTITY_LOOKUP = 100;

/**
 * Identities one caller (one identity set) may provision per window: enough for a portal adding a
 * class of students, not a flood. Counted in the database, where every instance sees the count;
 * the window is the sign-in throttle's, whose housekeeping forgets older counts.
 */
export const PROVISION_LIMIT = { identities: 100, windowSeconds: DEFAULT_SIGN_IN_THROTTLE.windowSeconds };

/**
 * The identities API (catalogue features 5): clients resolve usernames and ids, as the hosted
 * service's AuthClient.get_identities does. Any live token of this service may ask; e-mail
 * addresses are shown only for the caller's own identity set, and only to a token with the `email` scope.
 */
export class IdentityDirectory {
  constructor(
    private readonly uow: IdentityDirectoryRepositories,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async caller(token: string | undefined): Promise<DirectoryCaller> {
    const live = token ? await findLiveToken(this.uow.repositories, token, this.clock.now()) : null;
    if (!live) throw new AuthenticationFailedError('Token is not valid, expired or revoked.');
    const set = await this.uow.repositories.identities.listSet(live.identity.set_id);
    return { identity: live.identity, setIds: new Set(set.map((i) => i.id)), mayReadEmail: live.token.scopes.includes(EMAIL_SCOPE), resourceServer: live.token.resource_server };
  }

  /**
   * Identities by usernames or by ids (one of the two, at most 100); unknown ones are left out.
   * Usernames compare without regard to case. `provision` makes unknown usernames, at most
   * PROVISION_LIMIT per caller, never in the clients' domain (a client's identity is made by its
   * own first grant, with the client's id).
   */
  async lookup(caller: DirectoryCaller, query: { usernames?: string[]; ids?: string[]; provision?: boolean }) {
    const { usernames, ids } = query;
    if ((usernames === undefined) === (ids === undefined)) throw new BadRequestError('Give either usernames or ids, not both and not neither');
    const keys = distinct(usernames ?? ids ?? [], usernames ? (k) => k.toLowerCase() : (k) => k);
    if (keys.length > MAX_IDENTITY_LOOKUP) throw new BadRequestError(`At most ${MAX_IDENTITY_LOOKUP} usernames or ids at a time`);
    if (query.provision && usernames === undefined) throw new BadRequestError('provision goes with usernames');
    const tooLong = usernames && keys.find((k) => k.length > MAX_USERNAME);
    if (tooLong) throw new BadRequestError(`Invalid usernames: '${tooLong.slice(0, 40)}...' is longer than ${MAX_USERNAME} characters`);
    const found: IdentityState[] = [];
    await this.uow.transaction(async (repos) => {
      const now = this.clock.now();
      const counter = hashToken(`provision:${caller.identity.set_id}`);
      let allowed: number | null = null;
      for (const key of keys) {
        const identity = usernames ? await repos.identities.findByUsername(key) : await repos.identities.findById(key.toLowerCase());
        if (identity) found.push(identity);
        else if (query.provision && !isClientUsername(key)) {
          allowed ??= PROVISION_LIMIT.identities - (await repos.signInFailures.countSince(counter, new Date(now.getTime() - PROVISION_LIMIT.windowSeconds * 1000)));
          if (allowed <= 0) {
            throw new TooManyRequestsError(`You may provision at most ${PROVISION_LIMIT.identities} identities in ${PROVISION_LIMIT.windowSeconds / 60} minutes`, PROVISION_LIMIT.windowSeconds);
          }
          const made: IdentityState = { ...newIdentity({ id: this.ids.uuid(), username: key, now }), status: 'unused' };
          await repos.identities.add(made);
          await repos.signInFailures.add([counter], now);
          allowed--;
          found.push(made);
        }
      }
    });
    return found.map((i) => this.document(caller, i));
  }

  /**
   * The consents of one of the caller's own identities, each with its scope's name: the hosted
   * SDK's get_consents (its to_forest() builds the tree from dependency_path). Another's: 403; so
   * is a token for another service (one minted for the transfer API says nothing of consents).
   */
  async consentsOf(caller: DirectoryCaller, identityId: string): Promise<(ConsentState & { scope_name: string })[]> {
    if (caller.resourceServer !== AUTH_RESOURCE_SERVER) {
      throw new PermissionDeniedError(`Consents are listed only with a token for the authorization service (${AUTH_RESOURCE_SERVER}), not one for ${caller.resourceServer}`);
    }
    const id = identityId.toLowerCase();
    if (!caller.setIds.has(id)) throw new PermissionDeniedError("Only the consents of your own identities can be listed");
    const consents = await this.uow.repositories.consents.listForIdentities([id]);
    const scopes = new Map((await this.uow.repositories.scopes.findByIds([...new Set(consents.map((c) => c.scope_id))])).map((s) => [s.id, s.name]));
    return consents.map((c) => ({ ...c, scope_name: scopes.get(c.scope_id) ?? c.scope_id }));
  }

  /**
   * The identity providers (the hosted get_identity_providers): this service's own, which signs in
   * usernames of every domain; `domains` and `ids` filter as the hosted API does.
   */
  identityProviders(query: { domains?: string[]; ids?: string[] }) {
    if (query.domains !== undefined && query.ids !== undefined) throw new BadRequestError('Give either domains or ids, not both');
    const provider = { id: LOCAL_IDENTITY_PROVIDER.id, name: LOCAL_IDENTITY_PROVIDER.displayName, short_name: 'xfer', alternative_names: [] as string[], status: 'active', domains: query.domains ?? [] };
    if (query.ids !== undefined && !query.ids.map((i) => i.toLowerCase()).includes(provider.id)) return [];
    return [provider];
  }

  async get(caller: DirectoryCaller, id: string) {
    const identity = await this.uow.repositories.identities.findById(id.toLowerCase());
    if (!identity) throw new ResourceNotFoundError(`No such identity '${id}'`);
    return this.document(caller, identity);
  }

  private document(caller: DirectoryCaller, identity: IdentityState) {
    return { ...identityDocument(identity), email: caller.mayReadEmail && caller.setIds.has(identity.id) ? identity.email : null };
  }
}

/** The values in order, the first of each `key` kept. */
function distinct(values: readonly string[], key: (value: string) => string): string[] {
  const seen = new Set<string>();
  return values.filter((v) => !seen.has(key(v)) && seen.add(key(v)));
}
