import type { IdentityState } from '../auth/Identity';
import { shortUsername } from '../auth/Identity';
import { BadRequestError, ConflictError, InvalidFieldError, LimitExceededError, PermissionDeniedError, ServerNotFoundError } from '../shared/errors';
import { checkNodeDirectory, directoryWithin } from '../gcs/StorageGateway';
import { checkEmail, checkHttpUrl, checkText, hasAnyControlCharacter, jsonEqual, parseHttpUrl, type TextRule } from '../shared/text';
import { checkLocation } from './location';
import type { StorageAttachment } from '../storage/Storage';
import {
  checkCustomSettings,
  checkNetworkUse,
  effectiveNetworkSettings,
  NETWORK_NUMBERS,
  NETWORK_PRESETS,
  type NetworkNumber,
  type NetworkSettings,
  type NetworkUse,
} from './network';
import {
  newServer,
  updatedServer,
  virtualServer,
  type EndpointServer,
  type ServerInput,
  type ServerPatch,
  type ServerState,
} from './Server';

/**
 * The kinds of endpoint: the spec's four, and a data node as a Globus Connect Server endpoint
 * (`gcs_endpoint`: its Transfer document, administered through its GCS Manager API, no files of
 * its own; its collections are the endpoints bound to its directories).
 */
export type EndpointKind = 'server' | 'personal' | 'shared' | 'object_store' | 'gcs_endpoint';

/** The stored state of an endpoint; field names are the spec's. */
export interface EndpointState {
  id: string;
  kind: EndpointKind;
  /** Bumped on every write: optimistic concurrency between writers. */
  version: number;
  created_at: Date;
  display_name: string | null;
  organization: string | null;
  department: string | null;
  keywords: string | null;
  name: string;
  canonical_name: string;
  owner_id: string;
  owner_string: string;
  description: string | null;
  contact_email: string | null;
  contact_info: string | null;
  info_link: string | null;
  public: boolean;
  subscription_id: string | null;
  default_directory: string | null;
  force_encryption: boolean;
  disable_verify: boolean;
  myproxy_server: string | null;
  myproxy_dn: string | null;
  oauth_server: string | null;
  vendor_connect_setup_key: string | null;
  vcp_connected: boolean | null;
  vcp_paused: boolean | null;
  host_endpoint_id: string | null;
  host_path: string | null;
  s3_url: string | null;
  network_use: NetworkUse | null;
  /** The four numbers, stored only while network_use is `custom`. */
  custom_network: NetworkSettings | null;
  location: string | null;
  local_user_info_available: boolean | null;
  /** An administrator of the endpoint's subscription verified it (the hosted subscription_admin_verified); cleared with the subscription. */
  subscription_admin_verified: boolean;
  https_server: string | null;
  /** The Manager of a Globus Connect Server endpoint or of a collection's (its node's URL); null for every other endpoint. */
  gcs_manager_url: string | null;
  /** The GCS endpoint (its node) a mapped or guest collection belongs to; null for every other endpoint. */
  gcs_endpoint_id: string | null;
  /** What makes the endpoint a GCS collection of its node: mapped (bound to a node's directory) or guest (a share of one). */
  collection: CollectionSettings | null;
  servers: ServerState[];
  next_server_id: number;
  /** The storage behind a server or personal endpoint (its shares see it from their host_path); null: none. */
  storage: StorageAttachment | null;
}

/** A GCS collection's own settings (its Transfer document is the rest of the endpoint). */
export interface CollectionSettings {
  storage_gateway_id: string;
  /** A mapped collection's directory within its gateway's root (`/`: the root); a guest's path is its host_path. */
  base_path: string;
  /** Whether guest collections may be made on it (a mapped collection's; GCS's default false). */
  allow_guest_collections: boolean;
  /** Whether deleting it is refused until this is cleared (GCS's default true on creation). */
  delete_protected: boolean;
  /** The user credential a guest collection acts with; null for a mapped collection. */
  user_credential_id: string | null;
}

/** What a GCS collection's creation or update sets beside its Transfer settings. */
export interface CollectionInput extends Pick<EndpointSettings, 'display_name' | 'organization' | 'department' | 'keywords' | 'description' | 'contact_email' | 'contact_info' | 'info_link' | 'public' | 'force_encryption' | 'default_directory'> {
  allow_guest_collections?: boolean;
  delete_protected?: boolean;
}

/** The Transfer settings a GCS collection's document carries (the rest are GCS's own). */
export const COLLECTION_SETTINGS: readonly (keyof EndpointSettings)[] = ['display_name', 'organization', 'department', 'keywords', 'description', 'contact_email', 'contact_info', 'info_link', 'public', 'force_encryption', 'default_directory'];

/**
 * What a client may set on an endpoint, typed. Which of these a kind takes, and what each value
 * may be, are this aggregate's rules.
 */
export interface EndpointSettings {
  display_name?: string | null;
  organization?: string | null;
  department?: string | null;
  keywords?: string | null;
  description?: string | null;
  contact_email?: string | null;
  contact_info?: string | null;
  info_link?: string | null;
  default_directory?: string | null;
  force_encryption?: boolean;
  disable_verify?: boolean;
  public?: boolean;
  myproxy_server?: string | null;
  myproxy_dn?: string | null;
  oauth_server?: string | null;
  location?: string | null;
  https_server?: string | null;
  /** A subscription id, DEFAULT or null, as asked; the service resolves it. */
  subscription_id?: string | null;
  network_use?: string | null;
  max_concurrency?: number | null;
  preferred_concurrency?: number | null;
  max_parallelism?: number | null;
  preferred_parallelism?: number | null;
}

/** Every key of EndpointSettings: what the edge hands over, in this order of checks. */
export const ENDPOINT_SETTINGS: readonly (keyof EndpointSettings)[] = [
  'display_name', 'organization', 'department', 'keywords', 'description', 'contact_email', 'contact_info',
  'info_link', 'default_directory', 'force_encryption', 'disable_verify', 'public', 'myproxy_server', 'myproxy_dn',
  'oauth_server', 'location', 'https_server', 'subscription_id', 'network_use', 'max_concurrency',
  'preferred_concurrency', 'max_parallelism', 'preferred_parallelism',
];

/** A new server or personal-client endpoint. */
export interface CreateEndpoint extends EndpointSettings {
  /** A personal-client endpoint (one virtual server) rather than a server endpoint. */
  personal?: boolean;
  /** The legacy name, the part of the canonical name after `#`; null when asked for without a value. */
  name?: string | null;
  servers?: ServerInput[];
}

/** A new shared endpoint on the host `host_endpoint_id`. */
export interface CreateSharedEndpoint extends EndpointSettings {
  host_endpoint_id: string;
  host_path?: string | null;
}

/** A change to an endpoint: settings, and the owner (one of the caller's identities). */
export interface EndpointPatch extends EndpointSettings {
  owner_string?: string | null;
}

export interface Tombstone {
  id: string;
  canonical_name: string;
  owner_id: string;
  deleted_at: Date;
}

/** Servers one endpoint may hold: enough for any real site, and bounds every document's size. */
export const MAX_SERVERS = 100;

/** The longest display name and legacy name (spec section 8): one number for the rule, the wire's schema and the column. */
export const ENDPOINT_NAME_MAX = 128;
const DISPLAY_NAME_RULE: TextRule = { max: ENDPOINT_NAME_MAX, singleLine: true };
const SINGLE_LINE_1024: TextRule = { max: 1024, singleLine: true };

type Normalizer<T> = (field: string, value: T) => T;

const text =
  (rule: TextRule, emptyIsNull = false): Normalizer<string | null> =>
  (field, value) => {
    if (value === null || (emptyIsNull && value === '')) return null;
    return checkText(field, value, rule);
  };
const nullable =
  (check: (field: string, value: string) => string): Normalizer<string | null> =>
  (field, value) => (value === null || value === '' ? null : check(field, value));
const asIs: Normalizer<boolean> = (_field, value) => value;
const hostAndPort = (field: string, value: string): string => {
  // 255: the column's length, a hostname of 253 with a short port
  if (value.length > 255 || !/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::\d{1,5})?$/.test(value)) {
    throw new BadRequestError(`Invalid ${field}: '${value}' is not a hostname[:port]`);
  }
  return value;
};
const httpsServer = (field: string, value: string): string => {
  // the URL parser drops surrounding spaces; the stored value must not have them either
  const url = value.trim() === value ? parseHttpUrl(value) : null;
  const bare = url && url.protocol === 'https:' && url.hostname && !url.username && !url.password;
  // Stryker disable next-line Regex: the value starts with its scheme (no spaces before it), so the anchor changes nothing
  if (!bare || url.pathname !== '/' || url.search || url.hash || /[?#]/.test(value) || /^https:\/\/[^/]+\/./.test(value)) {
    throw new BadRequestError(`Invalid ${field}: must be an https://host[:port] URL without path, query or fragment`);
  }
  return value;
};

/** Settings whose value is stored as given, once checked. */
const SIMPLE_FIELDS = {
  display_name: text(DISPLAY_NAME_RULE),
  organization: text(SINGLE_LINE_1024),
  department: text(SINGLE_LINE_1024),
  keywords: text({ max: 1024 }),
  description: text({ max: 4096 }),
  contact_email: nullable(checkEmail),
  contact_info: text({ max: 4096 }),
  info_link: nullable((f, v) => checkHttpUrl(f, v)),
  default_directory: text({ max: 4096, singleLine: true }, true),
  force_encryption: asIs,
  disable_verify: asIs,
  public: asIs,
  myproxy_server: nullable(hostAndPort),
  myproxy_dn: text({ max: 1024, singleLine: true }, true),
  oauth_server: nullable(hostAndPort),
  location: (field: string, value: string | null) => {
    if (value === null) throw new BadRequestError(`Invalid ${field}: must be 'Automatic' or 'LAT,LON'`);
    return checkLocation(value);
  },
  https_server: nullable(httpsServer),
} satisfies { [K in keyof EndpointSettings]?: Normalizer<Exclude<EndpointSettings[K], undefined>> };
type SimpleField = keyof typeof SIMPLE_FIELDS;

type SettableField = keyof EndpointPatch;

const COMMON_UPDATABLE: readonly SettableField[] = [
  'display_name',
  'organization',
  'department',
  'keywords',
  'description',
  'contact_email',
  'contact_info',
  'info_link',
  'owner_string',
  'default_directory',
  'force_encryption',
  'disable_verify',
];
const NETWORK_FIELDS = ['network_use', ...NETWORK_NUMBERS] as const;

/** Fields an update may change, per kind (the spec leaves the list open; compat-notes and the hosted service decide). */
export const UPDATABLE_FIELDS: Record<EndpointKind, ReadonlySet<string>> = {
  server: new Set([
    ...COMMON_UPDATABLE,
    'public',
    'subscription_id',
    'myproxy_server',
    'myproxy_dn',
    'oauth_server',
    ...NETWORK_FIELDS,
    'location',
    'https_server',
  ]),
  personal: new Set([...COMMON_UPDATABLE, 'public', 'subscription_id', ...NETWORK_FIELDS, 'location']),
  object_store: new Set([...COMMON_UPDATABLE, 'public', 'subscription_id']),
  shared: new Set(COMMON_UPDATABLE),
  // what the GCS Manager's PATCH /endpoint changes (its owner is its node)
  gcs_endpoint: new Set(['display_name', 'organization', 'department', 'keywords', 'description', 'contact_email', 'contact_info', 'info_link', 'public', 'network_use']),
};

/** What a GCS collection's Manager changes of its Transfer settings. */
const COLLECTION_UPDATABLE: ReadonlySet<string> = new Set(COLLECTION_SETTINGS);

/** What a create may set: what an update may change, but the owner, who is the caller. */
const CREATABLE_FIELDS: Record<EndpointKind, ReadonlySet<string>> = {
  server: without(UPDATABLE_FIELDS.server, 'owner_string'),
  personal: without(UPDATABLE_FIELDS.personal, 'owner_string'),
  object_store: without(UPDATABLE_FIELDS.object_store, 'owner_string'),
  shared: new Set([...without(UPDATABLE_FIELDS.shared, 'owner_string'), 'public']),
  // made with its node (Endpoint.forNode), never through the Transfer API
  gcs_endpoint: new Set(),
};

/** Settings a shared endpoint always has null: asking for null on create is harmless. */
const NULL_ON_SHARES = new Set<string>([
  'myproxy_server',
  'myproxy_dn',
  'oauth_server',
  'subscription_id',
  'location',
  'https_server',
  ...NETWORK_FIELDS,
]);

const LEGACY_NAME = new RegExp(`^[A-Za-z0-9_.-]{1,${ENDPOINT_NAME_MAX}}$`);

/** A legacy endpoint name: the part of a canonical name after `#`. */
export function checkLegacyName(field: string, value: string): string {
  if (!LEGACY_NAME.test(value)) {
    throw new BadRequestError(`Invalid ${field}: 1 to ${ENDPOINT_NAME_MAX} letters, digits, '_', '-' or '.'`);
  }
  return value;
}

const KIND_WORDS: Record<EndpointKind, string> = {
  server: 'a server endpoint',
  personal: 'a personal-client endpoint',
  shared: 'a shared endpoint',
  object_store: 'an object-store endpoint',
  gcs_endpoint: 'a Globus Connect Server endpoint',
};

/** The one wording of "this kind of endpoint does not take that field". */
export function fieldCannotBeSet(field: string, kind: EndpointKind, when: 'create' | 'update'): BadRequestError {
  const reason = when === 'create' ? `cannot be set when creating ${KIND_WORDS[kind]}` : `cannot be changed on ${KIND_WORDS[kind]}`;
  return new InvalidFieldError(field, reason, 'BadRequest', (name) => `Field '${name}' ${reason}`);
}

export interface CreateContext {
  id: string;
  owner: IdentityState;
  now: Date;
  /** The resolved subscription when the command names one (DEFAULT already resolved). */
  subscriptionId: string | null;
  /** Fresh single-use key for a personal-client endpoint. */
  setupKey: string;
}

export interface CreateSharedContext {
  id: string;
  owner: IdentityState;
  now: Date;
  host: Endpoint;
  callerIsHostAdministrator: boolean;
  /** A guest collection made through its node's Manager: its user credential and its delete protection. */
  guest?: Pick<CollectionSettings, 'user_credential_id' | 'delete_protected'>;
}

export interface UpdateContext {
  /** The resolved subscription, when the patch changes subscription_id. */
  subscriptionId?: string | null;
}

export class Endpoint {
  private constructor(private state: EndpointState) {}

  static fromPrimitives(state: EndpointState): Endpoint {
    return new Endpoint(structuredClone(state));
  }

  /** For adapters that build a fresh state object per read: takes it over without a copy. */
  static adopt(state: EndpointState): Endpoint {
    return new Endpoint(state);
  }

  toPrimitives(): EndpointState {
    return structuredClone(this.state);
  }

  get id(): string {
    return this.state.id;
  }
  get kind(): EndpointKind {
    return this.state.kind;
  }
  get version(): number {
    return this.state.version;
  }
  get ownerId(): string {
    return this.state.owner_id;
  }
  get isPublic(): boolean {
    return this.state.public;
  }
  get displayName(): string | null {
    return this.state.display_name;
  }
  get canonicalName(): string {
    return this.state.canonical_name;
  }
  get subscriptionId(): string | null {
    return this.state.subscription_id;
  }
  get hostEndpointId(): string | null {
    return this.state.host_endpoint_id;
  }
  get setupKey(): string | null {
    return this.state.vendor_connect_setup_key;
  }
  /** Server and personal-client endpoints can host shares; shares and object stores cannot. */
  get canHostShares(): boolean {
    return this.state.kind === 'server' || this.state.kind === 'personal';
  }
  /** Whether a share of it could be made now (the hosted `shareable`): it can host shares, and is managed or a personal client (a mapped collection: it allows guest collections). */
  get shareable(): boolean {
    if (this.state.collection !== null) return this.collectionType === 'mapped' && this.state.collection.allow_guest_collections;
    return this.canHostShares && (this.state.subscription_id !== null || this.state.kind === 'personal');
  }
  /**
   * Marks the endpoint verified (or not) by its subscription's administrators: `true` only by one
   * of them (`bySubscriptionAdministrator`), `false` also by the endpoint's own administrators
   * (checked by the use case); an endpoint without a subscription has nothing to verify.
   */
  setSubscriptionAdminVerified(verified: boolean, by: { subscriptionAdministrator: boolean; endpointAdministrator: boolean }): void {
    if (this.state.subscription_id === null) throw new BadRequestError(`Endpoint '${this.id}' has no subscription: there is nothing to verify`);
    if (verified ? !by.subscriptionAdministrator : !by.subscriptionAdministrator && !by.endpointAdministrator) {
      throw new PermissionDeniedError(
        verified
          ? `Only an administrator of subscription '${this.state.subscription_id}' may verify endpoint '${this.id}'`
          : `You need the 'administrator' role on endpoint '${this.id}' or on its subscription to clear its verification`,
      );
    }
    this.state.subscription_admin_verified = verified;
  }

  /**
   * A server endpoint without servers cannot function (catalogue features 1), nor a GCS endpoint
   * (its collections move files); every other endpoint can, a GCS collection (its node moves its files) too.
   */
  get functional(): boolean {
    if (this.state.kind === 'gcs_endpoint') return false;
    return this.state.kind !== 'server' || this.state.servers.length > 0 || this.state.collection !== null;
  }

  /** A GCS collection's type: a mapped collection (bound to a node's directory) or a guest collection (a share of one); null for any other endpoint. */
  get collectionType(): 'mapped' | 'guest' | null {
    if (this.state.collection === null) return null;
    return this.state.kind === 'shared' ? 'guest' : 'mapped';
  }

  /**
   * Who its documents name as owner, and its canonical name: a GCS collection's owner is its GCS
   * endpoint (its node, a client of its own: `<node id>@clients.auth.globus.org`), as the hosted
   * service shows them; its creator, who administers it, is its Manager's `identity_id`.
   */
  get shown(): { ownerId: string; ownerString: string; canonicalName: string } {
    const gcs = this.state.gcs_endpoint_id;
    if (gcs === null) return { ownerId: this.state.owner_id, ownerString: this.state.owner_string, canonicalName: this.state.canonical_name };
    return { ownerId: gcs, ownerString: `${gcs}@clients.auth.globus.org`, canonicalName: `${gcs}#${this.state.id}` };
  }

  /**
   * The patch without the owner a client read and sent back: a GCS collection's owner, as shown,
   * is accepted unchanged and changes only through its Manager (any other is refused).
   */
  withoutShownOwner(patch: EndpointPatch): EndpointPatch {
    if (this.state.collection === null || patch.owner_string === undefined) return patch;
    const { owner_string: owner, ...rest } = patch;
    if (owner !== this.shown.ownerString) throw fieldCannotBeSet('owner_string', this.state.kind, 'update');
    return rest;
  }

  /** A GCS collection's own settings; null for any other endpoint. */
  get collection(): Readonly<CollectionSettings> | null {
    return this.state.collection;
  }

  /**
   * A mapped collection made through a node's Manager: a server endpoint bound to `basePath`
   * within the gateway's root, public unless asked otherwise, delete protected unless asked
   * otherwise, allowing no guest collections unless asked (GCS's defaults); the caller owns it.
   */
  static createMappedCollection(input: CollectionInput, ctx: { id: string; owner: IdentityState; now: Date; node: { id: string; url: string }; gateway: { id: string; root: string }; basePath: string }): Endpoint {
    if (input.display_name == null) throw new InvalidFieldError('display_name', 'is required');
    const endpoint = new Endpoint({ ...emptyState(ctx.id, 'server', ctx.now, ctx.owner), canonical_name: `${ctx.node.id}#${ctx.id}`, public: true, network_use: 'normal', location: 'Automatic' });
    endpoint.applySimpleFields(input, COLLECTION_UPDATABLE);
    endpoint.bindToGateway(ctx.node, ctx.gateway, ctx.basePath, { allow_guest_collections: input.allow_guest_collections ?? false, delete_protected: input.delete_protected ?? true });
    return endpoint;
  }

  /**
   * Binds a server or personal endpoint's storage to `basePath` within a storage gateway of a node
   * (`/`: the gateway's root): it is a mapped collection of the node's GCS endpoint from then on.
   */
  bindToGateway(node: { id: string; url: string }, gateway: { id: string; root: string }, basePath: string, flags: Pick<CollectionSettings, 'allow_guest_collections' | 'delete_protected'>): void {
    const base = checkNodeDirectory('collection_base_path', basePath);
    this.attachStorage({ type: 'node', node: node.id, root: directoryWithin(gateway.root, base) }, node.url);
    this.state.gcs_endpoint_id = node.id;
    this.state.gcs_manager_url = node.url;
    this.state.collection = { storage_gateway_id: gateway.id, base_path: base, ...flags, user_credential_id: null };
  }

  /** A GCS collection's settings through its Manager: its Transfer settings and its own. */
  updateCollection(input: CollectionInput): void {
    const collection = this.state.collection;
    if (collection === null) throw new Error('only a GCS collection is updated as one');
    if (input.allow_guest_collections !== undefined && input.allow_guest_collections !== collection.allow_guest_collections && this.collectionType === 'guest') {
      throw new InvalidFieldError('allow_guest_collections', 'applies to mapped collections only');
    }
    if (input.display_name === null) throw new InvalidFieldError('display_name', 'is required');
    this.applySimpleFields(input, COLLECTION_UPDATABLE);
    if (input.allow_guest_collections !== undefined && this.collectionType === 'mapped') collection.allow_guest_collections = input.allow_guest_collections;
    if (input.delete_protected !== undefined) collection.delete_protected = input.delete_protected;
  }

  /** Refuses to delete a delete-protected collection, by any route (GCS's delete_protected), and a node's GCS endpoint, which goes with its node. */
  assertDeletable(): void {
    if (this.state.kind === 'gcs_endpoint') throw new ConflictError(`Endpoint '${this.state.id}' is a data node's Globus Connect Server endpoint: it goes when its node is removed (xfer node remove)`);
    if (this.state.collection?.delete_protected) throw new ConflictError(`Collection '${this.state.id}' is delete protected: set delete_protected to false first`);
  }

  /**
   * A data node as a Globus Connect Server endpoint: its id and owner the node's (GCS's endpoint
   * owns itself, as its client), its Manager the node's URL, public; no servers, no files.
   */
  static forNode(node: { id: string; name: string; url: string }, now: Date): Endpoint {
    const self = `${node.id}@clients.auth.globus.org`;
    return new Endpoint({
      ...emptyState(node.id, 'gcs_endpoint', now, { id: node.id, username: self } as IdentityState),
      display_name: node.name,
      canonical_name: `${node.id}#${node.id}`,
      public: true,
      network_use: 'normal',
      gcs_manager_url: node.url,
    });
  }

  /** Creates a server or personal-client endpoint; the owner is the caller's primary identity. */
  static create(command: CreateEndpoint, ctx: CreateContext): Endpoint {
    const { personal, name: legacyName, servers, ...settings } = command;
    const kind: EndpointKind = personal === true ? 'personal' : 'server';
    assertSettable(settings, kind);
    if (servers !== undefined && kind !== 'server') throw fieldCannotBeSet('servers', kind, 'create');
    const user = shortUsername(ctx.owner.username);
    const name = legacyName == null ? ctx.id : checkLegacyName('name', legacyName);
    if (settings.display_name == null && legacyName === undefined) {
      throw new BadRequestError("Field 'display_name' is required (or the deprecated 'canonical_name')");
    }
    const endpoint = new Endpoint({
      ...emptyState(ctx.id, kind, ctx.now, ctx.owner),
      name,
      canonical_name: `${user}#${name}`,
      network_use: 'normal',
      location: 'Automatic',
      vendor_connect_setup_key: kind === 'personal' ? ctx.setupKey : null,
      vcp_connected: kind === 'personal' ? false : null,
      vcp_paused: kind === 'personal' ? false : null,
    });
    endpoint.applySimpleFields(settings, UPDATABLE_FIELDS[kind]);
    // Stryker disable next-line ConditionalExpression: without subscription_id the resolved subscription is null, as the endpoint's
    if (settings.subscription_id !== undefined) endpoint.setSubscription(ctx.subscriptionId);
    endpoint.applyNetwork(settings);
    for (const server of servers ?? []) endpoint.addServer(server);
    return endpoint;
  }

  /** Creates a shared endpoint on `ctx.host`, which must be able to host shares and be managed. */
  static createShared(command: CreateSharedEndpoint, ctx: CreateSharedContext): Endpoint {
    const { host_endpoint_id: _host, host_path: hostPath, ...settings } = command;
    assertSettable(settings, 'shared');
    if (settings.public !== undefined && settings.public !== true) {
      throw new BadRequestError('Invalid public: shared endpoints are always public');
    }
    const host = ctx.host;
    if (!host.canHostShares) {
      throw new BadRequestError(`Endpoint '${host.id}' is ${KIND_WORDS[host.kind]} and cannot host shared endpoints`);
    }
    // Sharing a host is its administrators' decision (security review two, finding 5): anyone else
    // could otherwise give the world write access to any path of a public host.
    if (!ctx.callerIsHostAdministrator) {
      throw new PermissionDeniedError(`You need the 'administrator' role on endpoint '${host.id}' to share it`);
    }
    const mapped = host.collection;
    if (mapped !== null && !mapped.allow_guest_collections) {
      throw new InvalidFieldError('allow_guest_collections', `mapped collection '${host.id}' allows no guest collections (its allow_guest_collections is false)`, 'BadRequest', () => `Mapped collection '${host.id}' allows no guest collections: its administrators set allow_guest_collections to allow them`);
    }
    // a mapped collection's gate is allow_guest_collections, its administrators' own decision
    const managed = host.subscriptionId !== null || mapped !== null;
    if (!managed && host.kind !== 'personal') {
      throw new BadRequestError(
        `Endpoint '${host.id}' is not managed: sharing requires a host endpoint with a subscription`,
      );
    }
    if (typeof hostPath !== 'string' || !hostPath.startsWith('/')) {
      throw new BadRequestError("Field 'host_path' is required: an absolute path on the host, such as /~/shared/");
    }
    const endpoint = new Endpoint({
      ...emptyState(ctx.id, 'shared', ctx.now, ctx.owner),
      public: true,
      host_endpoint_id: host.id,
      host_path: checkText('host_path', hostPath, { max: 4096, singleLine: true }),
    });
    endpoint.applySimpleFields(settings, UPDATABLE_FIELDS.shared);
    // a share of a host a data node serves is served by the node too, at its own address
    endpoint.serveFrom(host, ctx.guest);
    return endpoint;
  }

  /**
   * A share's address follows its host's node (bound, moved or detached), and it is a guest
   * collection exactly while its host is a mapped collection; whether anything changed. `guest`:
   * what a guest collection made through its Manager is made with.
   */
  serveFrom(host: Endpoint, guest: Pick<CollectionSettings, 'user_credential_id' | 'delete_protected'> = { user_credential_id: null, delete_protected: false }): boolean {
    if (this.state.kind !== 'shared') return false;
    const before = JSON.stringify([this.state.https_server, this.state.gcs_endpoint_id, this.state.gcs_manager_url, this.state.collection]);
    this.state.https_server = host.nodeAddressOf(this.state.id);
    const mapped = host.collectionType === 'mapped' ? host.collection! : null;
    this.state.gcs_endpoint_id = mapped === null ? null : host.snapshot.gcs_endpoint_id;
    this.state.gcs_manager_url = mapped === null ? null : host.snapshot.gcs_manager_url;
    if (mapped === null) this.state.collection = null;
    else if (this.state.collection === null) this.state.collection = { storage_gateway_id: mapped.storage_gateway_id, base_path: '/', allow_guest_collections: false, delete_protected: guest.delete_protected, user_credential_id: guest.user_credential_id };
    else this.state.collection.storage_gateway_id = mapped.storage_gateway_id;
    return JSON.stringify([this.state.https_server, this.state.gcs_endpoint_id, this.state.gcs_manager_url, this.state.collection]) !== before;
  }

  /**
   * Where the data node that serves this endpoint's storage serves `endpointId` (this one or a
   * share of it): `<node URL>/<endpoint id>`; null when no node serves its storage.
   */
  nodeAddressOf(endpointId: string): string | null {
    const own = this.state.https_server;
    if (this.state.storage?.type !== 'node' || own === null || !own.endsWith(`/${this.state.id}`)) return null;
    return `${own.slice(0, -this.state.id.length)}${endpointId}`;
  }

  /** An object-store endpoint (alpha): not creatable through the API, only by an operator. */
  static createObjectStore(input: { display_name: string; s3_url: string }, ctx: Omit<CreateContext, 'subscriptionId' | 'setupKey'>): Endpoint {
    const endpoint = new Endpoint({
      ...emptyState(ctx.id, 'object_store', ctx.now, ctx.owner),
      s3_url: checkHttpUrl('s3_url', input.s3_url),
      network_use: 'normal',
      local_user_info_available: false,
    });
    endpoint.applySimpleFields({ display_name: input.display_name }, UPDATABLE_FIELDS.object_store);
    return endpoint;
  }

  /**
   * Applies a patch. A field this kind cannot change may still be sent with its current value (clients
   * send back what they read); any other value is refused.
   */
  update(patch: EndpointPatch, ctx: UpdateContext = {}): void {
    // a node-bound endpoint's address is its node's: read only (sent back unchanged, it is accepted)
    const onNode = this.state.storage?.type === 'node';
    const updatable = onNode ? without(UPDATABLE_FIELDS[this.state.kind], 'https_server') : UPDATABLE_FIELDS[this.state.kind];
    for (const [field, value] of Object.entries(patch)) {
      if (value === undefined || updatable.has(field)) continue;
      if (!jsonEqual(value, this.currentValue(field as keyof EndpointSettings))) {
        if (onNode && field === 'https_server') throw new BadRequestError(`Invalid https_server: an endpoint served by a data node is reached at its node's address (${this.state.https_server}), which only its node's binding changes`);
        throw fieldCannotBeSet(field, this.state.kind, 'update');
      }
    }
    // a share in its owner's home (~) is made there once: a new owner never moves it to another home
    if (typeof patch.owner_string === 'string' && this.state.kind === 'shared' && (this.state.host_path ?? '').includes('~') && shortUsername(patch.owner_string) !== shortUsername(this.state.owner_string)) {
      throw new BadRequestError(`Invalid owner_string: this share's host_path is in its owner's home (${this.state.host_path}); another owner would move it to another home`);
    }
    if (patch.subscription_id !== undefined && patch.subscription_id !== this.state.subscription_id) {
      if (ctx.subscriptionId === undefined) throw new Error('subscription_id changes need a resolved subscription');
      this.setSubscription(ctx.subscriptionId);
    }
    if (updatable.has('network_use')) this.applyNetwork(patch);
    this.applySimpleFields(patch, updatable);
    if (typeof patch.owner_string === 'string') this.state.owner_string = patch.owner_string;
  }

  /** A setting as the endpoint has it now (the four network numbers as the preset gives them). */
  private currentValue(field: keyof EndpointSettings): unknown {
    if ((NETWORK_NUMBERS as readonly string[]).includes(field)) {
      return this.networkSettings?.[field as NetworkNumber] ?? null;
    }
    return this.state[field as keyof EndpointState];
  }

  /** The four network numbers in force: the preset's, or the custom ones; null where network use does not apply. */
  get networkSettings(): NetworkSettings | null {
    return effectiveNetworkSettings(this.state.network_use, this.state.custom_network);
  }

  private applySimpleFields(settings: EndpointSettings, allowed: ReadonlySet<string>): void {
    for (const field of Object.keys(SIMPLE_FIELDS) as SimpleField[]) {
      const value = settings[field];
      if (value === undefined || !allowed.has(field)) continue;
      const normalize = SIMPLE_FIELDS[field] as Normalizer<typeof value>;
      (this.state as unknown as Record<string, unknown>)[field] = normalize(field, value);
    }
  }

  private setSubscription(subscriptionId: string | null): void {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an unmanaged endpoint's network use is normal already (only managed ones change it)
    const wasManaged = this.state.subscription_id !== null;
    // a verification is of one subscription's administrators: another subscription, or none, has not given it
    if (subscriptionId !== this.state.subscription_id) this.state.subscription_admin_verified = false;
    this.state.subscription_id = subscriptionId;
    // Stryker disable next-line ConditionalExpression: kinds without network use (shares) have no subscription to lose
    if (wasManaged && subscriptionId === null && this.state.network_use !== null) {
      // Spec section 3: an endpoint that becomes unmanaged falls back to `normal`.
      this.state.network_use = 'normal';
      this.state.custom_network = null;
    }
  }

  /** network_use and the four numbers: `custom` needs all four; under a preset they are read-only. */
  private applyNetwork(settings: EndpointSettings): void {
    const sentNumbers = NETWORK_NUMBERS.filter((n) => settings[n] !== undefined);
    // Stryker disable next-line ConditionalExpression,BlockStatement: with nothing sent, what follows keeps the network use as it is
    if (settings.network_use === undefined && sentNumbers.length === 0) return;
    let use = this.state.network_use;
    if (settings.network_use !== undefined) {
      if (settings.network_use === null) throw new BadRequestError('Invalid network_use: must be a string');
      use = checkNetworkUse(settings.network_use);
    }
    // Stryker disable next-line ConditionalExpression,StringLiteral: the kinds without network use (shares) never reach here: it is not among their updatable fields
    if (use === null) throw new BadRequestError(`network_use cannot be set on ${KIND_WORDS[this.state.kind]}`);
    let custom: NetworkSettings | null = null;
    if (use === 'custom') {
      if (this.state.network_use !== 'custom' && sentNumbers.length < NETWORK_NUMBERS.length) {
        throw new BadRequestError(
          `network_use 'custom' needs all of ${NETWORK_NUMBERS.join(', ')} in the same request`,
        );
      }
      const merged: Record<string, number | null | undefined> = { ...this.state.custom_network };
      for (const n of sentNumbers) merged[n] = settings[n];
      for (const n of NETWORK_NUMBERS) {
        if (typeof merged[n] !== 'number') throw new BadRequestError(`Invalid ${n}: must be an integer`);
      }
      custom = checkCustomSettings(merged as unknown as NetworkSettings);
    } else {
      const preset = NETWORK_PRESETS[use];
      for (const n of sentNumbers) {
        if (settings[n] !== preset[n]) {
          throw new BadRequestError(`Field '${n}' can only be set together with network_use 'custom'`);
        }
      }
    }
    const changed = use !== this.state.network_use || !jsonEqual(custom, this.state.custom_network);
    if (changed && this.state.subscription_id === null) {
      throw new BadRequestError('network_use can only be changed on a managed endpoint (one with a subscription_id)');
    }
    this.state.network_use = use;
    this.state.custom_network = custom;
  }

  /** Spec 4.2 rules 7-11: only server endpoints have real servers. */
  private assertHasServers(change: boolean): void {
    if (this.state.kind === 'shared' || this.state.kind === 'object_store') {
      throw new BadRequestError(`That endpoint type doesn't have servers: '${this.state.id}' is ${KIND_WORDS[this.state.kind]}`);
    }
    if (change && this.state.kind === 'personal') {
      throw new BadRequestError('The server of a personal-client endpoint is virtual and cannot be changed');
    }
  }

  /** The servers of an endpoint that has servers (the one virtual server of a personal client). */
  listServers(): EndpointServer[] {
    this.assertHasServers(false);
    return this.servers;
  }

  /** Every server, for any kind: none for shares and object stores. */
  get servers(): EndpointServer[] {
    if (this.state.kind === 'personal') return [virtualServer(this.state.vcp_connected, this.state.vcp_paused)];
    return this.state.servers;
  }

  server(serverId: number): EndpointServer {
    const found = this.listServers().find((s) => s.id === serverId);
    if (!found) throw new ServerNotFoundError(this.state.id, serverId);
    return found;
  }

  addServer(input: ServerInput): number {
    this.assertHasServers(true);
    if (this.state.servers.length >= MAX_SERVERS) throw new LimitExceededError(`An endpoint has at most ${MAX_SERVERS} servers`);
    const server = newServer(this.state.next_server_id, input);
    this.state.next_server_id += 1;
    this.state.servers.push(server);
    return server.id;
  }

  /** Applies a server patch; `ifUnchanged` may refuse it after seeing the server as it is. */
  updateServer(serverId: number, patch: ServerPatch, ifUnchanged?: (current: ServerState) => void): void {
    this.assertHasServers(true);
    const index = this.state.servers.findIndex((s) => s.id === serverId);
    if (index < 0) throw new ServerNotFoundError(this.state.id, serverId);
    ifUnchanged?.(this.state.servers[index]);
    this.state.servers[index] = updatedServer(this.state.servers[index], patch);
  }

  removeServer(serverId: number): void {
    this.assertHasServers(true);
    const index = this.state.servers.findIndex((s) => s.id === serverId);
    if (index < 0) throw new ServerNotFoundError(this.state.id, serverId);
    this.state.servers.splice(index, 1);
  }

  /** Personal-client setup: the key is single use and is cleared when setup completes. */
  completePersonalSetup(key: string): void {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: only personal endpoints ever have a setup key
    if (this.state.kind !== 'personal' || this.state.vendor_connect_setup_key === null) {
      throw new BadRequestError(`Endpoint '${this.state.id}' has no pending personal-client setup`);
    }
    if (key !== this.state.vendor_connect_setup_key) throw new BadRequestError('Invalid setup key');
    this.state.vendor_connect_setup_key = null;
    this.state.vcp_connected = true;
  }

  tombstone(now: Date): Tombstone {
    return { id: this.state.id, canonical_name: this.state.canonical_name, owner_id: this.state.owner_id, deleted_at: now };
  }

  /** Read access for renderers. */
  get snapshot(): Readonly<EndpointState> {
    return this.state;
  }

  /**
   * Attaches storage (an operator's or a seed's doing): only a server or personal endpoint has its
   * own; a share sees its host's. A directory of a data node (`nodeUrl`: the node's address) makes
   * the endpoint's https_server the address under which `<https_server>/<path>` is its file.
   */
  attachStorage(attachment: StorageAttachment, nodeUrl?: string): void {
    if (this.state.kind !== 'server' && this.state.kind !== 'personal') {
      throw new BadRequestError(`Storage is attached to a server or personal endpoint, not to ${KIND_WORDS[this.state.kind]}: a share sees its host's storage from its host_path`);
    }
    if (attachment.type !== 'memory' && (!attachment.root.startsWith('/') || hasAnyControlCharacter(attachment.root))) {
      throw new BadRequestError(`Invalid storage root '${attachment.root.slice(0, 200)}': an absolute directory of ${attachment.type === 'node' ? 'the node' : 'the xfer host'}`);
    }
    if (attachment.type === 'node' && nodeUrl === undefined) throw new Error('a node-bound storage is attached with its node\'s address');
    this.detachStorage();
    if (attachment.type === 'node') {
      this.state.storage = { type: 'node', node: attachment.node, root: attachment.root };
      this.state.https_server = `${nodeUrl}/${this.state.id}`;
    } else this.state.storage = attachment.type === 'posix' ? { type: 'posix', root: attachment.root } : { type: 'memory' };
  }

  /** Detaches storage; a node's address, and with it being a GCS collection, go with a node-bound storage. */
  detachStorage(): void {
    if (this.state.storage?.type === 'node') {
      this.state.https_server = null;
      this.state.gcs_endpoint_id = null;
      this.state.gcs_manager_url = null;
      this.state.collection = null;
    }
    this.state.storage = null;
  }

  /** Marks the write; the repository stores `version` and checks the previous one. */
  nextVersion(): void {
    this.state.version += 1;
  }
}

/** Refuses settings this kind does not take on create; a share may be asked for null where it has null. */
function assertSettable(settings: EndpointSettings, kind: EndpointKind): void {
  const allowed = CREATABLE_FIELDS[kind];
  for (const [field, value] of Object.entries(settings)) {
    if (value === undefined || allowed.has(field)) continue;
    if (kind === 'shared' && value === null && NULL_ON_SHARES.has(field)) continue;
    throw fieldCannotBeSet(field, kind, 'create');
  }
}

function without(set: ReadonlySet<string>, field: string): Set<string> {
  const copy = new Set(set);
  copy.delete(field);
  return copy;
}

function emptyState(id: string, kind: EndpointKind, now: Date, owner: IdentityState): EndpointState {
  return {
    id,
    kind,
    version: 0,
    created_at: now,
    display_name: null,
    organization: null,
    department: null,
    keywords: null,
    name: id,
    canonical_name: `${shortUsername(owner.username)}#${id}`,
    owner_id: owner.id,
    owner_string: owner.username,
    description: null,
    contact_email: null,
    contact_info: null,
    info_link: null,
    public: false,
    subscription_id: null,
    default_directory: null,
    force_encryption: false,
    disable_verify: false,
    myproxy_server: null,
    myproxy_dn: null,
    oauth_server: null,
    vendor_connect_setup_key: null,
    vcp_connected: null,
    vcp_paused: null,
    host_endpoint_id: null,
    host_path: null,
    s3_url: null,
    network_use: null,
    custom_network: null,
    location: null,
    local_user_info_available: null,
    subscription_admin_verified: false,
    https_server: null,
    gcs_manager_url: null,
    gcs_endpoint_id: null,
    collection: null,
    servers: [],
    next_server_id: 1,
    storage: null,
  };
}
