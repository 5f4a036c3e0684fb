import type { Clock } from '../../shared/ports';
import { grantTypesOf, type ClientState } from '../Client';
import { newIdentity, type IdentityState } from '../Identity';
import { type AuthorizationServerRepositories, clientUsername, OAuthProtocolError } from './rules';

/** The client credentials grant (RFC 6749 4.4): the identity a confidential client acts as. */
export class ClientCredentialsGrant {
  constructor(
    private readonly uow: AuthorizationServerRepositories,
    private readonly clock: Clock,
  ) {}

  /** The identity a confidential client acts as with client_credentials: its own, made on first use. */
  async clientIdentity(client: ClientState): Promise<IdentityState> {
    if (!grantTypesOf(client).includes('client_credentials')) {
      throw new OAuthProtocolError('unauthorized_client', client.template_id !== null ? 'A client made from a template gets tokens only through a person\'s sign-in, never as itself' : 'A public client cannot act as itself');
    }
    return this.uow.transaction(async (repos) => {
      const existing = await repos.identities.findById(client.id);
      if (existing) return existing;
      // a client made before identities came with their clients
      const identity = ownIdentityOf(client, this.clock.now())!;
      await repos.identities.add(identity);
      return identity;
    });
  }
}

/**
 * The identity a client acts as with client_credentials (`<client id>@clients.auth.globus.org`),
 * made with the client, as the hosted service does: it can be granted roles and access rules
 * before its first token. Null for a client that never acts as itself (public, or from a template).
 */
export function ownIdentityOf(client: ClientState, now: Date): IdentityState | null {
  if (!grantTypesOf(client).includes('client_credentials')) return null;
  return { ...newIdentity({ id: client.id, username: clientUsername(client.id), name: client.display_name, now }), identity_type: 'client' };
}
