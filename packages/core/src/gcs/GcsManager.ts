import type { AuthenticationService } from '../auth/AuthenticationService';
import type { Principal } from '../auth/Principal';
import { Endpoint, type CollectionInput, type EndpointPatch } from '../endpoint/Endpoint';
import type { ShareCursor } from '../endpoint/EndpointRepository';
import { loadEndpoint } from '../endpoint/loadEndpoint';
import { removeEndpoint } from '../endpoint/removeEndpoint';
import { manageCollectionsScopeOf, registerHttpsAccess, type NodeState } from '../node/Node';
import { checkRoleGrant, effectiveRoles, isOwnerAdministrator, type EndpointRole, type RoleAssignmentState } from '../role/Role';
import { ConflictError, EndpointDeletedError, InvalidFieldError, PermissionDeniedError, ResourceNotFoundError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import { isUuid } from '../shared/text';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { checkNodeDirectory, gatewayAllows, newStorageGateway, updatedStorageGateway, type StorageGatewayInput, type StorageGatewayState } from './StorageGateway';
import { applyUserCredentialInput, checkLocalUsername, defaultLocalUsername, type UserCredentialInput, type UserCredentialState } from './UserCredential';

export type GcsManagerRepositories = RepositoriesOf<'nodes' | 'endpoints' | 'roles' | 'accessRules' | 'pauseRules' | 'identities' | 'groups' | 'scopes' | 'clients' | 'storageGateways' | 'userCredentials'>;
type Repos = GcsManagerRepositories['repositories'];

/** A GCS endpoint or collection as its Manager shows it: the Transfer document, and the caller's roles on it. */
export interface Managed {
  endpoint: Endpoint;
  roles: EndpointRole[];
}

/** A new collection: mapped (on a gateway) or guest (on a mapped collection, with a user credential). */
export interface CollectionCreate extends CollectionInput {
  collection_type: 'mapped' | 'guest';
  storage_gateway_id?: string;
  collection_base_path?: string;
  mapped_collection_id?: string;
  user_credential_id?: string;
}

export type CollectionFilter = 'mapped_collections' | 'guest_collections' | 'managed_by_me' | 'created_by_me';

export interface CollectionQuery {
  filters: CollectionFilter[];
  mappedCollectionId?: string;
  /** Where the previous page ended (its `marker`). */
  marker?: string;
  pageSize: number;
}

/** A role of the endpoint (`collection` null) or of one of its collections. */
export interface ManagedRole extends RoleAssignmentState {
  collection: string | null;
}

export interface RoleCreate {
  role: string;
  principal_type: 'identity' | 'group';
  principal_id: string;
  collection: string | null;
}

/** The most a page of collections holds. */
export const MAX_COLLECTION_PAGE = 1000;

/**
 * A data node's Globus Connect Server Manager API (`<node URL>/api/`), decided here. One source of
 * truth: the node's GCS endpoint and its collections are Transfer endpoints, their roles Transfer
 * roles. The bearer of a token for the node's `manage_collections` scope is known by its
 * identities; what it may do is its roles': the endpoint's administrators manage its gateways,
 * collections, roles and credentials; a collection's administrators (its creator among them)
 * manage it; anyone else is refused (403) and nothing changes.
 */
export class GcsManager {
  constructor(
    private readonly uow: GcsManagerRepositories,
    private readonly authentication: Pick<AuthenticationService, 'authenticateFor'>,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** `GET /info`, without a token: the node (its id is the endpoint's and its client's). */
  async info(nodeId: string): Promise<NodeState> {
    return this.node(this.uow.repositories, nodeId);
  }

  // ---- the endpoint ----

  /** `GET /endpoint`: any bearer of the node's scope reads it (it is public). */
  async endpoint(token: string | undefined, nodeId: string): Promise<Managed> {
    const caller = await this.caller(token, nodeId);
    return loadEndpoint(this.uow.repositories, caller, nodeId);
  }

  /** `PATCH /endpoint`: its administrators change its Transfer document. */
  async updateEndpoint(token: string | undefined, nodeId: string, patch: EndpointPatch): Promise<Managed> {
    const caller = await this.caller(token, nodeId);
    return this.uow.transaction(async (repos) => {
      const { endpoint, roles } = await loadEndpoint(repos, caller, nodeId, { forUpdate: true });
      assertAdministers(roles, 'update the endpoint');
      endpoint.update(patch);
      await repos.endpoints.update(endpoint);
      return { endpoint, roles };
    });
  }

  // ---- storage gateways ----

  /** `GET /storage_gateways`: to anyone holding a role on the endpoint. */
  async gateways(token: string | undefined, nodeId: string): Promise<StorageGatewayState[]> {
    const caller = await this.caller(token, nodeId);
    await this.holdsEndpointRole(this.uow.repositories, caller, nodeId, 'list storage gateways');
    return this.uow.repositories.storageGateways.listForNode(nodeId);
  }

  async gateway(token: string | undefined, nodeId: string, gatewayId: string): Promise<StorageGatewayState> {
    const caller = await this.caller(token, nodeId);
    await this.holdsEndpointRole(this.uow.repositories, caller, nodeId, 'read storage gateways');
    return this.gatewayOf(this.uow.repositories, nodeId, gatewayId);
  }

  /** `POST /storage_gateways`: the endpoint's administrators. */
  async createGateway(token: string | undefined, nodeId: string, input: StorageGatewayInput): Promise<StorageGatewayState> {
    const caller = await this.caller(token, nodeId);
    return this.uow.transaction(async (repos) => {
      await this.administersEndpoint(repos, caller, nodeId, 'create storage gateways');
      const gateway = newStorageGateway(input, { id: this.ids.uuid(), nodeId, now: this.clock.now() });
      await repos.storageGateways.add(gateway);
      return gateway;
    });
  }

  /** `PATCH /storage_gateways/<id>`: the endpoint's administrators; its root stays while collections use it. */
  async updateGateway(token: string | undefined, nodeId: string, gatewayId: string, patch: StorageGatewayInput): Promise<StorageGatewayState> {
    const caller = await this.caller(token, nodeId);
    return this.uow.transaction(async (repos) => {
      await this.administersEndpoint(repos, caller, nodeId, 'update storage gateways');
      const gateway = await this.gatewayOf(repos, nodeId, gatewayId);
      const updated = updatedStorageGateway(gateway, patch, (await this.collectionsOnGateway(repos, nodeId, gateway.id)).length > 0);
      await repos.storageGateways.update(updated);
      return updated;
    });
  }

  /** `DELETE /storage_gateways/<id>`: the endpoint's administrators, once no collection uses it; its credentials go with it. */
  async deleteGateway(token: string | undefined, nodeId: string, gatewayId: string): Promise<void> {
    const caller = await this.caller(token, nodeId);
    await this.uow.transaction(async (repos) => {
      await this.administersEndpoint(repos, caller, nodeId, 'delete storage gateways');
      const gateway = await this.gatewayOf(repos, nodeId, gatewayId);
      const using = await this.collectionsOnGateway(repos, nodeId, gateway.id);
      if (using.length > 0) throw new ConflictError(`Storage gateway '${gateway.id}' has collections (${using.slice(0, 3).map((c) => c.id).join(', ')}${using.length > 3 ? ', ...' : ''}): delete them first`);
      for (const credential of await repos.userCredentials.listForNode(nodeId, gateway.id)) await repos.userCredentials.delete(credential.id);
      await repos.storageGateways.delete(gateway.id);
    });
  }

  // ---- collections ----

  /**
   * `GET /collections`: one page of the node's collections the caller may see (the endpoint's
   * administrators and monitors: all; anyone else the public ones and those it holds a role on),
   * narrowed by the filters; `marker` where the next page begins, null on the last.
   */
  async collections(token: string | undefined, nodeId: string, query: CollectionQuery): Promise<{ collections: Managed[]; marker: string | null }> {
    const caller = await this.caller(token, nodeId);
    const repos = this.uow.repositories;
    const { roles: endpointRoles } = await loadEndpoint(repos, caller, nodeId);
    const seesAll = endpointRoles.includes('administrator') || endpointRoles.includes('activity_monitor');
    const page = await repos.endpoints.listCollectionsOfNode(nodeId, caller.principalIds, { after: markerCursor(query.marker), limit: query.pageSize + 1 });
    const more = page.length > query.pageSize;
    const read = page.slice(0, query.pageSize);
    const collections = read
      .map(({ endpoint, assignments }) => ({ endpoint, roles: effectiveRoles(endpoint, caller, assignments) }))
      .filter(({ endpoint, roles }) => seesAll || endpoint.isPublic || roles.length > 0)
      .filter(({ endpoint, roles }) => query.filters.every((filter) => passes(filter, endpoint, roles, caller)))
      .filter(({ endpoint }) => query.mappedCollectionId === undefined || endpoint.id === query.mappedCollectionId || endpoint.hostEndpointId === query.mappedCollectionId);
    const last = read.at(-1)?.endpoint;
    return { collections, marker: more && last ? cursorMarker({ createdAt: last.snapshot.created_at, id: last.id }) : null };
  }

  /** `GET /collections/<id>`: to whoever may see it (public, or a role on it or on the endpoint). */
  async collection(token: string | undefined, nodeId: string, collectionId: string): Promise<Managed> {
    const caller = await this.caller(token, nodeId);
    const repos = this.uow.repositories;
    const found = await this.collectionOf(repos, caller, nodeId, collectionId);
    if (!found.endpoint.isPublic && found.roles.length === 0) {
      const { roles } = await loadEndpoint(repos, caller, nodeId);
      if (roles.length === 0) throw new PermissionDeniedError(`Could not read collection '${collectionId}'. Insufficient permissions`);
    }
    return found;
  }

  /**
   * `POST /collections`. A mapped collection: by the endpoint's administrators, on one of its
   * gateways, its base path within the gateway's root. A guest collection: by an administrator of
   * its mapped collection (or of the endpoint) that allows guests, with the caller's user credential
   * on the mapped collection's gateway. The caller owns and administers what it makes.
   */
  async createCollection(token: string | undefined, nodeId: string, input: CollectionCreate): Promise<Managed> {
    const caller = await this.caller(token, nodeId);
    return this.uow.transaction(async (repos) => {
      const node = await this.node(repos, nodeId);
      const collection = input.collection_type === 'mapped' ? await this.newMapped(repos, caller, node, input) : await this.newGuest(repos, caller, nodeId, input);
      await repos.endpoints.insert(collection);
      await repos.roles.add({ id: this.ids.uuid(), endpoint_id: collection.id, role: 'administrator', principal_type: 'identity', principal_id: collection.ownerId, created_at: this.clock.now() });
      await registerHttpsAccess(repos, collection, this.clock, this.ids);
      return { endpoint: collection, roles: ['administrator'] as EndpointRole[] };
    });
  }

  /**
   * `PATCH /collections/<id>`: its administrators, or the endpoint's. `ifUnchanged` sees the
   * collection before the change and may refuse it (the edge checks what is fixed at creation).
   */
  async updateCollection(token: string | undefined, nodeId: string, collectionId: string, input: CollectionInput, ifUnchanged?: (current: Endpoint) => void): Promise<Managed> {
    const caller = await this.caller(token, nodeId);
    return this.uow.transaction(async (repos) => {
      const found = await this.administeredCollection(repos, caller, nodeId, collectionId, 'update', true);
      ifUnchanged?.(found.endpoint);
      found.endpoint.updateCollection(input);
      await repos.endpoints.update(found.endpoint);
      return found;
    });
  }

  /** `DELETE /collections/<id>`: its administrators, or the endpoint's; not while delete protected, nor a mapped collection with guest collections. */
  async deleteCollection(token: string | undefined, nodeId: string, collectionId: string): Promise<void> {
    const caller = await this.caller(token, nodeId);
    await this.uow.transaction(async (repos) => {
      const { endpoint } = await this.administeredCollection(repos, caller, nodeId, collectionId, 'delete', true);
      endpoint.assertDeletable();
      if (endpoint.collectionType === 'mapped' && (await repos.endpoints.listSharesOfHost(endpoint.id, [], { after: null, limit: 1 })).length > 0) {
        throw new ConflictError(`Mapped collection '${endpoint.id}' has guest collections: delete them first`);
      }
      await removeEndpoint(repos, endpoint, this.clock.now());
    });
  }

  // ---- roles ----

  /** `GET /roles`: the endpoint's roles (to those holding one) or a collection's (to those holding one there or administering the endpoint). */
  async roles(token: string | undefined, nodeId: string, collectionId: string | null): Promise<ManagedRole[]> {
    const caller = await this.caller(token, nodeId);
    const repos = this.uow.repositories;
    const target = collectionId === null ? nodeId : (await this.collectionOf(repos, caller, nodeId, collectionId)).endpoint.id;
    await this.holdsRoleOn(repos, caller, nodeId, target, 'list roles');
    return (await repos.roles.listForEndpoint(target)).map((role) => managedRole(role, nodeId));
  }

  async role(token: string | undefined, nodeId: string, roleId: string): Promise<ManagedRole> {
    const caller = await this.caller(token, nodeId);
    const repos = this.uow.repositories;
    const role = await this.roleOf(repos, nodeId, roleId);
    await this.holdsRoleOn(repos, caller, nodeId, role.endpoint_id, 'read roles');
    return managedRole(role, nodeId);
  }

  /** `POST /roles`: the endpoint's administrators grant its roles and its collections'; a collection's administrators grant that collection's. */
  async createRole(token: string | undefined, nodeId: string, grant: RoleCreate): Promise<ManagedRole> {
    const caller = await this.caller(token, nodeId);
    return this.uow.transaction(async (repos) => {
      const target = grant.collection === null ? (await loadEndpoint(repos, caller, nodeId)).endpoint : (await this.collectionOf(repos, caller, nodeId, grant.collection)).endpoint;
      await this.administersObject(repos, caller, nodeId, target.id, 'create roles');
      if (grant.role === 'owner') throw new InvalidFieldError('role', "'owner' is not granted: an endpoint's is its node, a collection's its creator");
      const { role, principal_type } = checkRoleGrant({ role: grant.role, principal_type: grant.principal_type, principal: grant.principal_id }, { kind: target.kind, managed: true });
      const principalId = grant.principal_id.toLowerCase();
      const known = isUuid(principalId) && (principal_type === 'identity' ? await repos.identities.findById(principalId) : await repos.groups.findById(principalId));
      if (!known) throw new InvalidFieldError('principal', `no ${principal_type} '${grant.principal_id.slice(0, 100)}' here`);
      if ((await repos.roles.listForEndpoint(target.id)).some((r) => r.role === role && r.principal_id === principalId)) throw new ConflictError(`The ${principal_type} '${principalId}' holds the role '${role}' already`);
      const assignment: RoleAssignmentState = { id: this.ids.uuid(), endpoint_id: target.id, role, principal_type, principal_id: principalId, created_at: this.clock.now() };
      await repos.roles.add(assignment);
      return managedRole(assignment, nodeId);
    });
  }

  /** `DELETE /roles/<id>`: as createRole; a collection creator's own administrator role stays with it. */
  async deleteRole(token: string | undefined, nodeId: string, roleId: string): Promise<void> {
    const caller = await this.caller(token, nodeId);
    await this.uow.transaction(async (repos) => {
      const role = await this.roleOf(repos, nodeId, roleId);
      const target = await this.administersObject(repos, caller, nodeId, role.endpoint_id, 'delete roles');
      if (isOwnerAdministrator(role, target)) throw new InvalidFieldError('role', "the creator's administrator role goes only with the collection");
      await repos.roles.delete(role.id);
    });
  }

  // ---- user credentials ----

  /** `GET /user_credentials`: the caller's own; all of them to the endpoint's administrators. */
  async userCredentials(token: string | undefined, nodeId: string, storageGatewayId?: string): Promise<UserCredentialState[]> {
    const caller = await this.caller(token, nodeId);
    const repos = this.uow.repositories;
    const { roles } = await loadEndpoint(repos, caller, nodeId);
    const all = await repos.userCredentials.listForNode(nodeId, storageGatewayId);
    return roles.includes('administrator') ? all : all.filter((c) => caller.hasIdentity(c.identity_id));
  }

  async userCredential(token: string | undefined, nodeId: string, credentialId: string): Promise<UserCredentialState> {
    const caller = await this.caller(token, nodeId);
    return this.ownCredential(this.uow.repositories, caller, nodeId, credentialId, 'read');
  }

  /**
   * `POST /user_credentials`: a credential for one of the caller's own identities (the caller's
   * primary unless named), or by the endpoint's administrators for anyone; one per identity and
   * gateway (409), on a gateway whose allowed domains take the identity.
   */
  async createUserCredential(token: string | undefined, nodeId: string, input: UserCredentialInput): Promise<UserCredentialState> {
    const caller = await this.caller(token, nodeId);
    return this.uow.transaction(async (repos) => {
      if (input.storage_gateway_id === undefined) throw new InvalidFieldError('storage_gateway_id', 'is required');
      const gateway = await this.gatewayOf(repos, nodeId, input.storage_gateway_id, 'storage_gateway_id');
      const identityId = (input.identity_id ?? caller.primary.id).toLowerCase();
      if (!caller.hasIdentity(identityId)) await this.administersEndpoint(repos, caller, nodeId, "create another identity's user credentials");
      const identity = isUuid(identityId) ? await repos.identities.findById(identityId) : null;
      if (!identity) throw new InvalidFieldError('identity_id', `no identity '${identityId.slice(0, 100)}' here`);
      if (!gatewayAllows(gateway, identity.username)) throw new PermissionDeniedError(`Storage gateway '${gateway.id}' allows identities of ${gateway.settings.allowed_domains.join(', ')} only, not '${identity.username}'`);
      // none named: the identity's username without its domain, as GCS's default mapping
      const username = input.username ?? defaultLocalUsername(identity.username);
      if (username === null) throw new InvalidFieldError('username', `is required: '${identity.username}' names no local account without its domain`);
      const credential = applyUserCredentialInput({ id: this.ids.uuid(), node_id: nodeId, storage_gateway_id: gateway.id, identity_id: identity.id, username: checkLocalUsername('username', username), display_name: null, policies: { DATA_TYPE: 'posix_user_credential_policies#1.0.0' }, created_at: this.clock.now() }, input);
      if (!(await repos.userCredentials.add(credential))) throw new ConflictError(`Identity '${identity.id}' has a user credential on storage gateway '${gateway.id}' already`);
      return credential;
    });
  }

  async updateUserCredential(token: string | undefined, nodeId: string, credentialId: string, input: UserCredentialInput): Promise<UserCredentialState> {
    const caller = await this.caller(token, nodeId);
    return this.uow.transaction(async (repos) => {
      const credential = await this.ownCredential(repos, caller, nodeId, credentialId, 'update');
      for (const field of ['identity_id', 'storage_gateway_id'] as const) {
        if (input[field] !== undefined && input[field]!.toLowerCase() !== credential[field]) throw new InvalidFieldError(field, 'is fixed when the credential is made');
      }
      const updated = applyUserCredentialInput(credential, input);
      await repos.userCredentials.update(updated);
      return updated;
    });
  }

  /** `DELETE /user_credentials/<id>`: its identity's, or the endpoint's administrators; not while a guest collection acts with it. */
  async deleteUserCredential(token: string | undefined, nodeId: string, credentialId: string): Promise<void> {
    const caller = await this.caller(token, nodeId);
    await this.uow.transaction(async (repos) => {
      const credential = await this.ownCredential(repos, caller, nodeId, credentialId, 'delete');
      const guests = (await this.collectionsOnGateway(repos, nodeId, credential.storage_gateway_id)).filter((c) => c.collection?.user_credential_id === credential.id);
      if (guests.length > 0) throw new ConflictError(`User credential '${credential.id}' is used by guest collection '${guests[0].id}': delete it first`);
      await repos.userCredentials.delete(credential.id);
    });
  }

  // ---- shared steps ----

  private async newMapped(repos: Repos, caller: Principal, node: NodeState, input: CollectionCreate): Promise<Endpoint> {
    await this.administersEndpoint(repos, caller, node.id, 'create mapped collections');
    if (input.storage_gateway_id === undefined) throw new InvalidFieldError('storage_gateway_id', 'is required for a mapped collection');
    const gateway = await this.gatewayOf(repos, node.id, input.storage_gateway_id, 'storage_gateway_id');
    if (input.collection_base_path === undefined) throw new InvalidFieldError('collection_base_path', 'is required: a directory within the storage gateway (/ for its root)');
    return Endpoint.createMappedCollection(input, { id: this.ids.uuid(), owner: caller.primary, now: this.clock.now(), node, gateway, basePath: input.collection_base_path });
  }

  private async newGuest(repos: Repos, caller: Principal, nodeId: string, input: CollectionCreate): Promise<Endpoint> {
    if (input.mapped_collection_id === undefined) throw new InvalidFieldError('mapped_collection_id', 'is required for a guest collection');
    const { endpoint: host, roles } = await this.collectionOf(repos, caller, nodeId, input.mapped_collection_id, 'mapped_collection_id');
    if (host.collectionType !== 'mapped') throw new InvalidFieldError('mapped_collection_id', `'${host.id}' is a guest collection, not a mapped one`);
    if (!roles.includes('administrator')) await this.administersEndpoint(repos, caller, nodeId, `create guest collections on mapped collection '${host.id}'`);
    if (input.collection_base_path === undefined) throw new InvalidFieldError('collection_base_path', 'is required: a directory within the mapped collection (/ for all of it)');
    const basePath = checkNodeDirectory('collection_base_path', input.collection_base_path);
    const credential = await this.guestCredential(repos, caller, host.collection!.storage_gateway_id, input.user_credential_id);
    const { collection_type: _type, storage_gateway_id: _gateway, collection_base_path: _base, mapped_collection_id: _mapped, user_credential_id: _credential, allow_guest_collections: allowGuests, delete_protected: deleteProtected, ...settings } = input;
    if (allowGuests === true) throw new InvalidFieldError('allow_guest_collections', 'applies to mapped collections only');
    return Endpoint.createShared(
      { ...settings, host_endpoint_id: host.id, host_path: basePath },
      { id: this.ids.uuid(), owner: caller.primary, now: this.clock.now(), host, callerIsHostAdministrator: true, guest: { user_credential_id: credential.id, delete_protected: deleteProtected ?? true } },
    );
  }

  /** The user credential a guest collection acts with: the one named (the caller's own), or the caller's only one on the gateway. */
  private async guestCredential(repos: Repos, caller: Principal, gatewayId: string, credentialId: string | undefined): Promise<UserCredentialState> {
    if (credentialId !== undefined) {
      const credential = isUuid(credentialId) ? await repos.userCredentials.findById(credentialId.toLowerCase()) : null;
      if (!credential || credential.storage_gateway_id !== gatewayId) throw new InvalidFieldError('user_credential_id', `no user credential '${credentialId.slice(0, 100)}' on the mapped collection's storage gateway`);
      if (!caller.hasIdentity(credential.identity_id)) throw new PermissionDeniedError(`User credential '${credential.id}' is another identity's`);
      return credential;
    }
    const own = (await repos.userCredentials.listForNode((await repos.storageGateways.findById(gatewayId))!.node_id, gatewayId)).filter((c) => caller.hasIdentity(c.identity_id));
    if (own.length !== 1) throw new InvalidFieldError('user_credential_id', own.length === 0 ? "is required: you have no user credential on the mapped collection's storage gateway (create one first)" : 'is required: you have several user credentials on that storage gateway');
    return own[0];
  }

  /** A collection of this node with the caller's roles; a deleted or another node's collection is not found. */
  private async collectionOf(repos: Repos, caller: Principal, nodeId: string, collectionId: string, field?: string): Promise<Managed> {
    const missing = () => (field ? new InvalidFieldError(field, `no collection '${collectionId.slice(0, 100)}' on this endpoint`) : new ResourceNotFoundError(`No collection '${collectionId.slice(0, 100)}' on this endpoint`));
    let found: Managed;
    try {
      found = await loadEndpoint(repos, caller, collectionId);
    } catch (error) {
      if (error instanceof EndpointDeletedError || error instanceof ResourceNotFoundError || (error as { code?: string }).code === 'EndpointNotFound') throw missing();
      throw error;
    }
    if (found.endpoint.snapshot.gcs_endpoint_id !== nodeId) throw missing();
    return found;
  }

  /** A collection the caller administers, or whose endpoint it administers. */
  private async administeredCollection(repos: Repos, caller: Principal, nodeId: string, collectionId: string, what: string, forUpdate = false): Promise<Managed> {
    const found = await this.collectionOf(repos, caller, nodeId, collectionId);
    if (!found.roles.includes('administrator')) await this.administersEndpoint(repos, caller, nodeId, `${what} collection '${found.endpoint.id}'`);
    if (!forUpdate) return found;
    return loadEndpoint(repos, caller, found.endpoint.id, { forUpdate: true });
  }

  /** The endpoint (target = the node) or a collection: refused unless the caller administers it or the endpoint; the target. */
  private async administersObject(repos: Repos, caller: Principal, nodeId: string, targetId: string, what: string): Promise<Endpoint> {
    if (targetId === nodeId) return (await this.administersEndpoint(repos, caller, nodeId, what)).endpoint;
    return (await this.administeredCollection(repos, caller, nodeId, targetId, what)).endpoint;
  }

  private async administersEndpoint(repos: Repos, caller: Principal, nodeId: string, what: string): Promise<Managed> {
    const found = await loadEndpoint(repos, caller, nodeId);
    assertAdministers(found.roles, what);
    return found;
  }

  private async holdsEndpointRole(repos: Repos, caller: Principal, nodeId: string, what: string): Promise<void> {
    const { roles } = await loadEndpoint(repos, caller, nodeId);
    if (roles.length === 0) throw new PermissionDeniedError(`Could not ${what}. Insufficient permissions`);
  }

  /** A role on the target (the endpoint or a collection), or the endpoint's administrator role. */
  private async holdsRoleOn(repos: Repos, caller: Principal, nodeId: string, targetId: string, what: string): Promise<void> {
    if (targetId === nodeId) return this.holdsEndpointRole(repos, caller, nodeId, what);
    const { roles } = await this.collectionOf(repos, caller, nodeId, targetId);
    if (roles.length === 0) await this.administersEndpoint(repos, caller, nodeId, what);
  }

  /** A role assignment on the endpoint or one of its collections. */
  private async roleOf(repos: Repos, nodeId: string, roleId: string): Promise<RoleAssignmentState> {
    const role = isUuid(roleId) ? await repos.roles.findById(roleId.toLowerCase()) : null;
    const missing = new ResourceNotFoundError(`No role '${roleId.slice(0, 100)}' on this endpoint`);
    if (!role) throw missing;
    if (role.endpoint_id !== nodeId) {
      const target = await repos.endpoints.findById(role.endpoint_id);
      if (target?.snapshot.gcs_endpoint_id !== nodeId) throw missing;
    }
    return role;
  }

  private async gatewayOf(repos: Repos, nodeId: string, gatewayId: string, field?: string): Promise<StorageGatewayState> {
    const gateway = isUuid(gatewayId) ? await repos.storageGateways.findById(gatewayId.toLowerCase()) : null;
    if (!gateway || gateway.node_id !== nodeId) {
      if (field) throw new InvalidFieldError(field, `no storage gateway '${gatewayId.slice(0, 100)}' on this endpoint`);
      throw new ResourceNotFoundError(`No storage gateway '${gatewayId.slice(0, 100)}' on this endpoint`);
    }
    return gateway;
  }

  /** The node's collections on a gateway (mapped and guest), every one. */
  private async collectionsOnGateway(repos: Repos, nodeId: string, gatewayId: string): Promise<Endpoint[]> {
    const found: Endpoint[] = [];
    const PAGE = 500;
    for (let after: ShareCursor | null = null; ; ) {
      const page = await repos.endpoints.listCollectionsOfNode(nodeId, [], { after, limit: PAGE });
      found.push(...page.map((c) => c.endpoint).filter((c) => c.collection?.storage_gateway_id === gatewayId));
      const last = page.at(-1)?.endpoint;
      if (!last || page.length < PAGE) return found;
      after = { createdAt: last.snapshot.created_at, id: last.id };
    }
  }

  private async credentialOf(repos: Repos, nodeId: string, credentialId: string): Promise<UserCredentialState> {
    const credential = isUuid(credentialId) ? await repos.userCredentials.findById(credentialId.toLowerCase()) : null;
    if (!credential || credential.node_id !== nodeId) throw new ResourceNotFoundError(`No user credential '${credentialId.slice(0, 100)}' on this endpoint`);
    return credential;
  }

  /** A credential of one of the caller's identities, or any to the endpoint's administrators. */
  private async ownCredential(repos: Repos, caller: Principal, nodeId: string, credentialId: string, what: string): Promise<UserCredentialState> {
    const credential = await this.credentialOf(repos, nodeId, credentialId);
    if (!caller.hasIdentity(credential.identity_id)) await this.administersEndpoint(repos, caller, nodeId, `${what} another identity's user credential`);
    return credential;
  }

  private async node(repos: Repos, nodeId: string): Promise<NodeState> {
    const node = isUuid(nodeId) ? await repos.nodes.findById(nodeId.toLowerCase()) : null;
    if (!node) throw new ResourceNotFoundError(`No Globus Connect Server endpoint '${nodeId.slice(0, 100)}' here`);
    return node;
  }

  /** The bearer of a token for this node's Manager; the node must exist. */
  private async caller(token: string | undefined, nodeId: string): Promise<Principal> {
    const node = await this.node(this.uow.repositories, nodeId);
    return this.authentication.authenticateFor(token, manageCollectionsScopeOf(node.id));
  }
}

/** Refuses (403) a caller who is not an administrator of the endpoint. */
function assertAdministers(roles: readonly EndpointRole[], what: string): void {
  if (!roles.includes('administrator')) throw new PermissionDeniedError(`Could not ${what}. Insufficient permissions`);
}

function managedRole(role: RoleAssignmentState, nodeId: string): ManagedRole {
  return { ...role, collection: role.endpoint_id === nodeId ? null : role.endpoint_id };
}

function passes(filter: CollectionFilter, endpoint: Endpoint, roles: readonly EndpointRole[], caller: Principal): boolean {
  switch (filter) {
    case 'mapped_collections':
      return endpoint.collectionType === 'mapped';
    case 'guest_collections':
      return endpoint.collectionType === 'guest';
    case 'managed_by_me':
      return roles.includes('administrator');
    case 'created_by_me':
      return caller.hasIdentity(endpoint.ownerId);
  }
}

/** A page's end as GCS's opaque marker: the last collection's creation time and id. */
function cursorMarker(cursor: ShareCursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()} ${cursor.id}`).toString('base64url');
}

function markerCursor(marker: string | undefined): ShareCursor | null {
  if (marker === undefined) return null;
  const [at, id] = Buffer.from(marker, 'base64url').toString().split(' ');
  const createdAt = new Date(at ?? '');
  if (Number.isNaN(createdAt.getTime()) || !isUuid(id ?? '')) throw new InvalidFieldError('marker', 'not a marker this endpoint gave');
  return { createdAt, id };
}
