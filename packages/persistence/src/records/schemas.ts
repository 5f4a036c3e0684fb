import type {
  AccessRuleState,
  AccessTokenState,
  AuthorizationCodeState,
  ClientState,
  ConsentState,
  EndpointState,
  GroupState,
  IdentityState,
  PauseRuleState,
  TaskFileState,
  RefreshTokenState,
  RoleAssignmentState,
  ScopeState,
  SessionState,
  SigningKeyState,
  StorageGatewayState,
  SubscriptionState,
  UserCredentialState,
} from '@xfer/core';
import { EntitySchema, type EntitySchemaColumnOptions } from 'typeorm';
import { ENDPOINT_NAME_MAX } from '@xfer/core';

/**
 * Persistence records: plain rows, separate from the aggregates (TypeORM hydrates with `new Target()`).
 * Timestamps are ISO 8601 text and nested values JSON text, so one migration history serves both
 * SQLite and Postgres.
 */
const varchar = (length: number, nullable = false): EntitySchemaColumnOptions => ({ type: 'varchar', length, nullable });
const text = (nullable = true): EntitySchemaColumnOptions => ({ type: 'text', nullable });
const bool = (nullable = false): EntitySchemaColumnOptions => ({ type: 'boolean', nullable });
const int = (): EntitySchemaColumnOptions => ({ type: 'integer' });
const id = (length = 36): EntitySchemaColumnOptions => ({ type: 'varchar', length, primary: true });
const time = (nullable = false) => varchar(32, nullable);

/**
 * A domain state type as a row, so that a field is declared once, in core: Dates become ISO 8601
 * text and the fields named in `Text` text (JSON, or space separated for scope lists); string
 * unions are read back as plain strings.
 */
type RowOf<State, Text extends keyof State = never> = {
  [K in keyof State]-?: K extends Text
    ? string | (null extends State[K] ? null : never)
    : State[K] extends Date
      ? string
      : State[K] extends Date | null
        ? string | null
        : State[K] extends string
          ? string
          : State[K] extends string | null
            ? string | null
            : State[K];
};

export type IdentityRecord = RowOf<IdentityState>;
export const IdentitySchema = new EntitySchema<IdentityRecord>({
  name: 'identities',
  columns: {
    id: id(),
    username: varchar(255),
    name: varchar(256, true),
    email: varchar(254, true),
    organization: varchar(1024, true),
    identity_provider: varchar(36),
    identity_type: varchar(32),
    status: varchar(16),
    set_id: varchar(36),
    linked_at: time(true),
    created_at: time(),
    password_hash: varchar(255, true),
  },
});

export type GroupRecord = RowOf<GroupState>;
export const GroupSchema = new EntitySchema<GroupRecord>({
  name: 'groups',
  columns: { id: id(), name: varchar(128), created_at: time() },
});

export interface GroupMemberRecord {
  group_id: string;
  identity_id: string;
}
export const GroupMemberSchema = new EntitySchema<GroupMemberRecord>({
  name: 'group_members',
  columns: { group_id: id(), identity_id: id() },
});

/** `scopes` space separated, as on the wire (scope names hold no spaces). */
export type AccessTokenRecord = RowOf<AccessTokenState, 'scopes'>;
export const AccessTokenSchema = new EntitySchema<AccessTokenRecord>({
  name: 'access_tokens',
  columns: {
    token_hash: id(64),
    identity_id: varchar(36),
    created_at: time(),
    expires_at: time(true),
    revoked_at: time(true),
    client_id: varchar(36, true),
    scopes: text(false),
    resource_server: varchar(256),
    refresh_token_hash: varchar(64, true),
    consent_client_id: varchar(36, true),
  },
});

/** Members live in their own table. */
export type SubscriptionRecord = RowOf<Omit<SubscriptionState, 'member_ids' | 'administrator_ids'>>;
export const SubscriptionSchema = new EntitySchema<SubscriptionRecord>({
  name: 'subscriptions',
  columns: { id: id(), name: varchar(256), created_at: time() },
});

export interface SubscriptionMemberRecord {
  subscription_id: string;
  member_id: string;
}
export const SubscriptionMemberSchema = new EntitySchema<SubscriptionMemberRecord>({
  name: 'subscription_members',
  columns: { subscription_id: id(), member_id: id() },
});

export interface SubscriptionAdministratorRecord {
  subscription_id: string;
  principal_id: string;
}
export const SubscriptionAdministratorSchema = new EntitySchema<SubscriptionAdministratorRecord>({
  name: 'subscription_administrators',
  columns: { subscription_id: id(), principal_id: id() },
});

export type EndpointRecord = RowOf<EndpointState, 'custom_network' | 'servers' | 'storage' | 'collection'>;
export const EndpointSchema = new EntitySchema<EndpointRecord>({
  name: 'endpoints',
  columns: {
    id: id(),
    kind: varchar(16),
    version: int(),
    created_at: time(),
    display_name: varchar(ENDPOINT_NAME_MAX, true),
    organization: varchar(1024, true),
    department: varchar(1024, true),
    keywords: varchar(1024, true),
    name: varchar(ENDPOINT_NAME_MAX),
    canonical_name: varchar(400),
    owner_id: varchar(36),
    owner_string: varchar(255),
    description: text(),
    contact_email: varchar(254, true),
    contact_info: text(),
    info_link: text(),
    public: bool(),
    subscription_id: varchar(36, true),
    default_directory: text(),
    force_encryption: bool(),
    disable_verify: bool(),
    myproxy_server: varchar(255, true),
    myproxy_dn: varchar(1024, true),
    oauth_server: varchar(255, true),
    vendor_connect_setup_key: varchar(36, true),
    vcp_connected: bool(true),
    vcp_paused: bool(true),
    host_endpoint_id: varchar(36, true),
    host_path: text(),
    s3_url: text(),
    network_use: varchar(16, true),
    custom_network: text(),
    location: varchar(64, true),
    local_user_info_available: bool(true),
    subscription_admin_verified: bool(),
    https_server: text(),
    gcs_manager_url: text(),
    gcs_endpoint_id: varchar(36, true),
    collection: text(),
    servers: text(false),
    next_server_id: int(),
    storage: text(),
  },
});

export type StorageGatewayRecord = RowOf<StorageGatewayState, 'settings'>;
export const StorageGatewaySchema = new EntitySchema<StorageGatewayRecord>({
  name: 'storage_gateways',
  columns: { id: id(), node_id: varchar(36), display_name: varchar(128), root: text(false), settings: text(false), created_at: time() },
});

export type UserCredentialRecord = RowOf<UserCredentialState, 'policies'>;
export const UserCredentialSchema = new EntitySchema<UserCredentialRecord>({
  name: 'user_credentials',
  columns: { id: id(), node_id: varchar(36), storage_gateway_id: varchar(36), identity_id: varchar(36), username: varchar(64), display_name: varchar(128, true), policies: text(false), created_at: time() },
});

export interface TombstoneRecord {
  id: string;
  canonical_name: string;
  owner_id: string;
  deleted_at: string;
}
export const TombstoneSchema = new EntitySchema<TombstoneRecord>({
  name: 'endpoint_tombstones',
  columns: { id: id(), canonical_name: varchar(400), owner_id: varchar(36), deleted_at: time() },
});

export type RoleAssignmentRecord = RowOf<RoleAssignmentState> & {
  /** The host when the endpoint is a share (copied at insert: a share's host never changes). */
  host_endpoint_id: string | null;
};
export const RoleAssignmentSchema = new EntitySchema<RoleAssignmentRecord>({
  name: 'role_assignments',
  columns: {
    id: id(),
    endpoint_id: varchar(36),
    role: varchar(32),
    principal_type: varchar(16),
    principal_id: varchar(36),
    created_at: time(),
    host_endpoint_id: varchar(36, true),
  },
});

export type PauseRuleRecord = RowOf<PauseRuleState>;
export const PauseRuleSchema = new EntitySchema<PauseRuleRecord>({
  name: 'pause_rules',
  columns: {
    id: id(),
    endpoint_id: varchar(36),
    message: text(false),
    start_time: time(true),
    identity_id: varchar(36, true),
    pause_ls: bool(),
    pause_mkdir: bool(),
    pause_rename: bool(),
    pause_task_delete: bool(),
    pause_task_transfer_write: bool(),
    pause_task_transfer_read: bool(),
    modified_by: varchar(255),
    modified_by_id: varchar(36),
    created_by_host_manager: bool(),
  },
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of schemas of different records
export const ALL_SCHEMAS: EntitySchema<any>[] = [
  IdentitySchema,
  GroupSchema,
  GroupMemberSchema,
  AccessTokenSchema,
  SubscriptionSchema,
  SubscriptionMemberSchema,
  SubscriptionAdministratorSchema,
  EndpointSchema,
  TombstoneSchema,
  RoleAssignmentSchema,
  PauseRuleSchema,
];

export type ClientRecord = RowOf<ClientState, 'branding' | 'redirect_uris'>;
export const ClientSchema = new EntitySchema<ClientRecord>({
  name: 'clients',
  columns: {
    id: id(),
    display_name: varchar(128),
    branding: text(false),
    redirect_uris: text(false),
    public_client: bool(),
    secret_hash: varchar(64, true),
    resource_server: varchar(256, true),
    template_id: varchar(36, true),
    created_at: time(),
  },
});

export type ScopeRecord = RowOf<ScopeState, 'dependent_scope_ids'>;
export const ScopeSchema = new EntitySchema<ScopeRecord>({
  name: 'scopes',
  columns: { id: id(), name: varchar(512), description: varchar(1024), resource_server: varchar(256), dependent_scope_ids: text(false), created_at: time() },
});

export type ConsentRecord = RowOf<ConsentState, 'dependency_path'>;
export const ConsentSchema = new EntitySchema<ConsentRecord>({
  name: 'consents',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment' },
    client_id: varchar(36),
    scope_id: varchar(36),
    identity_id: varchar(36),
    dependency_path: text(false),
    created: time(),
    updated: time(),
    last_used: time(true),
    status: varchar(16),
  },
});

export type SessionRecord = RowOf<SessionState>;
export const SessionSchema = new EntitySchema<SessionRecord>({
  name: 'sessions',
  columns: { id_hash: id(64), identity_id: varchar(36), created_at: time(), expires_at: time() },
});

export type AuthorizationCodeRecord = RowOf<AuthorizationCodeState, 'scopes'>;
export const AuthorizationCodeSchema = new EntitySchema<AuthorizationCodeRecord>({
  name: 'authorization_codes',
  columns: {
    code_hash: id(64),
    client_id: varchar(36),
    identity_id: varchar(36),
    redirect_uri: varchar(2048),
    scopes: text(false),
    code_challenge: varchar(128, true),
    code_challenge_method: varchar(16, true),
    nonce: varchar(512, true),
    auth_time: time(true),
    created_at: time(),
    expires_at: time(),
    used_at: time(true),
  },
});

export type RefreshTokenRecord = RowOf<RefreshTokenState, 'scopes'>;
export const RefreshTokenSchema = new EntitySchema<RefreshTokenRecord>({
  name: 'refresh_tokens',
  columns: {
    token_hash: id(64),
    identity_id: varchar(36),
    client_id: varchar(36),
    scopes: text(false),
    resource_server: varchar(256),
    authorization_code_hash: varchar(64, true),
    auth_time: time(true),
    consent_client_id: varchar(36, true),
    created_at: time(),
    revoked_at: time(true),
  },
});

ALL_SCHEMAS.push(ClientSchema, ScopeSchema, ConsentSchema, SessionSchema, AuthorizationCodeSchema, RefreshTokenSchema);

export interface SettingRecord {
  key: string;
  value: string;
}
export const SettingSchema = new EntitySchema<SettingRecord>({
  name: 'settings',
  columns: { key: id(64), value: text(false) },
});

ALL_SCHEMAS.push(SettingSchema);

/** One failed sign-in under one hashed key (an account or an address). */
export interface SignInFailureRecord {
  id: number;
  key_hash: string;
  at: string;
}
export const SignInFailureSchema = new EntitySchema<SignInFailureRecord>({
  name: 'sign_in_failures',
  columns: { id: { type: 'integer', primary: true, generated: 'increment' }, key_hash: varchar(64), at: time() },
});

ALL_SCHEMAS.push(SignInFailureSchema);

export type SigningKeyRecord = RowOf<SigningKeyState, 'public_jwk'>;
export const SigningKeySchema = new EntitySchema<SigningKeyRecord>({
  name: 'signing_keys',
  columns: { kid: id(64), algorithm: varchar(16), public_jwk: text(false), private_key: text(false), created_at: time(), retired_at: time(true) },
});

ALL_SCHEMAS.push(SigningKeySchema);

export type AccessRuleRecord = RowOf<AccessRuleState>;
export const AccessRuleSchema = new EntitySchema<AccessRuleRecord>({
  name: 'access_rules',
  columns: {
    id: id(),
    endpoint_id: varchar(36),
    principal_type: varchar(32),
    principal: varchar(36),
    path: text(false),
    permissions: varchar(2),
    notify_email: varchar(254, true),
    notify_message: text(),
    create_time: time(),
    expiration_date: time(true),
  },
});

ALL_SCHEMAS.push(AccessRuleSchema);

/** A task as a row: what was asked and its counters as JSON, the rest as columns to filter on. */
export interface TaskRecord {
  id: string;
  owner_id: string;
  submission_id: string;
  type: string;
  status: string;
  nice_status: string | null;
  label: string | null;
  source_endpoint_id: string;
  destination_endpoint_id: string;
  request: string;
  source_display_name: string | null;
  destination_display_name: string | null;
  source_local_user: string | null;
  destination_local_user: string | null;
  fatal_error: string | null;
  request_time: string;
  completion_time: string | null;
  deadline: string;
  counters: string;
  canceled_by_admin: string | null;
  canceled_by_admin_message: string | null;
  is_paused: boolean;
}
export const TaskSchema = new EntitySchema<TaskRecord>({
  name: 'tasks',
  columns: {
    id: id(),
    owner_id: varchar(36),
    submission_id: varchar(36),
    type: varchar(16),
    status: varchar(16),
    nice_status: varchar(64, true),
    label: varchar(512, true),
    source_endpoint_id: varchar(36),
    destination_endpoint_id: varchar(36),
    request: text(false),
    source_display_name: varchar(128, true),
    destination_display_name: varchar(128, true),
    source_local_user: varchar(64, true),
    destination_local_user: varchar(64, true),
    fatal_error: text(),
    request_time: time(),
    completion_time: time(true),
    deadline: time(),
    counters: text(false),
    canceled_by_admin: varchar(16, true),
    canceled_by_admin_message: text(),
    is_paused: bool(),
  },
});

/** A task event's row: its columns keep the names they were made with. */
export interface TaskEventRecord {
  task_id: string;
  seq: number;
  code: string;
  description: string;
  details: string;
  is_error: boolean;
  time: string;
}
export const TaskEventSchema = new EntitySchema<TaskEventRecord>({
  name: 'task_events',
  columns: {
    task_id: { ...varchar(36), primary: true },
    seq: { ...int(), primary: true },
    code: varchar(64),
    description: text(false),
    details: text(false),
    is_error: bool(),
    time: time(),
  },
});

/** A row of a task's file lists: its columns keep the names they were made with. */
export interface TaskFileRecord {
  task_id: string;
  kind: TaskFileState['kind'];
  seq: number;
  source_path: string | null;
  destination_path: string | null;
  error_code: string | null;
  error_details: string | null;
  is_directory: boolean;
  time: string;
}
export const TaskFileSchema = new EntitySchema<TaskFileRecord>({
  name: 'task_files',
  columns: {
    task_id: { ...varchar(36), primary: true },
    kind: { ...varchar(16), primary: true },
    seq: { ...int(), primary: true },
    source_path: text(),
    destination_path: text(),
    error_code: varchar(64, true),
    error_details: text(),
    is_directory: bool(),
    time: time(),
  },
});

ALL_SCHEMAS.push(TaskSchema, TaskEventSchema, TaskFileSchema);

/** A data node's row: its name twice, as given and as compared (lower case, unique). */
export interface NodeRecord {
  id: string;
  name: string;
  name_key: string;
  url: string;
  secret_hash: string;
  created_at: string;
  last_contact: string | null;
}
export const NodeSchema = new EntitySchema<NodeRecord>({
  name: 'nodes',
  columns: {
    id: id(),
    name: varchar(63),
    name_key: varchar(63),
    url: varchar(512),
    secret_hash: varchar(64),
    created_at: time(),
    last_contact: time(true),
  },
});
ALL_SCHEMAS.push(NodeSchema);

export interface NodeCallKeyRecord {
  kid: string;
  public_jwk: string;
  renewed_at: string;
}
export const NodeCallKeySchema = new EntitySchema<NodeCallKeyRecord>({
  name: 'node_call_keys',
  columns: {
    kid: { type: 'varchar', length: 64, primary: true },
    public_jwk: varchar(1024),
    renewed_at: time(),
  },
});
ALL_SCHEMAS.push(NodeCallKeySchema);
ALL_SCHEMAS.push(StorageGatewaySchema, UserCredentialSchema);
