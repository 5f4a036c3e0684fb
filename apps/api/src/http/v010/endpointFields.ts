import { ENDPOINT_NAME_MAX, shortUsername, type Endpoint, type EndpointKind, type EndpointState, type EndpointView } from '@xfer/core';

/**
 * The endpoint document of v0.10, field by field, in document order: the one declaration from which
 * the response document (documents.ts), the request parsing (requests.ts: which keys a body may
 * hold, of which type, read-only or the hosted name of another), the `fields` selection and the
 * OpenAPI schema (openapi.ts) are made. A field added here is in all of them.
 */

/** What a request may send for a field: its type, `readOnly` (accepted when sent back unchanged), or nothing. */
export type FieldInput = 'string' | 'integer' | 'boolean' | 'nullableBoolean' | 'readOnly';

/** What a field's value is made from: the view of the endpoint for this caller, and what it implies. */
export interface FieldContext {
  view: EndpointView;
  endpoint: Endpoint;
  s: EndpointState;
  host: EndpointView['host'];
  shared: boolean;
  personal: boolean;
  numbers: Endpoint['networkSettings'];
  /** Shares and personal clients authenticate with service credentials: activated, never expiring. */
  serviceCredentials: boolean;
  /** One of the caller's ACTIVE tasks uses the endpoint (spec 2.1). */
  inUse: boolean;
}

export interface EndpointField {
  name: string;
  value: (context: FieldContext) => unknown;
  /** JSON Schema of the value in a response document. */
  schema: object;
  input?: FieldInput;
  /** The hosted service's name of another field: a request may send either name (one value), a document has both. */
  aliasOf?: string;
  /** A status that changes on its own (tasks come and go): sent back with any value of its type, as a document read a moment ago may hold it. */
  changesOnItsOwn?: true;
}

const nullable = (type: string, extra: object = {}) => ({ type: [type, 'null'], ...extra });

const ENTITY_TYPES: Record<EndpointKind, string> = {
  server: 'GCSv4_host',
  object_store: 'GCSv4_host',
  shared: 'GCSv4_share',
  personal: 'GCP_mapped_collection',
  gcs_endpoint: 'GCSv5_endpoint',
};

/** The version of Globus Connect Server a GCSv5 endpoint or collection reports (the CLI's fixtures show 5.4.10). */
const GCS_VERSION = '5.4.10';

/** A GCS collection's type by its kind; every other endpoint's by its kind. */
function entityType(endpoint: Endpoint): string {
  if (endpoint.collectionType === 'mapped') return 'GCSv5_mapped_collection';
  if (endpoint.collectionType === 'guest') return 'GCSv5_guest_collection';
  return ENTITY_TYPES[endpoint.kind];
}

export const ENDPOINT_FIELDS: readonly EndpointField[] = [
  { name: 'DATA_TYPE', value: () => 'endpoint', schema: { const: 'endpoint' }, input: 'string' },
  { name: 'id', value: ({ s }) => s.id, schema: { type: 'string', format: 'uuid' }, input: 'readOnly' },
  { name: 'display_name', value: ({ s }) => s.display_name, schema: nullable('string', { maxLength: ENDPOINT_NAME_MAX }), input: 'string' },
  { name: 'organization', value: ({ s }) => s.organization, schema: nullable('string', { maxLength: 1024 }), input: 'string' },
  { name: 'department', value: ({ s }) => s.department, schema: nullable('string', { maxLength: 1024 }), input: 'string' },
  { name: 'keywords', value: ({ s }) => s.keywords, schema: nullable('string', { maxLength: 1024 }), input: 'string' },
  { name: 'name', value: ({ s }) => s.name, schema: { type: 'string', maxLength: ENDPOINT_NAME_MAX }, input: 'string' },
  { name: 'canonical_name', value: ({ endpoint }) => endpoint.shown.canonicalName, schema: { type: 'string' }, input: 'string' },
  { name: 'username', value: ({ endpoint }) => shortUsername(endpoint.shown.ownerString), schema: { type: 'string' }, input: 'readOnly' },
  { name: 'owner_id', value: ({ endpoint }) => endpoint.shown.ownerId, schema: { type: 'string' }, input: 'readOnly' },
  { name: 'owner_string', value: ({ endpoint }) => endpoint.shown.ownerString, schema: { type: 'string' }, input: 'string' },
  { name: 'description', value: ({ s }) => s.description, schema: nullable('string', { maxLength: 4096 }), input: 'string' },
  { name: 'contact_email', value: ({ s }) => s.contact_email, schema: nullable('string'), input: 'string' },
  { name: 'contact_info', value: ({ s }) => s.contact_info, schema: nullable('string', { maxLength: 4096 }), input: 'string' },
  { name: 'info_link', value: ({ s }) => s.info_link, schema: nullable('string'), input: 'string' },
  { name: 'public', value: ({ s }) => s.public, schema: { type: 'boolean' }, input: 'boolean' },
  { name: 'subscription_id', value: ({ s }) => s.subscription_id, schema: nullable('string'), input: 'string' },
  { name: 'default_directory', value: ({ s }) => s.default_directory, schema: nullable('string'), input: 'string' },
  { name: 'force_encryption', value: ({ s }) => s.force_encryption, schema: { type: 'boolean' }, input: 'boolean' },
  { name: 'disable_verify', value: ({ s }) => s.disable_verify, schema: { type: 'boolean' }, input: 'boolean' },
  { name: 'expire_time', value: () => null, schema: nullable('string'), input: 'readOnly' },
  { name: 'expires_in', value: ({ serviceCredentials }) => serviceCredentials ? -1 : 0, schema: { type: 'integer', minimum: -1 }, input: 'readOnly' },
  { name: 'activated', value: ({ serviceCredentials }) => serviceCredentials, schema: { type: 'boolean' }, input: 'readOnly' },
  { name: 'myproxy_server', value: ({ s }) => s.myproxy_server, schema: nullable('string'), input: 'string' },
  { name: 'myproxy_dn', value: ({ s }) => s.myproxy_dn, schema: nullable('string'), input: 'string' },
  { name: 'oauth_server', value: ({ s }) => s.oauth_server, schema: nullable('string'), input: 'string' },
  { name: 'is_vendor_connect', value: ({ personal }) => personal, schema: { type: 'boolean' }, input: 'nullableBoolean' },
  { name: 'vendor_connect_setup_key', value: ({ s, view }) => view.setupKeyVisible ? s.vendor_connect_setup_key : null, schema: nullable('string'), input: 'readOnly' },
  { name: 'host_endpoint', value: ({ s }) => s.host_endpoint_id, schema: nullable('string'), input: 'string' },
  { name: 'host_endpoint_id', value: ({ s }) => s.host_endpoint_id, schema: nullable('string'), input: 'string' },
  { name: 'host_endpoint_display_name', value: ({ view, host, shared }) => shared && host !== null && view.hostVisible ? (host.displayName ?? host.canonicalName) : null, schema: nullable('string'), input: 'readOnly' },
  { name: 'host_path', value: ({ s, view }) => view.hostPathVisible ? s.host_path : null, schema: nullable('string'), input: 'string' },
  { name: 's3_url', value: ({ s }) => s.s3_url, schema: nullable('string'), input: 'readOnly' },
  { name: 's3_owner_activated', value: ({ s }) => s.kind === 'object_store' ? false : null, schema: nullable('boolean'), input: 'readOnly' },
  { name: 'acl_available', value: ({ shared }) => shared, schema: { type: 'boolean' }, input: 'readOnly' },
  { name: 'acl_editable', value: ({ view }) => view.aclEditable, schema: { type: 'boolean' }, input: 'readOnly' },
  { name: 'in_use', value: (c) => c.inUse, schema: { type: 'boolean' }, input: 'readOnly', changesOnItsOwn: true },
  { name: 'my_effective_roles', value: ({ view }) => [...view.roles], schema: { type: 'array', items: { enum: ['administrator', 'activity_manager', 'activity_monitor', 'access_manager'] } }, input: 'readOnly' },
  { name: 'vcp_connected', value: ({ s }) => s.vcp_connected, schema: nullable('boolean'), input: 'readOnly' },
  { name: 'vcp_paused', value: ({ s }) => s.vcp_paused, schema: nullable('boolean'), input: 'readOnly' },
  { name: 'network_use', value: ({ s }) => s.network_use, schema: { enum: ['minimal', 'normal', 'aggressive', 'custom', null] }, input: 'string' },
  { name: 'location', value: ({ s }) => s.location, schema: nullable('string'), input: 'string' },
  // the spec's older names of max_concurrency and max_parallelism (compat: both names, one value)
  { name: 'min_concurrency', value: ({ numbers }) => numbers?.max_concurrency ?? null, schema: { ...nullable('integer'), description: "The spec's name of max_concurrency: the same value" }, input: 'integer', aliasOf: 'max_concurrency' },
  { name: 'preferred_concurrency', value: ({ numbers }) => numbers?.preferred_concurrency ?? null, schema: nullable('integer'), input: 'integer' },
  { name: 'min_parallelism', value: ({ numbers }) => numbers?.max_parallelism ?? null, schema: { ...nullable('integer'), description: "The spec's name of max_parallelism: the same value" }, input: 'integer', aliasOf: 'max_parallelism' },
  { name: 'preferred_parallelism', value: ({ numbers }) => numbers?.preferred_parallelism ?? null, schema: nullable('integer'), input: 'integer' },
  { name: 'max_concurrency', value: ({ numbers }) => numbers?.max_concurrency ?? null, schema: { ...nullable('integer'), description: 'Ceiling of concurrent files: preferred_concurrency is at most this' }, input: 'integer' },
  { name: 'max_parallelism', value: ({ numbers }) => numbers?.max_parallelism ?? null, schema: { ...nullable('integer'), description: 'Ceiling of parallel streams: preferred_parallelism is at most this' }, input: 'integer' },
  { name: 'local_user_info_available', value: ({ s, host, shared }) => shared ? (host?.snapshot.local_user_info_available ?? null) : s.local_user_info_available, schema: nullable('boolean'), input: 'readOnly' },
  { name: 'https_server', value: ({ s }) => s.https_server, schema: nullable('string'), input: 'string' },
  { name: 'entity_type', value: ({ endpoint }) => entityType(endpoint), schema: { enum: ['GCSv4_host', 'GCSv4_share', 'GCP_mapped_collection', 'GCSv5_endpoint', 'GCSv5_mapped_collection', 'GCSv5_guest_collection'] }, input: 'readOnly' },
  { name: 'is_globus_connect', value: ({ personal }) => personal, schema: { type: 'boolean' }, input: 'nullableBoolean' },
  { name: 'gcp_connected', value: ({ s }) => s.vcp_connected, schema: nullable('boolean'), input: 'readOnly' },
  { name: 'gcp_paused', value: ({ s }) => s.vcp_paused, schema: nullable('boolean'), input: 'readOnly' },
  // what today's hosted clients print: xfer has no GCSv5 server behind an endpoint
  { name: 'shareable', value: ({ endpoint }) => endpoint.shareable, schema: { type: 'boolean', description: 'A share of it could be made now: a server or personal endpoint, managed (a personal one also without a subscription)' }, input: 'readOnly' },
  { name: 'subscription_admin_verified', value: ({ s }) => s.subscription_admin_verified, schema: { type: 'boolean', description: 'An administrator of its subscription verified it; cleared when the subscription changes' }, input: 'readOnly' },
  { name: 'non_functional', value: ({ endpoint }) => !endpoint.functional, schema: { type: 'boolean', description: 'A server endpoint without servers' }, input: 'readOnly' },
  { name: 'high_assurance', value: () => false, schema: { const: false }, input: 'readOnly' },
  { name: 'gcs_version', value: ({ s }) => (s.kind === 'gcs_endpoint' || s.collection !== null ? GCS_VERSION : null), schema: nullable('string'), input: 'readOnly' },
  { name: 'gcs_manager_url', value: ({ s }) => s.gcs_manager_url, schema: nullable('string'), input: 'readOnly' },
  { name: 'tlsftp_server', value: () => null, schema: { type: 'null' }, input: 'readOnly' },
];

/** The context of one endpoint's document. */
export function fieldContext(view: EndpointView, inUse = false): FieldContext {
  const { endpoint, host } = view;
  const s = endpoint.snapshot;
  const shared = s.kind === 'shared';
  const personal = s.kind === 'personal';
  return { view, endpoint, s, host, shared, personal, numbers: endpoint.networkSettings, serviceCredentials: shared || personal, inUse };
}
