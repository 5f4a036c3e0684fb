import {
  BadRequestError,
  DEFAULT_AUTHENTICATION_TIMEOUT_MINS,
  InvalidFieldError,
  POSIX_CONNECTOR_ID,
  type CollectionCreate,
  type CollectionInput,
  type Endpoint,
  type EndpointPatch,
  type ManagedRole,
  type RoleCreate,
  type StorageGatewayInput,
  type StorageGatewayState,
  type UserCredentialInput,
  type UserCredentialState,
} from '@xfer/core';

/**
 * GCS Manager documents: what a request body holds, read into core's typed inputs (each wrong
 * type a 422 naming its field; fields xfer does not keep are ignored, as clients send documents
 * back whole), and the documents answers carry.
 */

type Body = Record<string, unknown>;

function bodyOf(body: unknown, what: string): Body {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError(`The body is ${what} document (a JSON object)`);
  return body as Body;
}

/** `DATA_TYPE`, when sent, names this document at a version 1.x.y (`kinds`: its accepted names). */
function checkDataType(body: Body, kinds: readonly string[], field = 'DATA_TYPE'): void {
  const value = body.DATA_TYPE;
  if (value === undefined) return;
  if (typeof value !== 'string' || !kinds.some((kind) => new RegExp(`^${kind}#1\\.\\d+\\.\\d+$`).test(value))) throw new InvalidFieldError(field, `'${String(value).slice(0, 60)}' is not ${kinds.map((kind) => `${kind}#1.x.y`).join(' or ')}`);
}

const string = (body: Body, field: string, prefix = ''): string | undefined => {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidFieldError(`${prefix}${field}`, 'must be a string');
  return value;
};
const nullableString = (body: Body, field: string): string | null | undefined => (body[field] === null ? null : string(body, field));
const boolean = (body: Body, field: string): boolean | undefined => {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new InvalidFieldError(field, 'must be true or false');
  return value;
};
const strings = (body: Body, field: string, prefix = ''): string[] | undefined => {
  const value = body[field];
  if (value === undefined || value === null) return value === null ? [] : undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new InvalidFieldError(`${prefix}${field}`, 'must be a list of strings');
  return value as string[];
};
const object = (body: Body, field: string): Body | null | undefined => {
  const value = body[field];
  if (value === undefined || value === null) return value as null | undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new InvalidFieldError(field, 'must be an object');
  return value as Body;
};

/** Only GCS's POSIX connector is served. */
function checkConnector(body: Body): void {
  const connector = string(body, 'connector_id');
  if (connector !== undefined && connector.toLowerCase() !== POSIX_CONNECTOR_ID) throw new InvalidFieldError('connector_id', `only the POSIX connector (${POSIX_CONNECTOR_ID}) is served here`);
}

/** Keys of an object with their value sent (undefined dropped), typed as core takes them. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

// ---- the endpoint ----

/** What PATCH /endpoint may change, as the Transfer document's fields (keywords a list in GCS). */
export function endpointPatchOf(raw: unknown): EndpointPatch {
  const body = bodyOf(raw, 'an endpoint');
  checkDataType(body, ['endpoint']);
  const { DATA_TYPE: _type, id: _id, gcs_manager_url: _url, keywords: _keywords, ...fields } = body;
  const keywords = strings(body, 'keywords');
  return defined({ ...fields, keywords: keywords === undefined ? undefined : body.keywords === null ? null : keywords.join(',') }) as EndpointPatch;
}

/** What GCS's endpoint and collection documents both say of the Transfer document: who runs it and how to reach them. */
function describedBy(endpoint: Endpoint): object {
  const s = endpoint.snapshot;
  return {
    organization: s.organization,
    department: s.department,
    keywords: keywordList(s.keywords),
    description: s.description,
    contact_email: s.contact_email,
    contact_info: s.contact_info,
    info_link: s.info_link,
  };
}

export function endpointDocument(endpoint: Endpoint): object {
  const s = endpoint.snapshot;
  return {
    DATA_TYPE: 'endpoint#1.2.0',
    id: s.id,
    display_name: s.display_name,
    ...describedBy(endpoint),
    public: s.public,
    subscription_id: s.subscription_id,
    network_use: s.network_use,
    gcs_manager_url: s.gcs_manager_url,
    allow_udt: false,
    gridftp_control_channel_port: 443,
    earliest_last_access: null,
  };
}

const keywordList = (keywords: string | null): string[] | null => (keywords === null ? null : keywords.split(',').map((word) => word.trim()).filter(Boolean));

// ---- collections ----

function collectionSettingsOf(body: Body): CollectionInput {
  const keywords = strings(body, 'keywords');
  return defined({
    display_name: string(body, 'display_name'),
    organization: nullableString(body, 'organization'),
    department: nullableString(body, 'department'),
    keywords: keywords === undefined ? undefined : body.keywords === null || keywords.length === 0 ? null : keywords.join(','),
    description: nullableString(body, 'description'),
    contact_email: nullableString(body, 'contact_email'),
    contact_info: nullableString(body, 'contact_info'),
    info_link: nullableString(body, 'info_link'),
    default_directory: nullableString(body, 'default_directory'),
    public: boolean(body, 'public'),
    force_encryption: boolean(body, 'force_encryption'),
    allow_guest_collections: boolean(body, 'allow_guest_collections'),
    delete_protected: boolean(body, 'delete_protected'),
  });
}

export function collectionCreateOf(raw: unknown): CollectionCreate {
  const body = bodyOf(raw, 'a collection');
  checkDataType(body, ['collection']);
  checkConnector(body);
  const type = body.collection_type;
  if (type !== 'mapped' && type !== 'guest') throw new InvalidFieldError('collection_type', "must be 'mapped' or 'guest'");
  return defined({
    ...collectionSettingsOf(body),
    collection_type: type,
    storage_gateway_id: string(body, 'storage_gateway_id'),
    collection_base_path: string(body, 'collection_base_path'),
    mapped_collection_id: string(body, 'mapped_collection_id'),
    user_credential_id: string(body, 'user_credential_id'),
  });
}

/** A PATCH of a collection: its settings; what is fixed at creation may be sent back unchanged. */
export function collectionPatchOf(raw: unknown): CollectionInput & { fixed: Partial<Record<'collection_type' | 'storage_gateway_id' | 'collection_base_path' | 'mapped_collection_id' | 'user_credential_id', string>> } {
  const body = bodyOf(raw, 'a collection');
  checkDataType(body, ['collection']);
  const fixed = defined({
    collection_type: string(body, 'collection_type'),
    storage_gateway_id: string(body, 'storage_gateway_id'),
    collection_base_path: string(body, 'collection_base_path'),
    mapped_collection_id: string(body, 'mapped_collection_id'),
    user_credential_id: string(body, 'user_credential_id'),
  });
  return { ...collectionSettingsOf(body), fixed };
}

/** What a collection's document says of it, fixed at creation (compared with what a PATCH sends back). */
export function fixedFieldsOf(endpoint: Endpoint): Record<string, string | null> {
  const c = endpoint.collection!;
  const guest = endpoint.collectionType === 'guest';
  return {
    collection_type: endpoint.collectionType,
    storage_gateway_id: c.storage_gateway_id,
    collection_base_path: guest ? endpoint.snapshot.host_path : c.base_path,
    mapped_collection_id: guest ? endpoint.hostEndpointId : null,
    user_credential_id: c.user_credential_id,
  };
}

export function collectionDocument(endpoint: Endpoint): object {
  const s = endpoint.snapshot;
  const c = endpoint.collection!;
  const guest = endpoint.collectionType === 'guest';
  return {
    DATA_TYPE: 'collection#1.8.0',
    id: s.id,
    display_name: s.display_name,
    collection_type: endpoint.collectionType,
    storage_gateway_id: c.storage_gateway_id,
    collection_base_path: guest ? s.host_path : c.base_path,
    ...(guest ? { mapped_collection_id: s.host_endpoint_id, user_credential_id: c.user_credential_id } : { allow_guest_collections: c.allow_guest_collections }),
    identity_id: s.owner_id,
    connector_id: POSIX_CONNECTOR_ID,
    public: s.public,
    high_assurance: false,
    require_high_assurance: false,
    authentication_timeout_mins: DEFAULT_AUTHENTICATION_TIMEOUT_MINS,
    delete_protected: c.delete_protected,
    disable_anonymous_writes: false,
    force_encryption: s.force_encryption,
    enable_https: true,
    ...describedBy(endpoint),
    default_directory: s.default_directory,
    manager_url: s.gcs_manager_url,
    https_url: s.https_server,
    tlsftp_url: null,
    domain_name: s.gcs_manager_url === null ? null : new URL(s.gcs_manager_url).hostname,
  };
}

// ---- storage gateways ----

export function gatewayInputOf(raw: unknown): StorageGatewayInput {
  const body = bodyOf(raw, 'a storage gateway');
  checkDataType(body, ['storage_gateway', 'posix_storage_gateway']);
  checkConnector(body);
  if (body.high_assurance === true || body.require_high_assurance === true) throw new InvalidFieldError('high_assurance', 'high assurance storage gateways are not served here');
  const policies = object(body, 'policies');
  if (policies) checkDataType(policies, ['posix_storage_policies', 'posix_storage_gateway'], 'policies.DATA_TYPE');
  const timeout = body.authentication_timeout_mins;
  if (timeout !== undefined && typeof timeout !== 'number') throw new InvalidFieldError('authentication_timeout_mins', 'must be an integer');
  return defined({
    display_name: string(body, 'display_name'),
    root: string(body, 'root'),
    allowed_domains: strings(body, 'allowed_domains'),
    users_allow: strings(body, 'users_allow'),
    users_deny: strings(body, 'users_deny'),
    // the mapping and restriction documents: core checks them whole, naming the field
    identity_mappings: body.identity_mappings,
    restrict_paths: body.restrict_paths,
    authentication_timeout_mins: timeout as number | undefined,
    require_mfa: boolean(body, 'require_mfa'),
    policies: policies ? { groups_allow: strings(policies, 'groups_allow', 'policies.') ?? [], groups_deny: strings(policies, 'groups_deny', 'policies.') ?? [] } : undefined,
  });
}

export function gatewayDocument(gateway: StorageGatewayState): object {
  const s = gateway.settings;
  return {
    DATA_TYPE: 'storage_gateway#1.1.0',
    id: gateway.id,
    display_name: gateway.display_name,
    connector_id: POSIX_CONNECTOR_ID,
    root: gateway.root,
    high_assurance: false,
    require_high_assurance: false,
    require_mfa: s.require_mfa,
    authentication_timeout_mins: s.authentication_timeout_mins,
    authentication_assurance_timeout: s.authentication_timeout_mins,
    allowed_domains: s.allowed_domains,
    identity_mappings: s.identity_mappings,
    restrict_paths: s.restrict_paths,
    users_allow: s.users_allow,
    users_deny: s.users_deny,
    policies: { DATA_TYPE: 'posix_storage_gateway#1.0.0', groups_allow: s.policies.groups_allow, groups_deny: s.policies.groups_deny },
  };
}

// ---- roles ----

const PRINCIPAL = /^urn:globus:(auth:identity|groups:id):([0-9a-fA-F-]{36})$/;

export function roleCreateOf(raw: unknown): RoleCreate {
  const body = bodyOf(raw, 'a role');
  checkDataType(body, ['role']);
  const role = string(body, 'role');
  if (role === undefined) throw new InvalidFieldError('role', 'is required');
  const principal = PRINCIPAL.exec(string(body, 'principal') ?? '');
  if (!principal) throw new InvalidFieldError('principal', 'must be urn:globus:auth:identity:<id> or urn:globus:groups:id:<id>');
  const collection = body.collection;
  if (collection !== undefined && collection !== null && typeof collection !== 'string') throw new InvalidFieldError('collection', 'must be a collection id or null');
  return { role, principal_type: principal[1] === 'auth:identity' ? 'identity' : 'group', principal_id: principal[2], collection: (collection as string | null | undefined) ?? null };
}

/** A role assignment as GCS shows it (role#1.0.0): its principal a URN. */
export function roleDocument(role: ManagedRole): object {
  return {
    DATA_TYPE: 'role#1.0.0',
    id: role.id,
    role: role.role,
    collection: role.collection,
    principal: role.principal_type === 'identity' ? `urn:globus:auth:identity:${role.principal_id}` : `urn:globus:groups:id:${role.principal_id}`,
  };
}

// ---- user credentials ----

export function userCredentialInputOf(raw: unknown): UserCredentialInput {
  const body = bodyOf(raw, 'a user credential');
  checkDataType(body, ['user_credential']);
  checkConnector(body);
  const policies = object(body, 'policies');
  if (policies) checkDataType(policies, ['posix_user_credential_policies'], 'policies.DATA_TYPE');
  return defined({
    identity_id: string(body, 'identity_id'),
    storage_gateway_id: string(body, 'storage_gateway_id'),
    username: string(body, 'username'),
    display_name: nullableString(body, 'display_name'),
    policies: policies ?? undefined,
  });
}

export function userCredentialDocument(credential: UserCredentialState): object {
  return {
    DATA_TYPE: 'user_credential#1.0.0',
    id: credential.id,
    identity_id: credential.identity_id,
    connector_id: POSIX_CONNECTOR_ID,
    storage_gateway_id: credential.storage_gateway_id,
    username: credential.username,
    display_name: credential.display_name,
    policies: credential.policies,
    invalid: false,
    provisioned: true,
  };
}
