import { timingSafeEqual } from 'node:crypto';
import { hashToken } from '../AccessToken';
import { findNamedClient, type ClientState } from '../Client';
import { knownScopes, type AuthorizationServerRepositories } from './rules';

/** Clients and scopes as the protocol meets them: who a request is for, who authenticates at the token endpoints, which scopes exist. */
export class OAuthRegistry {
  constructor(
    private readonly uow: AuthorizationServerRepositories,
  ) {}

  /** A registered client by id (no secret checked): who an authorization request is for. */
  async client(clientId: string | undefined): Promise<ClientState | null> {
    return findNamedClient(this.uow.repositories.clients, clientId);
  }
  /**
   * Authenticates a client at the token, introspection and revocation endpoints: a confidential
   * client by its secret; a public client has none and must not send one.
   */
  async authenticateClient(clientId: string | undefined, secret: string | undefined | null): Promise<ClientState | null> {
    const client = await this.client(clientId);
    if (!client) return null;
    if (client.public_client) return secret ? null : client;
    if (!secret || !client.secret_hash) return null;
    const given = Buffer.from(hashToken(secret), 'hex');
    return timingSafeEqual(given, Buffer.from(client.secret_hash, 'hex')) ? client : null;
  }
  /**
   * A scope parameter as a whole, dependencies in brackets included: each name registered, else
   * invalid_scope naming it (the token endpoint hands the protocol library only the roots).
   */
  async checkScopeParameter(scope: string): Promise<void> {
    await knownScopes(this.uow.repositories, scope);
  }
  /** The names of every registered scope (for the discovery document). */
  async scopeNames(): Promise<string[]> {
    return (await this.uow.repositories.scopes.list()).map((s) => s.name);
  }
}
