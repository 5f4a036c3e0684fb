import {
  BadRequestError,
  isVirtualServer,
  shortUsername,
  type EndpointKind,
  type EndpointServer,
  type EndpointView,
  type PauseRuleState,
  type ServerState,
  type VirtualServer,
} from '@xfer/core';

/** Aggregates to v0.10 response documents: the hosted service's keys, compatibility keys included. */

const ENTITY_TYPES: Record<EndpointKind, string> = {
  server: 'GCSv4_host',
  object_store: 'GCSv4_host',
  shared: 'GCSv4_share',
  personal: 'GCP_mapped_collection',
};

export interface ServerDocument {
  DATA_TYPE: 'server';
  id: number;
  hostname: string | null;
  port: number | null;
  scheme: string | null;
  subject: string | null;
  incoming_data_port_start: number | null;
  incoming_data_port_end: number | null;
  outgoing_data_port_start: number | null;
  outgoing_data_port_end: number | null;
  uri: string | null;
  is_connected: boolean | null;
  is_paused: boolean | null;
}

export function serverDocument(server: EndpointServer): ServerDocument {
  return isVirtualServer(server) ? virtualServerDocument(server) : realServerDocument(server);
}

function realServerDocument(server: ServerState): ServerDocument {
  return {
    DATA_TYPE: 'server',
    id: server.id,
    hostname: server.hostname,
    port: server.port,
    scheme: server.scheme,
    subject: server.subject,
    incoming_data_port_start: server.incoming_data_port_start,
    incoming_data_port_end: server.incoming_data_port_end,
    outgoing_data_port_start: server.outgoing_data_port_start,
    outgoing_data_port_end: server.outgoing_data_port_end,
    uri: `${server.scheme}://${server.hostname}:${server.port}`,
    is_connected: null,
    is_paused: null,
  };
}

function virtualServerDocument(server: VirtualServer): ServerDocument {
  return {
    DATA_TYPE: 'server',
    id: server.id,
    hostname: null,
    port: null,
    scheme: null,
    subject: null,
    incoming_data_port_start: null,
    incoming_data_port_end: null,
    outgoing_data_port_start: null,
    outgoing_data_port_end: null,
    uri: null,
    is_connected: server.connected,
    is_paused: server.paused,
  };
}

/**
 * The endpoint document: every field of spec 2.1 (null when unset, because clients index keys
 * directly), the compatibility keys of compat-notes, and `DATA`, the server documents.
 */
export function endpointDocument(view: EndpointView) {
  const { endpoint, host } = view;
  const s = endpoint.snapshot;
  const shared = s.kind === 'shared';
  const personal = s.kind === 'personal';
  const numbers = endpoint.networkSettings;
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
    vendor_connect_setup_key: view.setupKeyVisible ? s.vendor_connect_setup_key : null,
    host_endpoint: s.host_endpoint_id,
    host_endpoint_id: s.host_endpoint_id,
    host_endpoint_display_name: shared && host !== null && view.hostVisible ? (host.displayName ?? host.canonicalName) : null,
    host_path: view.hostPathVisible ? s.host_path : null,
    s3_url: s.s3_url,
    s3_owner_activated: s.kind === 'object_store' ? false : null,
    acl_available: shared,
    acl_editable: view.aclEditable,
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
    // the hosted service's names of min_concurrency and min_parallelism (compat: both names, one value)
    max_concurrency: numbers?.min_concurrency ?? null,
    max_parallelism: numbers?.min_parallelism ?? null,
    local_user_info_available: shared ? (host?.snapshot.local_user_info_available ?? null) : s.local_user_info_available,
    https_server: s.https_server,
    entity_type: ENTITY_TYPES[s.kind],
    is_globus_connect: personal,
    gcp_connected: s.vcp_connected,
    gcp_paused: s.vcp_paused,
    // what today's hosted clients print: xfer has no GCSv5 server behind an endpoint
    shareable: endpoint.shareable,
    subscription_admin_verified: s.subscription_admin_verified,
    non_functional: !endpoint.functional,
    high_assurance: false,
    gcs_version: null,
    gcs_manager_url: null,
    tlsftp_server: null,
    DATA: endpoint.servers.map(serverDocument),
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
  'max_concurrency', 'max_parallelism', 'local_user_info_available', 'https_server', 'entity_type', 'is_globus_connect',
  'gcp_connected', 'gcp_paused', 'shareable', 'subscription_admin_verified', 'non_functional', 'high_assurance', 'gcs_version', 'gcs_manager_url',
  'tlsftp_server', 'DATA',
]);

/**
 * The `fields` query parameter: known document keys, `server` for the `DATA` list.
 * Null when every field is wanted.
 */
export function fieldSelection(fields: unknown): Set<string> | null {
  if (fields === undefined) return null;
  if (typeof fields !== 'string') throw new BadRequestError("Invalid 'fields': give one comma-separated list");
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

/** Transfer's timestamp form: ISO 8601 with a space instead of `T`, UTC offset spelled out. */
export function formatTransferTime(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')}+00:00`;
}

/** `pause_rule_limited`: the rule as the affected user sees it, administrator-only fields removed. */
/** A pause rule as its managers see it (the endpoint manager's `pause_rule`, every field). */
export function pauseRuleDocument(rule: PauseRuleState) {
  return {
    DATA_TYPE: 'pause_rule' as const,
    id: rule.id,
    message: rule.message,
    start_time: rule.start_time ? formatTransferTime(rule.start_time) : null,
    endpoint_id: rule.endpoint_id,
    identity_id: rule.identity_id,
    pause_ls: rule.pause_ls,
    pause_mkdir: rule.pause_mkdir,
    pause_rename: rule.pause_rename,
    pause_task_delete: rule.pause_task_delete,
    pause_task_transfer_write: rule.pause_task_transfer_write,
    pause_task_transfer_read: rule.pause_task_transfer_read,
    modified_by: rule.modified_by,
    modified_by_id: rule.modified_by_id,
    created_by_host_manager: rule.created_by_host_manager,
    editable: true,
  };
}

/** The rule as an affected user sees it (`pause_rule_limited`): without the administrator-only fields, not editable. */
export function limitedPauseRuleDocument(rule: PauseRuleState) {
  const { modified_by: _by, modified_by_id: _byId, created_by_host_manager: _host, ...shown } = pauseRuleDocument(rule);
  return { ...shown, DATA_TYPE: 'pause_rule_limited' as const, editable: false };
}
