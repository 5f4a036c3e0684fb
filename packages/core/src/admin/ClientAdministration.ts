import { ownIdentityOf } from '../auth/oauth/ClientCredentialsGrant';
import { hashToken, newTokenSecret } from '../auth/AccessToken';
import { checkBranding, checkClientDisplayName, checkRedirectUri, type ClientBranding, type ClientState } from '../auth/Client';
import { checkResourceServer, checkScopeDescription, checkScopeName, resourceServerOf } from '../auth/Scope';
import { BadRequestError, ConflictError, ResourceNotFoundError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import { isUuid } from '../shared/text';
import { STANDARD_CATALOGUE_VERSION, STANDARD_CLIENTS, STANDARD_SCOPES } from '../auth/StandardCatalogue';

import type { RepositoriesOf } from '../shared/UnitOfWork';

/** The repositories ClientAdministration uses. */
export type ClientAdminRepositories = RepositoriesOf<'accessTokens' | 'clients' | 'identities' | 'refreshTokens' | 'scopes' | 'settings'>;

/** Client applications, scopes, and the standard catalogue of both. */
export class ClientAdministration {
  constructor(
    private readonly uow: ClientAdminRepositories,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** Registers a client application; a confidential client gets a secret, shown once. */
  async addClient(input: {
    display_name: string;
    redirect_uris?: string[];
    branding?: Partial<ClientBranding>;
    public_client?: boolean;
    resource_server?: string | null;
    /** A confidential client's secret as given (a test stand-in's seed), else a new random one. */
    secret?: string;
    /** Or its stored hash (an export's round trip). */
    secret_hash?: string;
  }): Promise<{ client: ClientState; secret: string | null }> {
    const publicClient = input.public_client ?? true;
    if (input.secret_hash !== undefined && (publicClient || !/^[0-9a-f]{64}$/.test(input.secret_hash))) throw new BadRequestError('Invalid secret_hash: a confidential client\'s, as xfer export writes it');
    if (input.secret !== undefined && (publicClient || !/^[\x21-\x7e]{8,512}$/.test(input.secret))) {
      throw new BadRequestError('Invalid secret: a confidential client\'s, 8 to 512 printable ASCII characters without spaces');
    }
    const secret = publicClient || input.secret_hash !== undefined ? null : (input.secret ?? newTokenSecret());
    const client: ClientState = {
      id: this.ids.uuid(),
      display_name: checkClientDisplayName(input.display_name),
      branding: checkBranding(input.branding ?? {}),
      redirect_uris: (input.redirect_uris ?? []).map(checkRedirectUri),
      public_client: publicClient,
      secret_hash: input.secret_hash ?? (secret === null ? null : hashToken(secret)),
      resource_server: input.resource_server == null ? null : checkResourceServer(input.resource_server),
      template_id: null,
      created_at: this.clock.now(),
    };
    if (client.resource_server && publicClient) throw new BadRequestError('A resource server must be a confidential client');
    await this.uow.transaction(async (repos) => {
      const existing = await repos.clients.findById(client.id);
      if (existing) throw new ConflictError(`Invalid id: client '${existing.display_name}' has the id ${client.id} already`);
      await repos.clients.add(client);
      // a confidential client's own identity exists from its creation: it can be granted roles before its first token
      const identity = ownIdentityOf(client, client.created_at);
      if (identity) await repos.identities.add(identity);
    });
    return { client, secret };
  }
  /** Removes a client: its tokens are revoked, and it can sign nobody in any more. */
  async removeClient(clientId: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const client = isUuid(clientId) ? await repos.clients.findById(clientId.toLowerCase()) : null;
      if (!client) throw new ResourceNotFoundError(`No such client '${clientId}'`);
      const now = this.clock.now();
      await repos.accessTokens.revokeForClient(client.id, now);
      await repos.refreshTokens.revokeForClient(client.id, now);
      await repos.clients.delete(client.id);
    });
  }
  async listClients() {
    return this.uow.repositories.clients.list();
  }
  /**
   * Registers, or brings up to date, a first-party confidential client of fixed id (the web
   * console): the redirect URIs and the secret are those of the app now starting, so it may move
   * to another address or take a new secret; the consents people gave it stay.
   */
  async registerFirstPartyClient(client: { id: string; display_name: string }, input: { redirect_uris: string[]; secret: string }): Promise<ClientState> {
    if (!/^[\x21-\x7e]{16,512}$/.test(input.secret)) throw new BadRequestError('Invalid secret: 16 to 512 printable ASCII characters without spaces');
    const redirectUris = input.redirect_uris.map(checkRedirectUri);
    return this.uow.transaction(async (repos) => {
      const existing = await repos.clients.findById(client.id);
      const registered: ClientState = {
        id: client.id,
        display_name: checkClientDisplayName(client.display_name),
        branding: existing?.branding ?? checkBranding({}),
        redirect_uris: redirectUris,
        public_client: false,
        secret_hash: hashToken(input.secret),
        resource_server: null,
        template_id: null,
        created_at: existing?.created_at ?? this.clock.now(),
      };
      if (existing) await repos.clients.update(registered);
      else await repos.clients.add(registered);
      return registered;
    });
  }
  /**
   * Installs the standard catalogue (the hosted service's scopes and the CLI's template client)
   * once per version on this database: what an operator removes afterwards stays removed. Returns
   * what it added.
   */
  async installStandardCatalogue(): Promise<{ scopes: string[]; clients: string[] }> {
    return this.uow.transaction(async (repos) => {
      const added = { scopes: [] as string[], clients: [] as string[] };
      if ((await repos.settings.catalogueVersion()) >= STANDARD_CATALOGUE_VERSION) return added;
      const now = this.clock.now();
      for (const standard of STANDARD_SCOPES) {
        if (await repos.scopes.findByName(standard.name)) continue;
        const dependencies = await Promise.all((standard.dependsOn ?? []).map((name) => repos.scopes.findByName(name)));
        await repos.scopes.add({
          id: this.ids.uuid(),
          name: standard.name,
          description: standard.description,
          resource_server: resourceServerOf(standard.name),
          dependent_scope_ids: dependencies.flatMap((d) => (d ? [d.id] : [])),
          created_at: now,
        });
        added.scopes.push(standard.name);
      }
      for (const standard of STANDARD_CLIENTS) {
        if (await repos.clients.findById(standard.id)) continue;
        await repos.clients.add({
          id: standard.id,
          display_name: standard.display_name,
          branding: checkBranding({}),
          redirect_uris: [...standard.redirect_uris],
          public_client: true,
          secret_hash: null,
          resource_server: null,
          template_id: null,
          created_at: now,
        });
        added.clients.push(standard.id);
      }
      await repos.settings.setCatalogueVersion(STANDARD_CATALOGUE_VERSION);
      return added;
    });
  }
  /** Adds a scope; `dependsOn` names scopes (added before) the client may use downstream with it. */
  async addScope(name: string, description: string, options: { resourceServer?: string; dependsOn?: string[] } = {}): Promise<string> {
    return this.uow.transaction(async (repos) => {
      if (await repos.scopes.findByName(checkScopeName(name))) throw new ConflictError(`Scope '${name}' already exists`);
      const dependent_scope_ids: string[] = [];
      for (const dependency of options.dependsOn ?? []) {
        const found = await repos.scopes.findByName(dependency);
        if (!found) throw new ResourceNotFoundError(`No such scope '${dependency}' to depend on`);
        dependent_scope_ids.push(found.id);
      }
      const id = this.ids.uuid();
      await repos.scopes.add({
        id,
        name,
        description: checkScopeDescription(description),
        resource_server: checkResourceServer(options.resourceServer ?? resourceServerOf(name)),
        dependent_scope_ids: [...new Set(dependent_scope_ids)],
        created_at: this.clock.now(),
      });
      return id;
    });
  }
  async listScopes() {
    return this.uow.repositories.scopes.list();
  }
}
