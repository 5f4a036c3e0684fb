import type { Principal } from '../auth/Principal';
import { ALL_PAUSED, checkPauseMessage, type PauseFlags, type PauseRuleState } from '../pause-rule/PauseRule';
import { canViewEndpoint, effectiveRoles, MONITOR_ROLES, PAUSE_RULE_MANAGERS, type EndpointRole } from '../role/Role';
import { BadRequestError, PermissionDeniedError, ResourceNotFoundError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import { isUuid } from '../shared/text';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import type { Endpoint } from './Endpoint';
import { viewOf } from './EndpointService';
import type { EndpointView } from './EndpointView';
import { hostRolesOf, loadEndpoint } from './loadEndpoint';

export type EndpointManagerRepositories = RepositoriesOf<'endpoints' | 'identities' | 'pauseRules' | 'nodes' | 'storageGateways'>;
type Repos = EndpointManagerRepositories['repositories'];

/** At most this many endpoints in one answer of the endpoint manager (monitored endpoints, pause rules). */
export const MAX_MANAGED_ENDPOINTS = 1000;

/** A pause-rule list names at most this many endpoints, and answers at most this many rules a page. */
export const PAUSE_RULE_LIST_LIMITS = { endpoints: 100, rules: 1000 } as const;

/** A page of pause rules: `offset` into them, at most `limit`. */
export interface PauseRulePage {
  rules: PauseRuleState[];
  offset: number;
  limit: number;
  hasNextPage: boolean;
}

/** A new pause rule, or the changes to one: the flags not given pause (as the operator's rules do). */
export interface PauseRuleInput {
  endpoint_id?: string;
  message?: string;
  identity_id?: string | null;
  start_time?: Date | null;
  flags?: Partial<PauseFlags>;
}

/** A data node as the administrators of the endpoints it serves see it: no secret, and those endpoints. */
export interface AdministeredNode {
  id: string;
  name: string;
  url: string;
  lastContact: Date | null;
  endpoints: { id: string; displayName: string | null }[];
  /** Whether the caller administers the node's GCS endpoint (then its gateways and collections are listed). */
  administered: boolean;
  gateways: { id: string; displayName: string; root: string }[];
  collections: { id: string; displayName: string | null; type: 'mapped' | 'guest'; storageGatewayId: string }[];
}

/** The most collections of one node the Data nodes page lists. */
export const MAX_LISTED_COLLECTIONS = 500;

const holds = (roles: readonly EndpointRole[], wanted: readonly EndpointRole[]) => roles.some((r) => wanted.includes(r));

/** Endpoints on which the caller holds one of `roles`, at most MAX_MANAGED_ENDPOINTS. */
export async function endpointsHeld(repos: Pick<Repos, 'endpoints'>, caller: Principal, roles: readonly EndpointRole[]): Promise<{ endpoint: Endpoint; roles: EndpointRole[] }[]> {
  const { principalIds } = caller;
  const hits = await repos.endpoints.search({ terms: [], visibleTo: { principalIds, roles: MONITOR_ROLES }, holding: { principalIds, roles }, offset: 0, limit: MAX_MANAGED_ENDPOINTS });
  // the repository found only endpoints where the caller holds one of `roles` (contract-tested)
  return hits.map((hit) => ({ endpoint: hit.endpoint, roles: effectiveRoles(hit.endpoint, caller, hit.assignments) }));
}

/**
 * The hosted service's endpoint-manager API (the SDK's `endpoint_manager_*`): the endpoints a
 * caller monitors, their shares, and their pause rules. Their tasks are TaskService's.
 */
export class EndpointManagerService {
  constructor(
    private readonly uow: EndpointManagerRepositories,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** Endpoints on which the caller holds a monitoring role, oldest first. */
  async monitoredEndpoints(caller: Principal): Promise<EndpointView[]> {
    const held = await this.held(caller, MONITOR_ROLES);
    return Promise.all(held.map(({ endpoint, roles }) => this.view(caller, endpoint, roles)));
  }

  /**
   * The data nodes serving the storage of endpoints the caller administers, and those whose GCS
   * endpoint it administers (with their storage gateways and collections), by name, each with the
   * caller's endpoints it serves (an operator's `xfer node list` shows every node; a caller sees only these).
   */
  async dataNodes(caller: Principal): Promise<AdministeredNode[]> {
    const repos = this.uow.repositories;
    const served = new Map<string, AdministeredNode['endpoints']>();
    const administered = new Set<string>();
    for (const { endpoint } of await this.held(caller, ['administrator'])) {
      // a node's own GCS endpoint: its administrators see its gateways and collections
      if (endpoint.kind === 'gcs_endpoint') administered.add(endpoint.id);
      const storage = endpoint.snapshot.storage;
      if (storage?.type === 'node') served.set(storage.node, [...(served.get(storage.node) ?? []), { id: endpoint.id, displayName: endpoint.displayName }]);
    }
    const ids = [...new Set([...served.keys(), ...administered])];
    const nodes = (await Promise.all(ids.map((id) => repos.nodes.findById(id)))).filter((node) => node !== null);
    const listed = await Promise.all(
      nodes.map(async ({ id, name, url, lastContact }): Promise<AdministeredNode> => {
        if (!administered.has(id)) return { id, name, url, lastContact, endpoints: served.get(id) ?? [], administered: false, gateways: [], collections: [] };
        const gateways = await repos.storageGateways.listForNode(id);
        const collections = await repos.endpoints.listCollectionsOfNode(id, [], { after: null, limit: MAX_LISTED_COLLECTIONS });
        return {
          id, name, url, lastContact,
          endpoints: served.get(id) ?? [],
          administered: true,
          gateways: gateways.map((g) => ({ id: g.id, displayName: g.display_name, root: g.root })),
          collections: collections.map(({ endpoint }) => ({ id: endpoint.id, displayName: endpoint.displayName, type: endpoint.collectionType!, storageGatewayId: endpoint.collection!.storage_gateway_id })),
        };
      }),
    );
    return listed.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** One endpoint, to those holding a monitoring role on it. */
  async endpoint(caller: Principal, xid: string): Promise<EndpointView> {
    const { endpoint, roles } = await this.monitored(this.uow.repositories, caller, xid);
    return this.view(caller, endpoint, roles);
  }

  /** The shares of a host, oldest first, at most MAX_MANAGED_ENDPOINTS, to those holding a monitoring role on the host. */
  async hostedEndpoints(caller: Principal, xid: string): Promise<EndpointView[]> {
    const repos = this.uow.repositories;
    const { endpoint: host, roles: hostRoles } = await this.monitored(repos, caller, xid);
    if (!host.canHostShares) throw new BadRequestError(`Endpoint '${host.id}' cannot host shared endpoints`);
    const shares = await repos.endpoints.listSharesOfHost(host.id, caller.principalIds, { after: null, limit: MAX_MANAGED_ENDPOINTS });
    return shares.map(({ endpoint: share, assignments }) => viewOf(share, effectiveRoles(share, caller, assignments), host, true, hostRoles));
  }

  /**
   * The pause rules of the endpoints the caller manages them on (those of `endpointIds` only, when
   * given: each named once, at most PAUSE_RULE_LIST_LIMITS.endpoints), a page at a time.
   */
  async pauseRules(caller: Principal, endpointIds?: readonly string[], page: { offset?: number; limit?: number } = {}): Promise<PauseRulePage> {
    const limit = page.limit ?? PAUSE_RULE_LIST_LIMITS.rules;
    const offset = page.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 1 || limit > PAUSE_RULE_LIST_LIMITS.rules) throw new BadRequestError(`Invalid limit: a number from 1 to ${PAUSE_RULE_LIST_LIMITS.rules}`);
    if (!Number.isInteger(offset) || offset < 0) throw new BadRequestError('Invalid offset: a number from 0');
    const repos = this.uow.repositories;
    let endpoints: Endpoint[];
    if (endpointIds) {
      // Stryker disable next-line MethodExpression: folded to either case, ids that differ only in case count once (they are looked up in any case)
      const distinct = [...new Set(endpointIds.map((id) => id.toLowerCase()))];
      if (distinct.length > PAUSE_RULE_LIST_LIMITS.endpoints) throw new BadRequestError(`Invalid filter_endpoint: at most ${PAUSE_RULE_LIST_LIMITS.endpoints} endpoints, not ${distinct.length}`);
      endpoints = await Promise.all(distinct.map(async (id) => (await this.managing(repos, caller, id)).endpoint));
    } else {
      endpoints = (await this.held(caller, PAUSE_RULE_MANAGERS)).map((h) => h.endpoint);
    }
    // one rule list per endpoint, read only as far as the page reaches
    const rules: PauseRuleState[] = [];
    for (const endpoint of endpoints) {
      rules.push(...(await repos.pauseRules.listForEndpoint(endpoint.id)));
      if (rules.length > offset + limit) break;
    }
    return { rules: rules.slice(offset, offset + limit), offset, limit, hasNextPage: rules.length > offset + limit };
  }

  async pauseRule(caller: Principal, ruleId: string): Promise<PauseRuleState> {
    return (await this.ruleManagedBy(this.uow.repositories, caller, ruleId)).rule;
  }

  /** A new pause rule on an endpoint the caller manages pause rules of; checked as the operator's command checks it. */
  async createPauseRule(caller: Principal, input: PauseRuleInput): Promise<PauseRuleState> {
    if (typeof input.endpoint_id !== 'string') throw new BadRequestError("Field 'endpoint_id' is required: the endpoint the rule pauses");
    if (typeof input.message !== 'string') throw new BadRequestError("Field 'message' is required: what users are told");
    return this.uow.transaction(async (repos) => {
      const { endpoint } = await this.managing(repos, caller, input.endpoint_id!);
      const rule: PauseRuleState = {
        id: this.ids.uuid(),
        endpoint_id: endpoint.id,
        message: checkPauseMessage(input.message!),
        start_time: input.start_time ?? this.clock.now(),
        identity_id: await this.identityOf(repos, input.identity_id ?? null),
        ...ALL_PAUSED,
        ...input.flags,
        modified_by: caller.primary.username,
        modified_by_id: caller.primary.id,
        created_by_host_manager: false,
      };
      await repos.pauseRules.add(rule);
      return rule;
    });
  }

  async updatePauseRule(caller: Principal, ruleId: string, patch: PauseRuleInput): Promise<PauseRuleState> {
    return this.uow.transaction(async (repos) => {
      const { rule } = await this.ruleManagedBy(repos, caller, ruleId);
      if (patch.endpoint_id !== undefined && patch.endpoint_id.toLowerCase() !== rule.endpoint_id) throw new BadRequestError("Field 'endpoint_id' of a pause rule cannot change");
      const changed: PauseRuleState = {
        ...rule,
        ...(patch.message !== undefined && { message: checkPauseMessage(patch.message) }),
        ...(patch.identity_id !== undefined && { identity_id: await this.identityOf(repos, patch.identity_id) }),
        ...(patch.start_time !== undefined && { start_time: patch.start_time }),
        ...patch.flags,
        modified_by: caller.primary.username,
        modified_by_id: caller.primary.id,
      };
      await repos.pauseRules.update(changed);
      return changed;
    });
  }

  async deletePauseRule(caller: Principal, ruleId: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const { rule } = await this.ruleManagedBy(repos, caller, ruleId);
      await repos.pauseRules.delete(rule.id);
    });
  }

  private held(caller: Principal, roles: readonly EndpointRole[]): Promise<{ endpoint: Endpoint; roles: EndpointRole[] }[]> {
    return endpointsHeld(this.uow.repositories, caller, roles);
  }

  private async view(caller: Principal, endpoint: Endpoint, roles: EndpointRole[]): Promise<EndpointView> {
    const { host, hostRoles } = await hostRolesOf(this.uow.repositories, caller, endpoint.hostEndpointId);
    return viewOf(endpoint, roles, host, host !== null && canViewEndpoint(host.isPublic, hostRoles), hostRoles);
  }

  private async monitored(repos: Repos, caller: Principal, xid: string) {
    const loaded = await loadEndpoint(repos, caller, xid);
    if (!holds(loaded.roles, MONITOR_ROLES)) throw new PermissionDeniedError(`You need the 'administrator', 'activity_manager' or 'activity_monitor' role on endpoint '${loaded.endpoint.id}'`);
    return loaded;
  }

  private async managing(repos: Repos, caller: Principal, xid: string) {
    const loaded = await loadEndpoint(repos, caller, xid);
    if (!holds(loaded.roles, PAUSE_RULE_MANAGERS)) throw new PermissionDeniedError(`You need the 'administrator' or 'activity_manager' role on endpoint '${loaded.endpoint.id}' to manage its pause rules`);
    return loaded;
  }

  private async ruleManagedBy(repos: Repos, caller: Principal, ruleId: string): Promise<{ rule: PauseRuleState }> {
    const rule = isUuid(ruleId) ? await repos.pauseRules.findById(ruleId.toLowerCase()) : null;
    if (!rule) throw new ResourceNotFoundError(`No such pause rule '${ruleId}'`);
    await this.managing(repos, caller, rule.endpoint_id);
    return { rule };
  }

  private async identityOf(repos: Repos, id: string | null): Promise<string | null> {
    if (id === null) return null;
    const identity = isUuid(id) ? await repos.identities.findById(id.toLowerCase()) : null;
    if (!identity) throw new BadRequestError(`Invalid identity_id: no identity '${id}'`);
    return identity.id;
  }
}
