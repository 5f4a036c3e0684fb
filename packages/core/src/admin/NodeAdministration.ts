import { timingSafeEqual } from 'node:crypto';
import { hashToken, newTokenSecret } from '../auth/AccessToken';
import { Endpoint } from '../endpoint/Endpoint';
import { removeEndpoint } from '../endpoint/removeEndpoint';
import { CALL_KEY_LIVE_MS, checkNodeName, checkNodeUrl, manageCollectionsScopeOf, NodeNotFoundError, mappedPolicyOf, type MappedRootPolicy, type NodeCallKey, type NodeRoot, type NodeState } from '../node/Node';
import { ConflictError } from '../shared/errors';
import { principalNamed } from './lookups';
import type { Clock, IdGenerator } from '../shared/ports';
import { isUuid } from '../shared/text';
import type { RepositoriesOf } from '../shared/UnitOfWork';

/** How often a node's contact is written down, at most. */
const CONTACT_EVERY_MS = 60_000;
/** A call key not renewed for this long is forgotten. */
const CALL_KEY_KEPT_MS = 24 * 60 * 60_000;

/** What a running node is told of itself each time it asks: the directories it serves, and the keys the API's calls are signed with. */
export interface NodeBriefing {
  /** Each with its policy where its endpoint is a mapped collection (the node acts as accounts there, and only there). */
  roots: (NodeRoot & { mapped: MappedRootPolicy | null })[];
  callKeys: NodeCallKey[];
}

/** A node as an operator sees it: everything but its secret's hash. */
export type NodeView = Omit<NodeState, 'secretHash'>;

const viewOf = ({ secretHash: _secret, ...node }: NodeState): NodeView => node;

/** Data nodes, registered by an operator (`xfer node`): each with a secret shown once, kept as a hash. */
export class NodeAdministration {
  constructor(
    private readonly uow: RepositoriesOf<'nodes' | 'endpoints' | 'roles' | 'identities' | 'groups' | 'scopes' | 'accessRules' | 'pauseRules' | 'storageGateways' | 'userCredentials'>,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /**
   * Registers a node (it need not be running): its id and its secret, shown once. The node is a
   * Globus Connect Server endpoint: its Transfer document is made with it, `owner` (a username or
   * group) administers it, and the authorization service knows its `manage_collections` scope.
   */
  async addNode(input: { name: string; url: string; owner?: string }): Promise<{ node: NodeView; secret: string }> {
    const secret = newTokenSecret();
    const now = this.clock.now();
    const node: NodeState = { id: this.ids.uuid(), name: checkNodeName(input.name), url: checkNodeUrl(input.url), secretHash: hashToken(secret), createdAt: now, lastContact: null };
    await this.uow.transaction(async (repos) => {
      const owner = input.owner === undefined ? null : await principalNamed(repos, input.owner);
      if (!(await repos.nodes.add(node))) throw new ConflictError(`Invalid name: a node is named '${node.name}' already`);
      await repos.endpoints.insert(Endpoint.forNode(node, now));
      if (owner !== null) await repos.roles.add({ id: this.ids.uuid(), endpoint_id: node.id, role: 'administrator', principal_type: owner.type, principal_id: owner.id, created_at: now });
      const scope = manageCollectionsScopeOf(node.id);
      if (!(await repos.scopes.findByName(scope))) await repos.scopes.add({ id: this.ids.uuid(), name: scope, description: `Manage the storage gateways and collections of data node '${node.name}'`, resource_server: node.id, dependent_scope_ids: [], created_at: now });
    });
    return { node: viewOf(node), secret };
  }

  async listNodes(): Promise<NodeView[]> {
    return (await this.uow.repositories.nodes.list()).map(viewOf);
  }

  /** A new secret for a node (the old one stops working at once), shown once. */
  async newSecret(idOrName: string): Promise<{ node: NodeView; secret: string }> {
    const node = await this.find(idOrName);
    const secret = newTokenSecret();
    if (!(await this.uow.repositories.nodes.saveSecretHash(node.id, hashToken(secret)))) throw new NodeNotFoundError(idOrName);
    return { node: viewOf(node), secret };
  }

  /**
   * Removes a node; its documents go with it (deleted endpoints, as any other): its GCS endpoint
   * and its collections, guest and mapped, whose files it served; its gateways and credentials too.
   */
  async removeNode(idOrName: string): Promise<NodeView> {
    const node = await this.find(idOrName);
    const now = this.clock.now();
    await this.uow.transaction(async (repos) => {
      if (!(await repos.nodes.delete(node.id))) throw new NodeNotFoundError(idOrName);
      const PAGE = 500;
      for (;;) {
        const collections = await repos.endpoints.listCollectionsOfNode(node.id, [], { after: null, limit: PAGE });
        for (const { endpoint } of collections) await removeEndpoint(repos, endpoint, now);
        if (collections.length < PAGE) break;
      }
      await repos.userCredentials.deleteForNode(node.id);
      await repos.storageGateways.deleteForNode(node.id);
      const endpoint = await repos.endpoints.findById(node.id);
      if (endpoint?.kind === 'gcs_endpoint') await removeEndpoint(repos, endpoint, now);
    });
    return viewOf(node);
  }

  /**
   * A node that presents its id and its secret (a running `xfer node serve`): the node, its contact
   * recorded; null for an unknown id or another secret, alike.
   */
  async authenticate(nodeId: string, secret: string): Promise<NodeView | null> {
    const node = isUuid(nodeId) ? await this.uow.repositories.nodes.findById(nodeId.toLowerCase()) : null;
    if (!node || !timingSafeEqual(Buffer.from(hashToken(secret), 'hex'), Buffer.from(node.secretHash, 'hex'))) return null;
    const now = this.clock.now();
    // a node asks on each client's first request: its contact is written at most once a minute
    if (node.lastContact === null || now.getTime() - node.lastContact.getTime() >= CONTACT_EVERY_MS) {
      await this.uow.repositories.nodes.saveLastContact(node.id, now);
      return viewOf({ ...node, lastContact: now });
    }
    return viewOf(node);
  }

  /** What the node `nodeId` (authenticated) is told: its endpoints' directories, and the live call keys. */
  async briefing(nodeId: string): Promise<NodeBriefing> {
    const { nodes } = this.uow.repositories;
    const since = new Date(this.clock.now().getTime() - CALL_KEY_LIVE_MS);
    const roots = await nodes.servedRoots(nodeId);
    const gateways = new Map((await this.uow.repositories.storageGateways.listForNode(nodeId)).map((gateway) => [gateway.id, gateway]));
    const endpoints = new Map((await this.uow.repositories.endpoints.findByIds(roots.map((root) => root.endpointId))).map((endpoint) => [endpoint.id, endpoint]));
    const mappedOf = (endpointId: string): MappedRootPolicy | null => {
      const endpoint = endpoints.get(endpointId);
      const gateway = endpoint?.collectionType === 'mapped' ? gateways.get(endpoint.collection!.storage_gateway_id) : undefined;
      return gateway && gateway.settings.identity_mappings.length > 0 ? mappedPolicyOf(gateway.settings) : null;
    };
    return { roots: roots.map((root) => ({ ...root, mapped: mappedOf(root.endpointId) })), callKeys: await nodes.callKeysSince(since) };
  }

  /** Publishes (or renews) this process's call key, and forgets keys of processes long gone. */
  async publishCallKey(key: NodeCallKey): Promise<void> {
    const now = this.clock.now();
    await this.uow.repositories.nodes.publishCallKey(key, now);
    await this.uow.repositories.nodes.purgeCallKeysBefore(new Date(now.getTime() - CALL_KEY_KEPT_MS));
  }

  /** A node by its id or its name. */
  private async find(idOrName: string): Promise<NodeState> {
    const { nodes } = this.uow.repositories;
    const node = isUuid(idOrName) ? await nodes.findById(idOrName.toLowerCase()) : await nodes.findByName(idOrName);
    if (!node) throw new NodeNotFoundError(idOrName);
    return node;
  }
}
