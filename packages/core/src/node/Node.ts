import { createHash } from 'node:crypto';
import type { StorageGatewaySettings } from '../gcs/StorageGateway';
import type { PathRestrictions } from '../gcs/DataAccessPolicy';
import type { ClientRepository } from '../auth/Client';
import type { ScopeRepository } from '../auth/Scope';
import { InvalidFieldError, NotFoundError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import { checkText } from '../shared/text';

/**
 * A data node: a process a site runs beside its storage (`xfer node serve`), registered on the
 * API by an operator. It authenticates with a secret of which only the hash is kept, and serves
 * its endpoints' files over HTTPS at its URL.
 */
export interface NodeState {
  id: string;
  /** The operator's name for it, unique (case ignored). */
  name: string;
  /** Its HTTPS base URL (a path prefix allowed): where clients reach its endpoints' files. */
  url: string;
  secretHash: string;
  createdAt: Date;
  /** When it last authenticated to the API; null until it does. */
  lastContact: Date | null;
}

/**
 * A public key the API signs its calls to nodes with, as JWK text: each API process makes its key
 * pair when it starts and keeps the private half in memory only, so that nothing the database holds
 * opens a node (a copy of the database reads no node's files). Nodes verify with the live ones.
 */
export interface NodeCallKey {
  kid: string;
  publicJwk: string;
}

/** A directory of a node that an endpoint's storage is bound to: the node serves these and no other. */
export interface NodeRoot {
  endpointId: string;
  root: string;
}

/**
 * What a node enforces itself where an endpoint is a mapped collection (its gateway maps identities
 * to local accounts): who of its machine's accounts may be acted as, and on which paths.
 */
export interface MappedRootPolicy {
  users_allow: string[];
  users_deny: string[];
  groups_allow: string[];
  groups_deny: string[];
  restrict_paths: PathRestrictions | null;
}

/** A gateway's settings as its nodes enforce them. */
export function mappedPolicyOf(settings: StorageGatewaySettings): MappedRootPolicy {
  const { users_allow, users_deny, policies, restrict_paths } = settings;
  return { users_allow, users_deny, groups_allow: policies.groups_allow, groups_deny: policies.groups_deny, restrict_paths };
}

/** The digest of a policy, in a canonical order: the API names the one it decided under, a node told another asks again. */
export function policyDigest(policy: MappedRootPolicy): string {
  const { users_allow, users_deny, groups_allow, groups_deny, restrict_paths } = policy;
  const paths = restrict_paths && { read: restrict_paths.read, read_write: restrict_paths.read_write, none: restrict_paths.none };
  return createHash('sha256').update(JSON.stringify([users_allow, users_deny, groups_allow, groups_deny, paths])).digest('base64url');
}

/** What a node acts as for a call on a mapped collection: the local account, and the digest of the policy the API decided under. */
export interface ActingAs {
  account: string;
  policy: string;
}

/** How long a published call key stays live after its process last renewed it (its process renews it while it signs). */
export const CALL_KEY_LIVE_MS = 10 * 60_000;
/** How often a process that signs renews its key's publication, at most. */
export const CALL_KEY_RENEW_MS = 60_000;

/** Where nodes are kept. */
export interface NodeRepository {
  /** Adds a node; false, with nothing written, when its name is taken (case ignored). */
  add(node: NodeState): Promise<boolean>;
  findById(id: string): Promise<NodeState | null>;
  findByName(name: string): Promise<NodeState | null>;
  /** Every node, by name. */
  list(): Promise<NodeState[]>;
  saveSecretHash(id: string, secretHash: string): Promise<boolean>;
  saveLastContact(id: string, at: Date): Promise<void>;
  /** False when there was no such node. */
  delete(id: string): Promise<boolean>;
  /** The directories of the node that endpoints' storages are bound to, by endpoint id. */
  servedRoots(nodeId: string): Promise<NodeRoot[]>;
  /** Publishes a call key, or renews its publication: live from `at` for CALL_KEY_LIVE_MS. */
  publishCallKey(key: NodeCallKey, at: Date): Promise<void>;
  /** The call keys published or renewed since `since`, by kid. */
  callKeysSince(since: Date): Promise<NodeCallKey[]>;
  /** Forgets the call keys last renewed before `before`; how many. */
  purgeCallKeysBefore(before: Date): Promise<number>;
}

/** The scope of a node's GCS Manager API (resource server: the node's id), as the hosted service names a GCS endpoint's. */
export function manageCollectionsScopeOf(nodeId: string): string {
  return `urn:globus:auth:scope:${nodeId}:manage_collections`;
}

/** The scope of a node-bound endpoint's HTTPS access (resource server: the endpoint's id), as the hosted service names a collection's. */
export function httpsScopeOf(endpointId: string): string {
  return `https://auth.globus.org/scopes/${endpointId}/https`;
}

/** The scope a mapped collection's files are used with through Transfer (resource server: the collection's id), as the hosted service names it. */
export function dataAccessScopeOf(collectionId: string): string {
  return `https://auth.globus.org/scopes/${collectionId}/data_access`;
}

/** Where a node signs a browser in for an endpoint's files: the redirect URI of the endpoint's own OAuth client, under the node's URL. */
export const NODE_SIGN_IN_PATH = '/_xfer/sign-in';

/** The redirect URI a node's sign-in of a browser for `endpointId` comes back to, from the endpoint's https_server (`<node URL>/<endpoint id>`). */
export function nodeSignInUri(endpointId: string, httpsServer: string): string {
  const nodeUrl = httpsServer.endsWith(`/${endpointId}`) ? httpsServer.slice(0, -endpointId.length - 1) : httpsServer;
  return `${nodeUrl}${NODE_SIGN_IN_PATH}/${endpointId}`;
}

/**
 * Registers what HTTPS access to an endpoint a node serves needs of the authorization service:
 * the endpoint's `https` scope (a mapped collection's `data_access` too: both with the collection
 * as resource server, grantable together; the authorization service grants them as any scope: client
 * credentials, consent, `xfer token issue --scope`), and the endpoint's own public OAuth client
 * (its id the endpoint's, PKCE), through which its node signs a browser in, as a Globus Connect
 * Server collection does: its one redirect URI under the node's URL (kept as the node's is).
 * Nothing for an endpoint no node serves.
 */
export async function registerHttpsAccess(repos: { scopes: Pick<ScopeRepository, 'findByName' | 'add'>; clients: Pick<ClientRepository, 'findById' | 'add' | 'update'> }, endpoint: { id: string; snapshot: { display_name: string | null; https_server: string | null }; collectionType: string | null }, clock: Clock, ids: IdGenerator): Promise<void> {
  const httpsServer = endpoint.snapshot.https_server;
  if (httpsServer === null) return;
  const displayName = endpoint.snapshot.display_name ?? endpoint.id;
  const scopes: [string, string][] = [[httpsScopeOf(endpoint.id), `Read and write the files of '${displayName}' over HTTPS`]];
  // a mapped collection's data_access: what a Transfer client asks for beneath the transfer scope
  if (endpoint.collectionType === 'mapped') scopes.push([dataAccessScopeOf(endpoint.id), `Use the files of '${displayName}' through transfers`]);
  for (const [name, description] of scopes) {
    if (!(await repos.scopes.findByName(name))) await repos.scopes.add({ id: ids.uuid(), name, description, resource_server: endpoint.id, dependent_scope_ids: [], created_at: clock.now() });
  }
  const redirect = nodeSignInUri(endpoint.id, httpsServer);
  const client = await repos.clients.findById(endpoint.id);
  if (client === null) {
    await repos.clients.add({ id: endpoint.id, display_name: `${displayName} (files over HTTPS)`.slice(0, 128), branding: { logo_url: null, primary_color: null, background_color: null }, redirect_uris: [redirect], public_client: true, secret_hash: null, resource_server: null, template_id: null, created_at: clock.now() });
  } else if (!client.redirect_uris.includes(redirect)) await repos.clients.update({ ...client, redirect_uris: [redirect] });
}

export class NodeNotFoundError extends NotFoundError {
  readonly code = 'NodeNotFound';
  constructor(idOrName: string) {
    super(`No such node '${idOrName.slice(0, 100)}'`);
  }
}

const NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/i;

/** A node's name: 1 to 63 letters, digits, dots, dashes and underscores, a letter or digit first. */
export function checkNodeName(name: string): string {
  if (!NAME.test(name)) throw new InvalidFieldError('name', 'a node name: 1 to 63 letters, digits, ., - and _, beginning with a letter or digit');
  return name;
}

/** A node's URL: https, a host, a port and a path prefix at most (no user, query or fragment); without a trailing slash. */
export function checkNodeUrl(url: string): string {
  checkText('url', url, { max: 512, singleLine: true, ascii: true });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidFieldError('url', `'${url.slice(0, 100)}' is not a URL`);
  }
  if (parsed.protocol !== 'https:') throw new InvalidFieldError('url', 'an https:// URL: nodes serve TLS only');
  if (parsed.username || parsed.password || parsed.search || parsed.hash || url.includes('?') || url.includes('#')) throw new InvalidFieldError('url', 'a scheme, a host, a port and a path prefix only');
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}
