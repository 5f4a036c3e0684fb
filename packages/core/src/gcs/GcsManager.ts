import type { AuthenticationService } from '../auth/AuthenticationService';
import type { Principal } from '../auth/Principal';
import type { Endpoint, EndpointPatch } from '../endpoint/Endpoint';
import { loadEndpoint } from '../endpoint/loadEndpoint';
import { manageCollectionsScopeOf, type NodeState } from '../node/Node';
import type { EndpointRole, RoleAssignmentState } from '../role/Role';
import { PermissionDeniedError, ResourceNotFoundError } from '../shared/errors';
import { isUuid } from '../shared/text';
import type { RepositoriesOf } from '../shared/UnitOfWork';

export type GcsManagerRepositories = RepositoriesOf<'nodes' | 'endpoints' | 'roles'>;


/** A GCS endpoint as its Manager shows it: the endpoint, and the caller's roles on it. */
export interface ManagedEndpoint {
  endpoint: Endpoint;
  roles: EndpointRole[];
}

/**
 * A data node's Globus Connect Server Manager API (`<node URL>/api/`), decided here: the node's
 * GCS endpoint (its Transfer document, one source of truth), and the roles on it. The bearer of a
 * token for the node's `manage_collections` scope is known by its identities; what it may do is
 * its roles' (administrator to change the endpoint or its roles); anyone else is refused.
 */
export class GcsManager {
  constructor(
    private readonly uow: GcsManagerRepositories,
    private readonly authentication: Pick<AuthenticationService, 'authenticateFor'>,
  ) {}

  /** `GET /info`, without a token: the node (its id is the endpoint's and its client's). */
  async info(nodeId: string): Promise<NodeState> {
    return this.node(nodeId);
  }

  /** `GET /endpoint`: any bearer of the node's scope reads it (it is public). */
  async endpoint(token: string | undefined, nodeId: string): Promise<ManagedEndpoint> {
    const caller = await this.caller(token, nodeId);
    return loadEndpoint(this.uow.repositories, caller, nodeId);
  }

  /** `PATCH /endpoint`: its administrators (the owner among them) change its Transfer document. */
  async updateEndpoint(token: string | undefined, nodeId: string, patch: EndpointPatch): Promise<ManagedEndpoint> {
    const caller = await this.caller(token, nodeId);
    return this.uow.transaction(async (repos) => {
      const { endpoint, roles } = await loadEndpoint(repos, caller, nodeId, { forUpdate: true });
      assertAdministers(roles, 'update the endpoint');
      endpoint.update(patch);
      await repos.endpoints.update(endpoint);
      return { endpoint, roles };
    });
  }

  /** `GET /roles`: the endpoint's role assignments, to anyone holding a role on it. */
  async roles(token: string | undefined, nodeId: string): Promise<RoleAssignmentState[]> {
    const caller = await this.caller(token, nodeId);
    const { roles } = await loadEndpoint(this.uow.repositories, caller, nodeId);
    if (roles.length === 0) throw new PermissionDeniedError('Could not list roles. Insufficient permissions');
    return this.uow.repositories.roles.listForEndpoint(nodeId);
  }

  private async node(nodeId: string): Promise<NodeState> {
    const node = isUuid(nodeId) ? await this.uow.repositories.nodes.findById(nodeId.toLowerCase()) : null;
    if (!node) throw new ResourceNotFoundError(`No Globus Connect Server endpoint '${nodeId.slice(0, 100)}' here`);
    return node;
  }

  /** The bearer of a token for this node's Manager; the node must exist. */
  private async caller(token: string | undefined, nodeId: string): Promise<Principal> {
    const node = await this.node(nodeId);
    return this.authentication.authenticateFor(token, manageCollectionsScopeOf(node.id));
  }
}

/** Refuses (403) a caller who is not an administrator of the endpoint. */
function assertAdministers(roles: readonly EndpointRole[], what: string): void {
  if (!roles.includes('administrator')) throw new PermissionDeniedError(`Could not ${what}. Insufficient permissions`);
}
