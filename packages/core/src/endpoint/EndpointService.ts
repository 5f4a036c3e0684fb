import { checkUsername } from '../auth/Identity';
import type { Principal } from '../auth/Principal';
import { pauseRuleAffects, type PauseRuleState } from '../pause-rule/PauseRule';
import { canManageAccessRules, canViewEndpoint, checkRoleGrant, effectiveRoles, isOwnerAdministrator, oversees, type EndpointRole, type RoleAssignmentState, type RoleGrant } from '../role/Role';
import {
  BadRequestError,
  ConcurrentModificationError,
  PermissionDeniedError,
  RoleNotFoundError,
} from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import { isUuid } from '../shared/text';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { registerHttpsAccess } from '../node/Node';
import { resolveSubscriptionId } from '../subscription/Subscription';
import { Endpoint, type CreateEndpoint, type CreateSharedEndpoint, type EndpointPatch } from './Endpoint';
import type { ShareCursor } from './EndpointRepository';
import { removeEndpoint } from './removeEndpoint';
import { MAX_SEARCH_WINDOW, searchCriteria, visibleHits, type EndpointSearchRequest } from './EndpointSearch';
import { hostRolesOf, loadEndpoint, type LoadedEndpoint as Loaded, type LoadOptions } from './loadEndpoint';
import type { EndpointView } from './EndpointView';
import type { EndpointServer, ServerInput, ServerPatch, ServerState } from './Server';

/** The repositories the endpoint operations use. */
export type EndpointRepositories = RepositoriesOf<'endpoints' | 'roles' | 'accessRules' | 'pauseRules' | 'subscriptions' | 'identities' | 'groups' | 'scopes' | 'clients'>;
type Repos = EndpointRepositories['repositories'];

export interface CreatedEndpoint {
  id: string;
  canonical_name: string;
  vendor_connect_setup_key: string | null;
}

const MAX_ATTEMPTS = 5;

/**
 * How each operation finds its endpoint: by the deprecated canonical name too on get and delete
 * only (spec 4.2); a write locks it until its transaction ends.
 */
// Stryker disable next-line ObjectLiteral: an absent canonicalName is false too
const BY_ID: LoadOptions = {};
const BY_ID_FOR_UPDATE: LoadOptions = { forUpdate: true };
const BY_ID_OR_NAME: LoadOptions = { canonicalName: true };
const BY_ID_OR_NAME_FOR_UPDATE: LoadOptions = { canonicalName: true, forUpdate: true };

/** The twelve operations of the endpoint management API (spec 4.2). */
export class EndpointService {
  constructor(
    private readonly uow: EndpointRepositories,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** 1. Get endpoint by id (or deprecated canonical name). */
  async getEndpoint(caller: Principal, xid: string): Promise<EndpointView> {
    const repos = this.uow.repositories;
    const { endpoint, roles } = await this.load(repos, caller, xid, BY_ID_OR_NAME);
    this.assertCanView(endpoint, roles);
    return this.view(repos, caller, endpoint, roles);
  }

  /** 2. Create a server or personal-client endpoint; the caller's primary identity owns it. */
  async createEndpoint(caller: Principal, input: CreateEndpoint): Promise<CreatedEndpoint> {
    const subscriptionId =
      input.subscription_id === undefined
        ? null
        : await this.resolveSubscription(this.uow.repositories, caller, input.subscription_id);
    return this.uow.transaction(async (repos) => {
      const endpoint = Endpoint.create(input, {
        id: this.ids.uuid(),
        owner: caller.primary,
        now: this.clock.now(),
        subscriptionId,
        setupKey: this.ids.uuid(),
      });
      await repos.endpoints.insert(endpoint);
      await this.grantOwnerAdministrator(repos, endpoint);
      return this.created(endpoint);
    });
  }

  /** 3. Create a shared endpoint on a managed host. */
  async createSharedEndpoint(caller: Principal, input: CreateSharedEndpoint): Promise<CreatedEndpoint> {
    const hostId = input.host_endpoint_id;
    return this.uow.transaction(async (repos) => {
      const { endpoint: host, roles } = await this.load(repos, caller, hostId, BY_ID);
      this.assertCanView(host, roles);
      const share = Endpoint.createShared(input, {
        id: this.ids.uuid(),
        owner: caller.primary,
        now: this.clock.now(),
        host,
        callerIsHostAdministrator: roles.includes('administrator'),
      });
      await repos.endpoints.insert(share);
      await this.grantOwnerAdministrator(repos, share);
      await registerHttpsAccess(repos, share, this.clock, this.ids);
      return this.created(share);
    });
  }

  /**
   * 4. Update endpoint: administrators only. `ifUnchanged` sees the endpoint as the caller may see
   * it before the change, and may refuse it (the edge checks read-only keys sent back with it).
   */
  async updateEndpoint(caller: Principal, xid: string, asked: EndpointPatch, ifUnchanged?: (current: EndpointView) => void): Promise<void> {
    await this.write(caller, xid, async (repos, endpoint, roles) => {
      if (ifUnchanged) ifUnchanged(await this.view(repos, caller, endpoint, roles));
      const patch = endpoint.withoutShownOwner(asked);
      let subscriptionId: string | null | undefined;
      if (patch.subscription_id !== undefined && patch.subscription_id !== endpoint.subscriptionId) {
        subscriptionId = await this.resolveSubscription(repos, caller, patch.subscription_id);
      }
      if (patch.owner_string !== undefined && patch.owner_string !== endpoint.snapshot.owner_string) {
        await this.assertCanTakeOwnership(repos, caller, endpoint, patch.owner_string);
      }
      endpoint.update(patch, { subscriptionId });
    });
  }

  /**
   * The hosted subscription_admin_verified: `true` by an administrator of the endpoint's
   * subscription, `false` also by the endpoint's administrators (Endpoint decides).
   */
  async setSubscriptionAdminVerified(caller: Principal, xid: string, verified: boolean): Promise<void> {
    await this.retryingTransaction(async (repos) => {
      const { endpoint, roles } = await this.load(repos, caller, xid, BY_ID_FOR_UPDATE);
      this.assertCanView(endpoint, roles);
      const subscription = endpoint.subscriptionId === null ? null : await repos.subscriptions.findById(endpoint.subscriptionId);
      const subscriptionAdministrator = subscription !== null && subscription.administrator_ids.some((id) => caller.principalIds.includes(id));
      endpoint.setSubscriptionAdminVerified(verified, { subscriptionAdministrator, endpointAdministrator: roles.includes('administrator') });
      await repos.endpoints.update(endpoint);
    });
  }

  /** 5. Delete endpoint: administrators only; servers, roles and pause rules go with it, a tombstone stays. */
  async deleteEndpoint(caller: Principal, xid: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const { endpoint, roles } = await this.load(repos, caller, xid, BY_ID_OR_NAME_FOR_UPDATE);
      // a share may also be deleted by its host's administrators
      // Stryker disable next-line StringLiteral: an administrator passes assertAdministrator below as well; the test spares reading the host
      if (!roles.includes('administrator') && !oversees((await hostRolesOf(repos, caller, endpoint.hostEndpointId)).hostRoles)) this.assertAdministrator(endpoint, roles);
      endpoint.assertDeletable();
      await removeEndpoint(repos, endpoint, this.clock.now());
    });
  }

  /** 6. The pause rules that affect the caller (the edge shows them without administrator-only fields). */
  async myEffectivePauseRules(caller: Principal, xid: string): Promise<PauseRuleState[]> {
    const repos = this.uow.repositories;
    const { endpoint, roles } = await this.load(repos, caller, xid, BY_ID);
    this.assertCanView(endpoint, roles);
    const rules = await repos.pauseRules.listForEndpoint(endpoint.id);
    return rules.filter((r) => pauseRuleAffects(r, caller.identityIds));
  }

  /** 7. Server list. */
  async listServers(caller: Principal, xid: string): Promise<EndpointServer[]> {
    const { endpoint, roles } = await this.load(this.uow.repositories, caller, xid, BY_ID);
    this.assertCanView(endpoint, roles);
    return endpoint.listServers();
  }

  /** 8. One server. */
  async getServer(caller: Principal, xid: string, serverId: number): Promise<EndpointServer> {
    const { endpoint, roles } = await this.load(this.uow.repositories, caller, xid, BY_ID);
    this.assertCanView(endpoint, roles);
    return endpoint.server(serverId);
  }

  /** 9. Add a server: administrators only. Returns the new server id. */
  async addServer(caller: Principal, xid: string, input: ServerInput): Promise<number> {
    return this.write(caller, xid, async (_repos, endpoint) => endpoint.addServer(input));
  }

  /** 10. Update a server: administrators only; `ifUnchanged` as for updateEndpoint. */
  async updateServer(caller: Principal, xid: string, serverId: number, patch: ServerPatch, ifUnchanged?: (current: ServerState) => void): Promise<void> {
    await this.write(caller, xid, async (_repos, endpoint) => endpoint.updateServer(serverId, patch, ifUnchanged));
  }

  /** 11. Delete a server: administrators only. */
  async deleteServer(caller: Principal, xid: string, serverId: number): Promise<void> {
    await this.write(caller, xid, async (_repos, endpoint) => endpoint.removeServer(serverId));
  }

  /** 12. Shares of a host on which the caller is administrator or access manager. */
  async mySharedEndpoints(caller: Principal, xid: string): Promise<EndpointView[]> {
    const repos = this.uow.repositories;
    const { endpoint: host, roles: hostRoles } = await this.load(repos, caller, xid, BY_ID);
    if (!host.canHostShares) {
      throw new BadRequestError(`Endpoint '${host.id}' cannot host shared endpoints`);
    }
    const listedFor: EndpointRole[] = ['administrator', 'access_manager'];
    const shares = await repos.endpoints.listSharesHeldBy(host.id, {
      // Stryker disable next-line ArrayDeclaration: an owner always holds the administrator role row its endpoint was made with, so the roles find owned shares too
      identityIds: [...caller.identityIds],
      principalIds: caller.principalIds,
      roles: listedFor,
    });
    const hostVisible = canViewEndpoint(host.isPublic, hostRoles);
    const views: EndpointView[] = [];
    for (const { endpoint: share, assignments } of shares) {
      const roles = effectiveRoles(share, caller, assignments);
      if (!roles.some((r) => listedFor.includes(r))) continue;
      views.push(viewOf(share, roles, host, hostVisible, hostRoles));
    }
    return views;
  }

  /**
   * Shares of a host (catalogue features 2), to its administrators and activity monitors: every
   * share the caller could GET, one page at a time in (created_at, id) order. `next` resumes
   * after the last share read; a page holds at least one share unless it is the last.
   */
  async sharesOfHost(caller: Principal, xid: string, page: { after: ShareCursor | null; limit: number }): Promise<{ views: EndpointView[]; next: ShareCursor | null }> {
    const repos = this.uow.repositories;
    const { endpoint: host, roles: hostRoles } = await this.load(repos, caller, xid, BY_ID);
    if (!host.canHostShares) throw new BadRequestError(`Endpoint '${host.id}' cannot host shared endpoints`);
    if (!hostRoles.includes('administrator') && !hostRoles.includes('activity_monitor')) {
      throw new PermissionDeniedError(`You need the 'administrator' or 'activity_monitor' role on endpoint '${host.id}' to list its shares`);
    }
    const hostVisible = canViewEndpoint(host.isPublic, hostRoles);
    const views: EndpointView[] = [];
    let after = page.after;
    for (;;) {
      const candidates = await repos.endpoints.listSharesOfHost(host.id, caller.principalIds, { after, limit: page.limit });
      for (const { endpoint: share, assignments } of candidates) {
        const roles = effectiveRoles(share, caller, assignments);
        if (canViewEndpoint(share.isPublic, roles)) views.push(viewOf(share, roles, host, hostVisible, hostRoles));
      }
      const last = candidates[candidates.length - 1]?.endpoint;
      after = candidates.length === page.limit && last ? { createdAt: last.snapshot.created_at, id: last.id } : null;
      // a page of shares the caller may not see reads on, so that no page is empty but the last
      if (views.length > 0 || after === null) return { views, next: after };
    }
  }

  /**
   * Endpoint search (catalogue features 1): what the caller could GET, meeting the scope and the
   * filters, best match first. `hasNextPage` is never true on an empty page.
   */
  async search(caller: Principal, request: EndpointSearchRequest): Promise<{ results: { view: EndpointView; rank: number }[]; hasNextPage: boolean; offset: number; limit: number }> {
    const repos = this.uow.repositories;
    const { criteria, offset, limit } = searchCriteria(caller, request, this.clock.now());
    if (criteria === null) return { results: [], hasNextPage: false, offset, limit };
    const hits = await repos.endpoints.search(criteria);
    const visible = visibleHits(caller, hits.slice(0, limit));
    // a page of shares often has one host: read each host once, not once per share
    const hosts = new Map<string, Promise<{ host: Endpoint | null; hostRoles: EndpointRole[] }>>();
    const hostOf = (id: string) => {
      // Stryker disable next-line ConditionalExpression: reading a host again gives the same host
      if (!hosts.has(id)) hosts.set(id, hostRolesOf(repos, caller, id));
      return hosts.get(id)!;
    };
    const results: { view: EndpointView; rank: number }[] = [];
    for (const { endpoint, roles, rank } of visible) {
      // Stryker disable next-line ConditionalExpression: hostOf of no host is no host; the test spares the call
      const { host, hostRoles } = endpoint.hostEndpointId === null ? { host: null, hostRoles: [] } : await hostOf(endpoint.hostEndpointId);
      results.push({ view: viewOf(endpoint, roles, host, host !== null && canViewEndpoint(host.isPublic, hostRoles), hostRoles), rank });
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: more hits than the limit (at least 1) fill the page; the first condition says the rule (never a next page after an empty one)
    return { results, hasNextPage: results.length > 0 && hits.length > limit && offset + limit < MAX_SEARCH_WINDOW, offset, limit };
  }

  // ---- roles (catalogue features 3) ----

  /** The role assignments of an endpoint, to any caller who holds a role on it. */
  async listRoles(caller: Principal, xid: string): Promise<RoleAssignmentState[]> {
    const repos = this.uow.repositories;
    const { endpoint, roles } = await this.load(repos, caller, xid, BY_ID);
    this.assertHoldsRole(endpoint, roles);
    return repos.roles.listForEndpoint(endpoint.id);
  }

  async getRole(caller: Principal, xid: string, roleId: string): Promise<RoleAssignmentState> {
    const repos = this.uow.repositories;
    const { endpoint, roles } = await this.load(repos, caller, xid, BY_ID);
    this.assertHoldsRole(endpoint, roles);
    return this.roleOf(repos, endpoint, roleId);
  }

  /** Grants a role: administrators only, on managed endpoints, to a known identity or group. */
  async addRole(caller: Principal, xid: string, grant: RoleGrant): Promise<RoleAssignmentState> {
    return this.uow.transaction(async (repos) => {
      const { endpoint, roles } = await this.load(repos, caller, xid, BY_ID_FOR_UPDATE);
      this.assertAdministrator(endpoint, roles);
      // Stryker disable next-line ConditionalExpression: no endpoint has a null id, so looking one up finds none either
      const host = endpoint.hostEndpointId === null ? null : await repos.endpoints.findById(endpoint.hostEndpointId);
      const managed = (host ?? endpoint).subscriptionId !== null;
      const { role, principal_type } = checkRoleGrant(grant, { kind: endpoint.kind, managed });
      const principalId = grant.principal.toLowerCase();
      const known = isUuid(principalId) && (principal_type === 'identity' ? await repos.identities.findById(principalId) : await repos.groups.findById(principalId));
      if (!known) throw new BadRequestError(`No ${principal_type} '${grant.principal}' to grant a role to`);
      const assignment: RoleAssignmentState = { id: this.ids.uuid(), endpoint_id: endpoint.id, role, principal_type, principal_id: principalId, created_at: this.clock.now() };
      await repos.roles.add(assignment);
      return assignment;
    });
  }

  /** Removes a role: administrators only; the owner's own administrator role stays with the endpoint. */
  async deleteRole(caller: Principal, xid: string, roleId: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const { endpoint, roles } = await this.load(repos, caller, xid, BY_ID_FOR_UPDATE);
      this.assertAdministrator(endpoint, roles);
      const assignment = await this.roleOf(repos, endpoint, roleId);
      if (isOwnerAdministrator(assignment, endpoint)) throw new BadRequestError("The owner's administrator role cannot be removed");
      await repos.roles.delete(assignment.id);
    });
  }

  private async roleOf(repos: Repos, endpoint: Endpoint, roleId: string): Promise<RoleAssignmentState> {
    const assignment = isUuid(roleId) ? await repos.roles.findById(roleId.toLowerCase()) : null;
    if (!assignment || assignment.endpoint_id !== endpoint.id) throw new RoleNotFoundError(roleId);
    return assignment;
  }

  private assertHoldsRole(endpoint: Endpoint, roles: EndpointRole[]): void {
    if (roles.length === 0) throw new PermissionDeniedError(`You hold no role on endpoint '${endpoint.id}'`);
  }

  // ---- shared steps ----

  private async grantOwnerAdministrator(repos: Repos, endpoint: Endpoint): Promise<void> {
    await repos.roles.add({
      id: this.ids.uuid(),
      endpoint_id: endpoint.id,
      role: 'administrator',
      principal_type: 'identity',
      principal_id: endpoint.ownerId,
      created_at: this.clock.now(),
    });
  }

  private created(endpoint: Endpoint): CreatedEndpoint {
    return { id: endpoint.id, canonical_name: endpoint.canonicalName, vendor_connect_setup_key: endpoint.setupKey };
  }

  /**
   * Load, check administrator, change, store: in one transaction, retried from a fresh read when
   * another writer stored the endpoint first.
   */
  private async write<T>(
    caller: Principal,
    xid: string,
    change: (repos: Repos, endpoint: Endpoint, roles: EndpointRole[]) => Promise<T>,
  ): Promise<T> {
    return this.retryingTransaction(async (repos) => {
      const { endpoint, roles } = await this.load(repos, caller, xid, BY_ID_FOR_UPDATE);
      this.assertAdministrator(endpoint, roles);
      const result = await change(repos, endpoint, roles);
      await repos.endpoints.update(endpoint);
      return result;
    });
  }

  /** A transaction that writes an endpoint, run again (up to MAX_ATTEMPTS) when another writer changed it first. */
  private async retryingTransaction<T>(work: (repos: Repos) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.uow.transaction(work);
      } catch (error) {
        if (!(error instanceof ConcurrentModificationError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  /** The endpoint and the caller's effective roles on it: one read. */
  private load(repos: Repos, caller: Principal, xid: string, options: LoadOptions): Promise<Loaded> {
    return loadEndpoint(repos, caller, xid, options);
  }

  /** What the caller may see of the endpoint: for a share, this reads its host with the caller's roles on it. */
  private async view(repos: Repos, caller: Principal, endpoint: Endpoint, roles: EndpointRole[]): Promise<EndpointView> {
    const { host, hostRoles } = await hostRolesOf(repos, caller, endpoint.hostEndpointId);
    const hostVisible = host !== null && canViewEndpoint(host.isPublic, hostRoles);
    return viewOf(endpoint, roles, host, hostVisible, hostRoles);
  }

  private assertCanView(endpoint: Endpoint, roles: EndpointRole[]): void {
    if (!canViewEndpoint(endpoint.isPublic, roles)) {
      throw new PermissionDeniedError(`You do not have permission to view endpoint '${endpoint.id}'`);
    }
  }

  private assertAdministrator(endpoint: Endpoint, roles: EndpointRole[]): void {
    if (!roles.includes('administrator')) {
      throw new PermissionDeniedError(
        `You need the 'administrator' role on endpoint '${endpoint.id}' to modify or delete it`,
      );
    }
  }

  private async resolveSubscription(repos: Repos, caller: Principal, requested: string | null): Promise<string | null> {
    // Stryker disable next-line ConditionalExpression,BlockStatement: resolveSubscriptionId answers null for null too
    if (requested === null) return null;
    const available = await repos.subscriptions.listForMembers(caller.principalIds);
    return resolveSubscriptionId(requested, available);
  }

  /**
   * owner_string may become an administrator set through an identity role, and that administrator
   * must be the one making the change (spec 2.1).
   */
  private async assertCanTakeOwnership(repos: Repos, caller: Principal, endpoint: Endpoint, username: string | null): Promise<void> {
    if (typeof username !== 'string') throw new BadRequestError('Invalid owner_string: must be a username');
    checkUsername(username);
    const identity = await repos.identities.findByUsername(username);
    if (!identity || !caller.hasIdentity(identity.id)) {
      throw new BadRequestError(`Invalid owner_string: '${username}' must be one of your own identities`);
    }
    // Stryker disable next-line ConditionalExpression,BlockStatement: the owner holds an identity administrator role from creation, which the check below finds
    if (identity.id === endpoint.ownerId) return;
    const assignments = await repos.roles.listForEndpoint(endpoint.id);
    const isAdministrator = assignments.some(
      // Stryker disable next-line ConditionalExpression: a group id is never an identity's id
      (a) => a.role === 'administrator' && a.principal_type === 'identity' && a.principal_id === identity.id,
    );
    if (!isAdministrator) {
      throw new BadRequestError(
        `Invalid owner_string: '${username}' must hold the administrator role on this endpoint through an identity role`,
      );
    }
  }
}

/** What a caller may see of an endpoint, from their roles on it and on its host. */
export function viewOf(
  endpoint: Endpoint,
  roles: readonly EndpointRole[],
  host: Endpoint | null,
  hostVisible: boolean,
  hostRoles: readonly EndpointRole[],
): EndpointView {
  const shared = endpoint.kind === 'shared';
  // Stryker disable next-line ConditionalExpression: only a share has a host
  const hostPathVisible = shared && host !== null && (roles.includes('administrator') || oversees(hostRoles) || hostRoles.includes('activity_monitor'));
  const setupKeyVisible = roles.includes('administrator');
  return { endpoint, roles, host, hostVisible, hostRoles, hostPathVisible, aclEditable: shared && canManageAccessRules(roles), setupKeyVisible };
}
