import { ALL_PAUSED, checkPauseMessage, type PauseRuleState } from '../pause-rule/PauseRule';
import { ENDPOINT_ROLES, type EndpointRole } from '../role/Role';
import { BadRequestError, InvalidFieldError, ResourceNotFoundError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import type { StorageAttachment } from '../storage/Storage';
import type { Endpoint } from '../endpoint/Endpoint';
import type { ShareCursor } from '../endpoint/EndpointRepository';
import { NodeNotFoundError, registerHttpsAccess } from '../node/Node';
import { isUuid } from '../shared/text';
import { checkNodeDirectory, newStorageGateway, updatedStorageGateway, type StorageGatewaySettings } from '../gcs/StorageGateway';

import type { RepositoriesOf } from '../shared/UnitOfWork';
import { endpointWithId, identityNamed, principalNamed } from './lookups';

/** The repositories EndpointAdministration uses. */
export type EndpointAdminRepositories = RepositoriesOf<'accessRules' | 'endpoints' | 'groups' | 'identities' | 'nodes' | 'pauseRules' | 'roles' | 'scopes' | 'clients' | 'storageGateways'>;

/** What an operator sets on a node's storage gateway with `storage set`: GCS's mapping documents (checked whole) and allow and deny lists. */
export interface GatewayPolicies {
  identity_mappings?: unknown;
  restrict_paths?: unknown;
  users_allow?: string[];
  users_deny?: string[];
  groups_allow?: string[];
  groups_deny?: string[];
}

/** A node storage's gateway as `storage show` tells it. */
export type GatewayView = { id: string; root: string } & Pick<StorageGatewaySettings, 'identity_mappings' | 'restrict_paths' | 'users_allow' | 'users_deny'> & { groups_allow: string[]; groups_deny: string[] };

/** What an operator does to endpoints beside their owners' API: roles, pause rules, access rules read. */
export class EndpointAdministration {
  constructor(
    private readonly uow: EndpointAdminRepositories,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async grantRole(endpointId: string, role: string, principal: string): Promise<string> {
    if (!(ENDPOINT_ROLES as readonly string[]).includes(role)) {
      throw new BadRequestError(`Invalid role '${role}': must be one of ${ENDPOINT_ROLES.join(', ')}`);
    }
    return this.uow.transaction(async (repos) => {
      const endpoint = await endpointWithId(repos, endpointId);
      // the API's rule of kinds holds here too; the operator may still grant on endpoints that are
      // not managed, and grant activity_manager (who manages pause rules)
      if (role === 'access_manager' && endpoint.kind !== 'shared') throw new BadRequestError("The role 'access_manager' exists only on shared endpoints, which have access rules");
      const target = await principalNamed(repos, principal);
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
  async revokeRole(assignmentId: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      if (!(await repos.roles.findById(assignmentId))) throw new ResourceNotFoundError(`No such role assignment '${assignmentId}'`);
      await repos.roles.delete(assignmentId);
    });
  }
  async listRoles(endpointId: string) {
    const repos = this.uow.repositories;
    const endpoint = await endpointWithId(repos, endpointId);
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
    return repos.accessRules.listForEndpoint((await endpointWithId(repos, endpointId)).id);
  }
  async addPauseRule(endpointId: string, input: { message: string; identity?: string | null; by?: string | null }): Promise<string> {
    return this.uow.transaction(async (repos) => {
      const endpoint = await endpointWithId(repos, endpointId);
      const identity = input.identity ? await identityNamed(repos, input.identity) : null;
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
  async listPauseRules(endpointId: string) {
    const repos = this.uow.repositories;
    return repos.pauseRules.listForEndpoint((await endpointWithId(repos, endpointId)).id);
  }
  async removePauseRule(ruleId: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      if (!(await repos.pauseRules.findById(ruleId))) throw new ResourceNotFoundError(`No such pause rule '${ruleId}'`);
      await repos.pauseRules.delete(ruleId);
    });
  }

  /**
   * Attaches storage to a server or personal endpoint (replacing what was attached), or with null
   * detaches it. A node-bound storage names its node by id or name: it is kept by id, and makes
   * the endpoint a mapped collection of the node.
   */
  async setStorage(endpointId: string, attachment: StorageAttachment | null, policies: GatewayPolicies = {}): Promise<StorageAttachment | null> {
    const asked = Object.entries(policies).filter(([, value]) => value !== undefined).map(([field]) => field);
    if (asked.length > 0 && attachment?.type !== 'node') throw new InvalidFieldError(asked[0]!, "applies to a data node's storage (--node): its storage gateway maps identities to the node's accounts");
    return this.uow.transaction(async (repos) => {
      const endpoint = await endpointWithId(repos, endpointId);
      if (attachment === null) endpoint.detachStorage();
      else if (attachment.type !== 'node') endpoint.attachStorage(attachment);
      else {
        const node = isUuid(attachment.node) ? await repos.nodes.findById(attachment.node.toLowerCase()) : await repos.nodes.findByName(attachment.node);
        if (!node) throw new NodeNotFoundError(attachment.node);
        // the directory is a POSIX storage gateway of the node (its own, or one made for it), the
        // endpoint a mapped collection of its root that allows guests, as node-bound endpoints did
        const root = checkNodeDirectory('root', attachment.root);
        let gateway = (await repos.storageGateways.listForNode(node.id)).find((g) => g.root === root);
        if (gateway === undefined) {
          gateway = newStorageGateway({ display_name: `POSIX ${root}`.slice(0, 128), root }, { id: this.ids.uuid(), nodeId: node.id, now: this.clock.now() });
          await repos.storageGateways.add(gateway);
        }
        if (asked.length > 0) {
          // one stored document either way: the gateway's, as its Manager API's PATCH writes it
          const { groups_allow, groups_deny, ...rest } = policies;
          const policy = groups_allow !== undefined || groups_deny !== undefined ? { policies: { groups_allow: groups_allow ?? gateway.settings.policies.groups_allow, groups_deny: groups_deny ?? gateway.settings.policies.groups_deny } } : {};
          gateway = updatedStorageGateway(gateway, { ...rest, ...policy }, false);
          await repos.storageGateways.update(gateway);
        }
        endpoint.bindToGateway(node, gateway, '/', { allow_guest_collections: true, delete_protected: false });
        await registerHttpsAccess(repos, endpoint, this.clock, this.ids);
      }
      await repos.endpoints.update(endpoint);
      await this.sharesFollow(repos, endpoint);
      return endpoint.snapshot.storage;
    });
  }
  /** A host's shares follow its storage: served by its node at their own addresses (with their scopes), or by none. */
  private async sharesFollow(repos: EndpointAdminRepositories['repositories'], host: Endpoint): Promise<void> {
    const PAGE = 500;
    for (let after: ShareCursor | null = null; ; ) {
      const shares = await repos.endpoints.listSharesOfHost(host.id, [], { after, limit: PAGE });
      for (const { endpoint: share } of shares) {
        if (!share.serveFrom(host)) continue;
        await repos.endpoints.update(share);
        await registerHttpsAccess(repos, share, this.clock, this.ids);
      }
      const last = shares.at(-1);
      if (!last || shares.length < PAGE) return;
      after = { createdAt: last.endpoint.snapshot.created_at, id: last.endpoint.id };
    }
  }

  /** The storage attached to an endpoint, or null; a node's storage with its gateway's mapping and policies. */
  async storageOf(endpointId: string): Promise<(StorageAttachment & { storage_gateway?: GatewayView }) | null> {
    const endpoint = await endpointWithId(this.uow.repositories, endpointId);
    const storage = endpoint.snapshot.storage;
    const gatewayId = endpoint.collection?.storage_gateway_id;
    if (storage?.type !== 'node' || gatewayId === undefined) return storage;
    const gateway = await this.uow.repositories.storageGateways.findById(gatewayId);
    if (!gateway) return storage;
    const { identity_mappings, restrict_paths, users_allow, users_deny, policies } = gateway.settings;
    return { ...storage, storage_gateway: { id: gateway.id, root: gateway.root, identity_mappings, restrict_paths, users_allow, users_deny, groups_allow: policies.groups_allow, groups_deny: policies.groups_deny } };
  }
}
