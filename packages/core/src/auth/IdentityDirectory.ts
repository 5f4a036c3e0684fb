import { AuthenticationFailedError, BadRequestError, ResourceNotFoundError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { findLiveToken } from './AccessToken';
import { identityDocument, newIdentity, type IdentityState } from './Identity';

export type IdentityDirectoryRepositories = RepositoriesOf<'accessTokens' | 'identities'>;

/**
 * Who asks: the identity a live token was issued to, with its set (whose e-mail addresses it may
 * see when the token was granted the `email` scope).
 */
export interface DirectoryCaller {
  identity: IdentityState;
  setIds: ReadonlySet<string>;
  /** Whether the token carries the `email` scope: without it no address is shown, the caller's own included. */
  mayReadEmail: boolean;
}

/** The OpenID Connect scope that lets a token read e-mail addresses. */
export const EMAIL_SCOPE = 'email';

export const MAX_IDENTITY_LOOKUP = 100;

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
    return { identity: live.identity, setIds: new Set(set.map((i) => i.id)), mayReadEmail: live.token.scopes.includes(EMAIL_SCOPE) };
  }

  /** Identities by usernames or by ids (one of the two, at most 100); unknown ones are left out. `provision` makes unknown usernames. */
  async lookup(caller: DirectoryCaller, query: { usernames?: string[]; ids?: string[]; provision?: boolean }) {
    const { usernames, ids } = query;
    if ((usernames === undefined) === (ids === undefined)) throw new BadRequestError('Give either usernames or ids, not both and not neither');
    const keys = [...new Set(usernames ?? ids ?? [])];
    if (keys.length > MAX_IDENTITY_LOOKUP) throw new BadRequestError(`At most ${MAX_IDENTITY_LOOKUP} usernames or ids at a time`);
    if (query.provision && usernames === undefined) throw new BadRequestError('provision goes with usernames');
    const found: IdentityState[] = [];
    await this.uow.transaction(async (repos) => {
      for (const key of keys) {
        const identity = usernames ? await repos.identities.findByUsername(key) : await repos.identities.findById(key.toLowerCase());
        if (identity) found.push(identity);
        else if (query.provision) {
          const made: IdentityState = { ...newIdentity({ id: this.ids.uuid(), username: key, now: this.clock.now() }), status: 'unused' };
          await repos.identities.add(made);
          found.push(made);
        }
      }
    });
    return found.map((i) => this.document(caller, i));
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
