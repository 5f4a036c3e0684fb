import { shortUsername } from '../auth/Identity';
import { BadRequestError } from '../shared/errors';
import type { EndpointRole } from '../role/Role';
import type { Endpoint, EndpointKind } from './Endpoint';
import { effectiveNetworkSettings } from './network';
import type { ServerDocument } from './Server';

/** What the caller may see beyond the endpoint itself: their roles, and the host of a share. */
export interface EndpointView {
  roles: readonly EndpointRole[];
  /** For a share: its host when the host is not deleted. */
  host: Endpoint | null;
  /** The caller may GET the host by id. */
  hostVisible: boolean;
  /** The caller's effective roles on the host. */
  hostRoles: readonly EndpointRole[];
}

const ENTITY_TYPES: Record<EndpointKind, string> = {
  server: 'GCSv4_host',
  object_store: 'GCSv4_host',
  shared: 'GCSv4_share',
  personal: 'GCP_mapped_collection',
};

/**
 * The endpoint document: every field of spec 2.1 (null when unset, because clients index keys
 * directly), the compatibility keys of compat-notes, and `DATA`, the server documents.
 */
export function endpointDocument(endpoint: Endpoint, view: EndpointView) {
  const s = endpoint.snapshot;
  const shared = s.kind === 'shared';
  const personal = s.kind === 'personal';
  const numbers = effectiveNetworkSettings(s.network_use, s.custom_network);
  const host = shared ? view.host : null;
  const hostPathVisible =
    shared && host !== null && (view.roles.includes('administrator') || view.hostRoles.includes('activity_monitor'));
  // Shares and personal clients authenticate with service credentials: activated, never expiring.
  const serviceCredentials = shared || personal;
  return {
    DATA_TYPE: 'endpoint' as const,
    id: s.id,
    display_name: s.display_name,
    organization: s.organization,
    department: s.department,
    keywords: s.keywords,
    name: s.name,
    canonical_name: s.canonical_name,
    username: shortUsername(s.owner_string),
    owner_id: s.owner_id,
    owner_string: s.owner_string,
    description: s.description,
    contact_email: s.contact_email,
    contact_info: s.contact_info,
    info_link: s.info_link,
    public: s.public,
    subscription_id: s.subscription_id,
    default_directory: s.default_directory,
    force_encryption: s.force_encryption,
    disable_verify: s.disable_verify,
    expire_time: null,
    expires_in: serviceCredentials ? -1 : 0,
    activated: serviceCredentials,
    myproxy_server: s.myproxy_server,
    myproxy_dn: s.myproxy_dn,
    oauth_server: s.oauth_server,
    is_vendor_connect: personal,
    vendor_connect_setup_key: s.vendor_connect_setup_key,
    host_endpoint: s.host_endpoint_id,
    host_endpoint_id: s.host_endpoint_id,
    host_endpoint_display_name:
      host !== null && view.hostVisible ? (host.displayName ?? host.canonicalName) : null,
    host_path: hostPathVisible ? s.host_path : null,
    s3_url: s.s3_url,
    s3_owner_activated: s.kind === 'object_store' ? false : null,
    acl_available: shared,
    acl_editable: view.roles.includes('access_manager'),
    in_use: false,
    my_effective_roles: [...view.roles],
    vcp_connected: s.vcp_connected,
    vcp_paused: s.vcp_paused,
    network_use: s.network_use,
    location: s.location,
    min_concurrency: numbers?.min_concurrency ?? null,
    preferred_concurrency: numbers?.preferred_concurrency ?? null,
    min_parallelism: numbers?.min_parallelism ?? null,
    preferred_parallelism: numbers?.preferred_parallelism ?? null,
    local_user_info_available: shared ? (host?.snapshot.local_user_info_available ?? null) : s.local_user_info_available,
    https_server: s.https_server,
    entity_type: ENTITY_TYPES[s.kind],
    is_globus_connect: personal,
    gcp_connected: s.vcp_connected,
    gcp_paused: s.vcp_paused,
    DATA: endpoint.documentServers() as ServerDocument[],
  };
}

export type EndpointDocument = ReturnType<typeof endpointDocument>;

/** Every key of an endpoint document, in document order. */
export const ENDPOINT_DOCUMENT_KEYS: readonly string[] = Object.freeze([
  'DATA_TYPE', 'id', 'display_name', 'organization', 'department', 'keywords', 'name', 'canonical_name',
  'username', 'owner_id', 'owner_string', 'description', 'contact_email', 'contact_info', 'info_link', 'public',
  'subscription_id', 'default_directory', 'force_encryption', 'disable_verify', 'expire_time', 'expires_in',
  'activated', 'myproxy_server', 'myproxy_dn', 'oauth_server', 'is_vendor_connect', 'vendor_connect_setup_key',
  'host_endpoint', 'host_endpoint_id', 'host_endpoint_display_name', 'host_path', 's3_url', 's3_owner_activated',
  'acl_available', 'acl_editable', 'in_use', 'my_effective_roles', 'vcp_connected', 'vcp_paused', 'network_use',
  'location', 'min_concurrency', 'preferred_concurrency', 'min_parallelism', 'preferred_parallelism',
  'local_user_info_available', 'https_server', 'entity_type', 'is_globus_connect', 'gcp_connected', 'gcp_paused',
  'DATA',
]);

/**
 * Parses the `fields` query parameter: known document keys, `server` for the `DATA` list.
 * Returns null when every field is wanted.
 */
export function parseFieldSelection(fields: string | undefined): Set<string> | null {
  if (fields === undefined) return null;
  const names = fields.split(',').map((f) => f.trim()).filter((f) => f !== '');
  const unknown = names.filter((f) => f !== 'server' && (f === 'DATA' || !ENDPOINT_DOCUMENT_KEYS.includes(f)));
  if (unknown.length > 0) throw new BadRequestError(`Unknown field(s) in 'fields': ${unknown.join(', ')}`);
  return new Set(names.map((f) => (f === 'server' ? 'DATA' : f)));
}

/** Keeps the selected keys; DATA_TYPE always stays. */
export function selectFields<T extends Record<string, unknown>>(document: T, selection: Set<string> | null): Partial<T> {
  if (selection === null) return document;
  const result: Record<string, unknown> = { DATA_TYPE: document.DATA_TYPE };
  for (const key of ENDPOINT_DOCUMENT_KEYS) if (selection.has(key)) result[key] = document[key];
  return result as Partial<T>;
}
