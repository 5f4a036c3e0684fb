import { hashToken, newTokenSecret, tokenId, type AccessTokenState } from '../auth/AccessToken';
import { checkBranding, checkClientDisplayName, checkRedirectUri, type ClientBranding, type ClientState } from '../auth/Client';
import { hashPassword } from '../auth/password';
import { TRANSFER_SCOPE } from '../auth/AuthenticationService';
import { checkResourceServer, checkScopeDescription, checkScopeName, resourceServerOf } from '../auth/Scope';
import { checkGroupName } from '../auth/Group';
import { ConsentSet, type ConsentState } from '../auth/Consent';
import { CLIENTS_DOMAIN, IdentitySet, isClientUsername, newIdentity, type IdentityState } from '../auth/Identity';
import { Endpoint } from '../endpoint/Endpoint';
import { ALL_PAUSED, checkPauseMessage, type PauseRuleState } from '../pause-rule/PauseRule';
import { ENDPOINT_ROLES, type EndpointRole, type PrincipalType } from '../role/Role';
import { BadRequestError, ConflictError, EndpointNotFoundError, ResourceNotFoundError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import { isUuid } from '../shared/text';
import { newMaintenance, type Maintenance } from '../shared/ServiceSettings';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { checkSubscriptionName } from '../subscription/Subscription';
import { STANDARD_CATALOGUE_VERSION, STANDARD_CLIENTS, STANDARD_SCOPES } from '../auth/StandardCatalogue';

/** The repositories the operator commands use. */
export type AdminRepositories = RepositoriesOf<'accessRules' | 'accessTokens' | 'clients' | 'consents' | 'endpoints' | 'groups' | 'identities' | 'pauseRules' | 'refreshTokens' | 'roles' | 'scopes' | 'sessions' | 'settings' | 'subscriptions'>;

export interface IssuedToken {
  token: string;
  identity_id: string;
  expires_at: Date | null;
}

/** Operator actions that have no API of their own (roles, groups, subscriptions, tokens). */
export class AdminService {
  constructor(
    private readonly uow: AdminRepositories,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async addIdentity(input: { username: string; name?: string | null; email?: string | null; organization?: string | null }): Promise<IdentityState> {
    return this.uow.transaction(async (repos) => {
      // Stryker disable next-line ConditionalExpression,BlockStatement: the repository refuses a second username with the same ConflictError (its contract); this spares the write
      if (await repos.identities.findByUsername(input.username)) {
        throw new ConflictError(`Identity '${input.username}' already exists`);
      }
      if (isClientUsername(input.username)) throw new BadRequestError(`Invalid username '${input.username}': the domain ${CLIENTS_DOMAIN} is reserved for clients' own identities`);
      const identity = newIdentity({ ...input, id: this.ids.uuid(), now: this.clock.now() });
      await repos.identities.add(identity);
      return identity;
    });
  }

  /** Links `other`'s whole identity set into `username`'s. */
  async linkIdentities(username: string, other: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const set = await this.identitySet(repos, username);
      set.link(await this.identitySet(repos, other), this.clock.now());
      await repos.identities.update(set.changes());
    });
  }

  async addGroup(name: string): Promise<string> {
    return this.uow.transaction(async (repos) => {
      checkGroupName(name);
      // Stryker disable next-line ConditionalExpression: the repository refuses a second name with the same ConflictError (its contract); this spares the write
      if (await repos.groups.findByName(name)) throw new ConflictError(`Group '${name}' already exists`);
      const id = this.ids.uuid();
      await repos.groups.add({ id, name, created_at: this.clock.now() });
      return id;
    });
  }

  async addGroupMember(group: string, username: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const g = await this.group(repos, group);
      const identity = await this.identity(repos, username);
      await repos.groups.addMember(g.id, identity.id);
    });
  }

  /** A token an operator hands out (no client, no consent): by default for the transfer API's scope. */
  /**
   * Issues an access token for an identity; `value`: the token's secret as given (a test stand-in's
   * seed, so tests can hard-code it), else a new random one.
   */
  async issueToken(username: string, lifetimeSeconds: number | null = null, scope: string = TRANSFER_SCOPE, value?: string): Promise<IssuedToken> {
    return this.uow.transaction(async (repos) => {
      const identity = await this.identity(repos, username);
      // several scopes, space-separated as in OAuth 2.0
      const scopes = scope.split(' ').filter(Boolean);
      if (value !== undefined && !/^[\x21-\x7e]{8,512}$/.test(value)) throw new BadRequestError('Invalid token value: 8 to 512 printable ASCII characters without spaces');
      const token = value ?? newTokenSecret();
      const now = this.clock.now();
      const expires_at = lifetimeSeconds === null ? null : new Date(now.getTime() + lifetimeSeconds * 1000);
      await repos.accessTokens.add(operatorToken(identity.id, scopes, hashToken(token), expires_at, now));
      return { token, identity_id: identity.id, expires_at };
    });
  }

  /**
   * A subscription whose members (usernames or group names) may attach endpoints to it; its
   * administrators (usernames or group names) verify them (subscription_admin_verified).
   */
  async addSubscription(name: string, members: readonly string[], administrators: readonly string[] = []): Promise<string> {
    return this.uow.transaction(async (repos) => {
      checkSubscriptionName(name);
      if (await repos.subscriptions.findByName(name)) throw new ConflictError(`Subscription '${name}' already exists`);
      const memberIds: string[] = [];
      for (const member of members) memberIds.push((await this.principal(repos, member)).id);
      const administratorIds: string[] = [];
      for (const administrator of administrators) administratorIds.push((await this.principal(repos, administrator)).id);
      const id = this.ids.uuid();
      await repos.subscriptions.add({ id, name, member_ids: memberIds, administrator_ids: administratorIds, created_at: this.clock.now() });
      return id;
    });
  }

  /** Makes a user or group (by name) an administrator of a subscription (by name or id). */
  async addSubscriptionAdministrator(subscription: string, administrator: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const found = await this.subscription(repos, subscription);
      await repos.subscriptions.addAdministrator(found.id, (await this.principal(repos, administrator)).id);
    });
  }

  async grantRole(endpointId: string, role: string, principal: string): Promise<string> {
    if (!(ENDPOINT_ROLES as readonly string[]).includes(role)) {
      throw new BadRequestError(`Invalid role '${role}': must be one of ${ENDPOINT_ROLES.join(', ')}`);
    }
    return this.uow.transaction(async (repos) => {
      const endpoint = await this.endpoint(repos, endpointId);
      // the API's rule of kinds holds here too; the operator may still grant on endpoints that are
      // not managed, and grant activity_manager (who manages pause rules)
      if (role === 'access_manager' && endpoint.kind !== 'shared') throw new BadRequestError("The role 'access_manager' exists only on shared endpoints, which have access rules");
      const target = await this.principal(repos, principal);
      const id = this.ids.uuid();
      await repos.roles.add({
        id,
        endpoint_id: endpoint.id,
        role: role as EndpointRole,
        principal_type: target.type,
        principal_id: target.id,
        created_at: this.clock.now(),
      });
      return id;
    });
  }

  async addPauseRule(endpointId: string, input: { message: string; identity?: string | null; by?: string | null }): Promise<string> {
    return this.uow.transaction(async (repos) => {
      const endpoint = await this.endpoint(repos, endpointId);
      const identity = input.identity ? await this.identity(repos, input.identity) : null;
      const rule: PauseRuleState = {
        id: this.ids.uuid(),
        endpoint_id: endpoint.id,
        message: checkPauseMessage(input.message),
        start_time: this.clock.now(),
        identity_id: identity?.id ?? null,
        ...ALL_PAUSED,
        modified_by: input.by ?? 'xfer-admin',
        modified_by_id: '00000000-0000-0000-0000-000000000000',
        created_by_host_manager: false,
      };
      await repos.pauseRules.add(rule);
      return rule.id;
    });
  }

  /** Sets a password as its stored hash (an export's round trip: the password itself is never stored). */
  async setPasswordHash(username: string, hash: string): Promise<void> {
    if (!/^scrypt\$\d{1,9}\$\d{1,3}\$\d{1,3}\$[A-Za-z0-9+/=]{1,200}\$[A-Za-z0-9+/=]{1,200}$/.test(hash)) throw new BadRequestError('Invalid password_hash: a hash as xfer export writes it');
    await this.uow.transaction(async (repos) => {
      const identity = await this.identity(repos, username);
      await repos.identities.update([{ ...identity, password_hash: hash }]);
    });
  }

  /** An access token known by its hash only (an export's round trip): for an identity, of scopes of one resource server. */
  async importToken(username: string, token: { token_hash: string; scopes: readonly string[]; expires_at: Date | null }): Promise<void> {
    if (!/^[0-9a-f]{64}$/.test(token.token_hash)) throw new BadRequestError('Invalid value_hash: a token hash as xfer export writes it');
    await this.uow.transaction(async (repos) => {
      const identity = await this.identity(repos, username);
      await repos.accessTokens.add(operatorToken(identity.id, token.scopes, token.token_hash, token.expires_at, this.clock.now()));
    });
  }

  async setPassword(username: string, password: string): Promise<void> {
    const hash = await hashPassword(password);
    await this.uow.transaction(async (repos) => {
      const identity = await this.identity(repos, username);
      await repos.identities.update([{ ...identity, password_hash: hash }]);
      // whoever signed in with the old password is signed out
      await repos.sessions.deleteForIdentity(identity.id);
    });
  }

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
    await this.uow.transaction((repos) => repos.clients.add(client));
    return { client, secret };
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

  /** Records that `username` consented to `clientId` using `scopeName`, under consent `parentId` when dependent. */
  async grantConsent(username: string, clientId: string, scopeName: string, parentId: number | null = null): Promise<number> {
    return this.uow.transaction(async (repos) => {
      const identity = await this.identity(repos, username);
      const client = await repos.clients.findById(clientId);
      if (!client) throw new ResourceNotFoundError(`No such client '${clientId}'`);
      const scope = await repos.scopes.findByName(scopeName);
      if (!scope) throw new ResourceNotFoundError(`No such scope '${scopeName}'`);
      // Stryker disable next-line ConditionalExpression: no consent has a null id
      const parent = parentId === null ? null : await repos.consents.findById(parentId);
      if (parentId !== null && (!parent || parent.identity_id !== identity.id || parent.client_id !== client.id)) {
        throw new ConflictError(`No consent ${parentId} of '${username}' for this client to depend on`);
      }
      const now = this.clock.now();
      const consent = await repos.consents.add({
        client_id: client.id,
        scope_id: scope.id,
        identity_id: identity.id,
        parent_path: parent?.dependency_path ?? [],
        created: now,
        updated: now,
        last_used: null,
        status: 'approved',
      });
      return consent.id;
    });
  }

  async listIdentities(): Promise<IdentityState[]> {
    return this.uow.repositories.identities.list();
  }

  /** Takes an identity out of its set; when it was the set's primary, the next linked one becomes primary. */
  async unlinkIdentity(username: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const identity = await this.identity(repos, username);
      const set = new IdentitySet(await repos.identities.listSet(identity.set_id));
      set.unlink(identity.id);
      await repos.identities.update(set.changes());
    });
  }

  async removeGroupMember(group: string, username: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const g = await this.group(repos, group);
      const identity = await this.identity(repos, username);
      await repos.groups.removeMember(g.id, identity.id);
    });
  }

  async listGroups(): Promise<{ id: string; name: string; members: string[] }[]> {
    const repos = this.uow.repositories;
    const groups = await repos.groups.list();
    return Promise.all(
      groups.map(async (g) => {
        const members = await Promise.all((await repos.groups.memberIds(g.id)).map((id) => repos.identities.findById(id)));
        return { id: g.id, name: g.name, members: members.flatMap((m) => (m ? [m.username] : [])) };
      }),
    );
  }

  /** Tokens of an identity, without their secrets (which are never stored). */
  async listTokens(username: string): Promise<{ id: string; created_at: Date; expires_at: Date | null; revoked_at: Date | null; usable: boolean }[]> {
    const identity = await this.identity(this.uow.repositories, username);
    const now = this.clock.now();
    return (await this.uow.repositories.accessTokens.listForIdentity(identity.id)).map((t: AccessTokenState) => ({
      id: tokenId(t),
      created_at: t.created_at,
      expires_at: t.expires_at,
      revoked_at: t.revoked_at,
      usable: t.revoked_at === null && (t.expires_at === null || t.expires_at > now),
    }));
  }

  /** Revokes a token by its id (as `listTokens` shows it) or by the token itself. */
  async revokeToken(idOrToken: string): Promise<string> {
    return this.uow.transaction(async (repos) => {
      const byToken = await repos.accessTokens.findByHash(hashToken(idOrToken));
      // Stryker disable next-line Regex: a prefix with anything but hex digits finds no token either
      const matches = byToken ? [byToken] : /^[0-9a-f]{8,64}$/.test(idOrToken) ? await repos.accessTokens.findByHashPrefix(idOrToken) : [];
      if (matches.length === 0) throw new ResourceNotFoundError(`No such token '${idOrToken}'`);
      if (matches.length > 1) throw new BadRequestError(`Token id '${idOrToken}' is ambiguous: give more characters`);
      await repos.accessTokens.revoke(matches[0].token_hash, this.clock.now());
      return tokenId(matches[0]);
    });
  }

  async revokeRole(assignmentId: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      if (!(await repos.roles.findById(assignmentId))) throw new ResourceNotFoundError(`No such role assignment '${assignmentId}'`);
      await repos.roles.delete(assignmentId);
    });
  }

  async listRoles(endpointId: string) {
    const repos = this.uow.repositories;
    const endpoint = await this.endpoint(repos, endpointId);
    const assignments = await repos.roles.listForEndpoint(endpoint.id);
    return Promise.all(
      assignments.map(async (a) => ({
        id: a.id,
        role: a.role,
        principal_type: a.principal_type,
        principal: (a.principal_type === 'identity' ? (await repos.identities.findById(a.principal_id))?.username : (await repos.groups.findById(a.principal_id))?.name) ?? a.principal_id,
        created_at: a.created_at,
      })),
    );
  }

  /** The explicit access rules of a share, as the API created them. */
  async listAccessRules(endpointId: string) {
    const repos = this.uow.repositories;
    return repos.accessRules.listForEndpoint((await this.endpoint(repos, endpointId)).id);
  }

  async addSubscriptionMember(subscription: string, member: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const s = await this.subscription(repos, subscription);
      await repos.subscriptions.addMember(s.id, (await this.principal(repos, member)).id);
    });
  }

  /** A subscription by name or id. */
  private async subscription(repos: AdminRepositories['repositories'], subscription: string) {
    const s = (await repos.subscriptions.findByName(subscription)) ?? (await repos.subscriptions.findById(subscription));
    if (!s) throw new ResourceNotFoundError(`No such subscription '${subscription}'`);
    return s;
  }

  async listSubscriptions() {
    return this.uow.repositories.subscriptions.list();
  }

  async listPauseRules(endpointId: string) {
    const repos = this.uow.repositories;
    return repos.pauseRules.listForEndpoint((await this.endpoint(repos, endpointId)).id);
  }

  async removePauseRule(ruleId: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      if (!(await repos.pauseRules.findById(ruleId))) throw new ResourceNotFoundError(`No such pause rule '${ruleId}'`);
      await repos.pauseRules.delete(ruleId);
    });
  }

  async listClients() {
    return this.uow.repositories.clients.list();
  }

  async listScopes() {
    return this.uow.repositories.scopes.list();
  }

  /** An identity's consents, with the names of their scopes and clients beside the ids. */
  async listConsents(username: string): Promise<(ConsentState & { scope_name: string | null; client_name: string | null })[]> {
    const repos = this.uow.repositories;
    const identity = await this.identity(repos, username);
    const consents = await repos.consents.listForIdentities([identity.id]);
    const scopes = new Map((await repos.scopes.findByIds([...new Set(consents.map((c) => c.scope_id))])).map((s) => [s.id, s.name]));
    const clients = new Map((await repos.clients.findByIds([...new Set(consents.map((c) => c.client_id))])).map((c) => [c.id, c.display_name]));
    return consents.map((c) => ({ ...c, scope_name: scopes.get(c.scope_id) ?? null, client_name: clients.get(c.client_id) ?? null }));
  }

  /** Revokes a consent and the consents that depend on it. */
  async revokeConsent(consentId: number): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const consent = await repos.consents.findById(consentId);
      if (!consent) throw new ResourceNotFoundError(`No such consent '${consentId}'`);
      // a consent's dependents are its identity's own (grantConsent and Allow keep them so)
      const consents = new ConsentSet(await repos.consents.listForIdentities([consent.identity_id]));
      consents.revoke(consentId, this.clock.now());
      await repos.consents.update(consents.changes());
    });
  }

  async setMaintenance(on: boolean, options: { message?: string; retryAfterSeconds?: number } = {}): Promise<Maintenance | null> {
    const maintenance = on ? newMaintenance(options.message, options.retryAfterSeconds, this.clock.now()) : null;
    await this.uow.transaction((repos) => repos.settings.setMaintenance(maintenance));
    return maintenance;
  }

  async maintenance(): Promise<Maintenance | null> {
    return this.uow.repositories.settings.maintenance();
  }

  private async group(repos: AdminRepositories['repositories'], name: string) {
    const g = await repos.groups.findByName(name);
    if (!g) throw new ResourceNotFoundError(`No such group '${name}'`);
    return g;
  }

  private async identitySet(repos: AdminRepositories['repositories'], username: string): Promise<IdentitySet> {
    return new IdentitySet(await repos.identities.listSet((await this.identity(repos, username)).set_id));
  }

  private async identity(repos: AdminRepositories['repositories'], username: string): Promise<IdentityState> {
    const identity = await repos.identities.findByUsername(username);
    if (!identity) throw new ResourceNotFoundError(`No such identity '${username}'`);
    return identity;
  }

  private async endpoint(repos: AdminRepositories['repositories'], id: string): Promise<Endpoint> {
    const endpoint = await repos.endpoints.findById(id.toLowerCase());
    if (!endpoint) throw new EndpointNotFoundError(id);
    return endpoint;
  }

  /** A username, or a group name: identities win when both exist. */
  private async principal(repos: AdminRepositories['repositories'], name: string): Promise<{ type: PrincipalType; id: string }> {
    const identity = await repos.identities.findByUsername(name);
    if (identity) return { type: 'identity', id: identity.id };
    const group = await repos.groups.findByName(name);
    if (group) return { type: 'group', id: group.id };
    throw new ResourceNotFoundError(`No identity or group named '${name}'`);
  }
}

/** A token an operator (or a seed) issues: for an identity, of scopes of one resource server (a token is for one), from no client. */
function operatorToken(identityId: string, names: readonly string[], tokenHash: string, expiresAt: Date | null, now: Date): AccessTokenState {
  const scopes = [...new Set(names.map(checkScopeName))];
  if (scopes.length === 0) throw new BadRequestError('A token needs a scope');
  const servers = new Set(scopes.map(resourceServerOf));
  if (servers.size > 1) throw new BadRequestError(`The scopes of one token must be of one resource server, not ${[...servers].join(' and ')}`);
  return {
    token_hash: tokenHash,
    identity_id: identityId,
    created_at: now,
    expires_at: expiresAt,
    revoked_at: null,
    client_id: null,
    scopes,
    resource_server: resourceServerOf(scopes[0]),
    refresh_token_hash: null,
    consent_client_id: null,
  };
}
