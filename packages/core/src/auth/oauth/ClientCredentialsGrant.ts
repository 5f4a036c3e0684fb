import type { Clock } from '../../shared/ports';
import type { ClientState } from '../Client';
import { newIdentity, type IdentityState } from '../Identity';
import { type AuthorizationServerRepositories, clientUsername } from './rules';

/** The client credentials grant (RFC 6749 4.4): the identity a confidential client acts as. */
export class ClientCredentialsGrant {
  constructor(
    private readonly uow: AuthorizationServerRepositories,
    private readonly clock: Clock,
  ) {}

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
}
