import { AuthenticationFailedError } from '../shared/errors';
import type { Clock } from '../shared/ports';
import type { UnitOfWork } from '../shared/UnitOfWork';
import { hashToken, isTokenUsable } from './AccessToken';
import { Principal } from './Principal';

/** Turns a bearer token into the caller. */
export class AuthenticationService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async authenticate(token: string | undefined): Promise<Principal> {
    if (!token) throw new AuthenticationFailedError('No Authentication provided.');
    const { accessTokens } = this.uow.repositories;
    const stored = await accessTokens.findByHash(hashToken(token));
    if (!stored || !isTokenUsable(stored, this.clock.now())) {
      throw new AuthenticationFailedError('Token is not valid, expired or revoked.');
    }
    return this.principalOf(stored.identity_id);
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
