import type { IdentityState } from '../auth/Identity';
import { shortUsername } from '../auth/Identity';
import { BadRequestError, ServerNotFoundError } from '../shared/errors';
import { checkEmail, checkHttpUrl, checkText, jsonEqual, parseHttpUrl, type TextRule } from '../shared/text';
import { checkLocation } from './location';
import {
  checkCustomSettings,
  checkNetworkUse,
  NETWORK_NUMBERS,
  NETWORK_PRESETS,
  type NetworkSettings,
  type NetworkUse,
} from './network';
import {
  newServer,
  serverDocument,
  updatedServer,
  virtualServerDocument,
  type ServerDocument,
  type ServerInput,
  type ServerState,
} from './Server';

export type EndpointKind = 'server' | 'personal' | 'shared' | 'object_store';

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
  https_server: string | null;
  servers: ServerState[];
  next_server_id: number;
}

/** The body of a create or update, after the edge checked its shape. Values are re-checked here. */
export interface EndpointInput {
  [field: string]: unknown;
  DATA?: ServerInput[];
}

export interface Tombstone {
  id: string;
  canonical_name: string;
  owner_id: string;
  deleted_at: Date;
}

const SINGLE_LINE_128: TextRule = { max: 128, singleLine: true };
const SINGLE_LINE_1024: TextRule = { max: 1024, singleLine: true };

type Normalizer = (field: string, value: unknown) => unknown;

const text =
  (rule: TextRule, emptyIsNull = false): Normalizer =>
  (field, value) => {
    if (value === null || (emptyIsNull && value === '')) return null;
    if (typeof value !== 'string') throw new BadRequestError(`Invalid ${field}: must be a string or null`);
    return checkText(field, value, rule);
  };
const boolean: Normalizer = (field, value) => {
  if (typeof value !== 'boolean') throw new BadRequestError(`Invalid ${field}: must be true or false`);
  return value;
};
const nullable =
  (check: (field: string, value: string) => string): Normalizer =>
  (field, value) => {
    if (value === null || value === '') return null;
    if (typeof value !== 'string') throw new BadRequestError(`Invalid ${field}: must be a string or null`);
    return check(field, value);
  };
const hostAndPort = (field: string, value: string): string => {
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::\d{1,5})?$/.test(value)) {
    throw new BadRequestError(`Invalid ${field}: '${value}' is not a hostname[:port]`);
  }
  return value;
};
const httpsServer = (field: string, value: string): string => {
  const url = parseHttpUrl(value);
  const bare = url && url.protocol === 'https:' && url.hostname && !url.username && !url.password;
  if (!bare || url.pathname !== '/' || url.search || url.hash || /[?#]/.test(value) || /^https:\/\/[^/]+\/./.test(value)) {
    throw new BadRequestError(`Invalid ${field}: must be an https://host[:port] URL without path, query or fragment`);
  }
  return value;
};

/** Fields whose value is stored as given, once checked. */
const SIMPLE_FIELDS = {
  display_name: text(SINGLE_LINE_128),
  organization: text(SINGLE_LINE_1024),
  department: text(SINGLE_LINE_1024),
  keywords: text({ max: 1024 }),
  description: text({ max: 4096 }),
  contact_email: nullable(checkEmail),
  contact_info: text({ max: 4096 }),
  info_link: nullable((f, v) => checkHttpUrl(f, v)),
  default_directory: text({ max: 4096, singleLine: true }, true),
  force_encryption: boolean,
  disable_verify: boolean,
  public: boolean,
  myproxy_server: nullable(hostAndPort),
  myproxy_dn: text({ max: 1024, singleLine: true }, true),
  oauth_server: nullable(hostAndPort),
  location: (field: string, value: unknown) => {
    if (typeof value !== 'string') throw new BadRequestError(`Invalid ${field}: must be 'Automatic' or 'LAT,LON'`);
    return checkLocation(value);
  },
  https_server: nullable(httpsServer),
} satisfies Record<string, Normalizer>;
type SimpleField = keyof typeof SIMPLE_FIELDS;

const COMMON_UPDATABLE = [
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
] as const;
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
};

const CREATE_ONLY_FIELDS = ['name', 'canonical_name', 'is_vendor_connect'] as const;
const HOST_FIELDS = ['host_endpoint', 'host_endpoint_id', 'host_path'] as const;
/** Fields a shared endpoint always has null: sending null for them on create is harmless. */
const NULL_ON_SHARES = new Set([
  'myproxy_server',
  'myproxy_dn',
  'oauth_server',
  'subscription_id',
  'location',
  'https_server',
  ...NETWORK_FIELDS,
]);

const LEGACY_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function checkLegacyName(field: string, value: unknown): string {
  if (typeof value !== 'string' || !LEGACY_NAME.test(value)) {
    throw new BadRequestError(`Invalid ${field}: 1 to 128 letters, digits, '_', '-' or '.'`);
  }
  return value;
}

const KIND_WORDS: Record<EndpointKind, string> = {
  server: 'a server endpoint',
  personal: 'a personal-client endpoint',
  shared: 'a shared endpoint',
  object_store: 'an object-store endpoint',
};

export interface CreateContext {
  id: string;
  owner: IdentityState;
  now: Date;
  /** The resolved subscription when the input names one (DEFAULT already resolved). */
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
}

export interface UpdateContext {
  /** The endpoint document as the caller sees it now: read-only keys sent back must equal it. */
  current: Record<string, unknown>;
  /** The resolved subscription, when input.subscription_id changes it. */
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

  /** `is_globus_connect` is the hosted service's name for `is_vendor_connect` on input (compat-notes). */
  private static withVendorConnectAlias(input: EndpointInput): EndpointInput {
    const { is_globus_connect, ...rest } = input;
    if (is_globus_connect === undefined) return input;
    if (rest.is_vendor_connect !== undefined && rest.is_vendor_connect !== is_globus_connect) {
      throw new BadRequestError('is_globus_connect and is_vendor_connect disagree: send one of them');
    }
    return { ...rest, is_vendor_connect: is_globus_connect };
  }

  /** Creates a server or personal-client endpoint from a `POST /endpoint` body. */
  static create(body: EndpointInput, ctx: CreateContext): Endpoint {
    const input = Endpoint.withVendorConnectAlias(body);
    if (input.DATA_TYPE === 'shared_endpoint' || HOST_FIELDS.some((f) => input[f] !== undefined && input[f] !== null)) {
      throw new BadRequestError('Shared endpoints are created with POST /shared_endpoint, not POST /endpoint');
    }
    if (input.DATA_TYPE !== undefined && input.DATA_TYPE !== 'endpoint') {
      throw new BadRequestError(`Invalid DATA_TYPE '${String(input.DATA_TYPE)}': expected 'endpoint'`);
    }
    const personal = input.is_vendor_connect === undefined || input.is_vendor_connect === null ? false : boolean('is_vendor_connect', input.is_vendor_connect);
    const kind: EndpointKind = personal ? 'personal' : 'server';
    const allowed = new Set<string>([...UPDATABLE_FIELDS[kind], ...CREATE_ONLY_FIELDS, 'DATA_TYPE', ...HOST_FIELDS]);
    if (kind === 'server') allowed.add('DATA');
    allowed.delete('owner_string');
    for (const [field, value] of Object.entries(input)) {
      if (value !== undefined && !allowed.has(field)) throw cannotSet(field, kind, 'create');
    }
    const { name, canonical_name } = Endpoint.legacyNames(input, ctx.id, ctx.owner);
    if (input.display_name == null && input.canonical_name === undefined && input.name === undefined) {
      throw new BadRequestError("Field 'display_name' is required (or the deprecated 'canonical_name')");
    }
    const endpoint = new Endpoint({
      ...emptyState(ctx.id, kind, ctx.now, ctx.owner),
      name,
      canonical_name,
      network_use: 'normal',
      location: 'Automatic',
      vendor_connect_setup_key: personal ? ctx.setupKey : null,
      vcp_connected: personal ? false : null,
      vcp_paused: personal ? false : null,
    });
    endpoint.applySimpleFields(input, UPDATABLE_FIELDS[kind]);
    if (input.subscription_id !== undefined) endpoint.setSubscription(ctx.subscriptionId);
    endpoint.applyNetwork(input);
    for (const server of input.DATA ?? []) endpoint.addServer(server);
    return endpoint;
  }

  /** The host id named by a `POST /shared_endpoint` body (`host_endpoint` or its alias `host_endpoint_id`). */
  static requestedHostId(input: EndpointInput): string {
    const { host_endpoint: a, host_endpoint_id: b } = input;
    if (a != null && b != null && a !== b) {
      throw new BadRequestError('host_endpoint and host_endpoint_id name different endpoints');
    }
    const host = a ?? b;
    if (host == null) throw new BadRequestError("Field 'host_endpoint' is required to create a shared endpoint");
    if (typeof host !== 'string') throw new BadRequestError('Invalid host_endpoint: must be an endpoint id');
    return host;
  }

  /** Creates a shared endpoint on `ctx.host` from a `POST /shared_endpoint` body. */
  static createShared(input: EndpointInput, ctx: CreateSharedContext): Endpoint {
    if (input.DATA_TYPE !== undefined && input.DATA_TYPE !== 'shared_endpoint') {
      throw new BadRequestError(`Invalid DATA_TYPE '${String(input.DATA_TYPE)}': expected 'shared_endpoint'`);
    }
    if (input.DATA !== undefined) throw new BadRequestError('Servers cannot be added to a shared endpoint');
    const allowed = new Set<string>([...UPDATABLE_FIELDS.shared, ...HOST_FIELDS, 'DATA_TYPE', 'public']);
    allowed.delete('owner_string');
    for (const [field, value] of Object.entries(input)) {
      if (value === undefined || allowed.has(field)) continue;
      if (value === null && NULL_ON_SHARES.has(field)) continue;
      throw cannotSet(field, 'shared', 'create');
    }
    if (input.public !== undefined && input.public !== true) {
      throw new BadRequestError('Invalid public: shared endpoints are always public');
    }
    const host = ctx.host;
    if (!host.canHostShares) {
      throw new BadRequestError(`Endpoint '${host.id}' is ${KIND_WORDS[host.kind]} and cannot host shared endpoints`);
    }
    const managed = host.subscriptionId !== null;
    if (!managed && !(host.kind === 'personal' && ctx.callerIsHostAdministrator)) {
      throw new BadRequestError(
        `Endpoint '${host.id}' is not managed: sharing requires a host endpoint with a subscription`,
      );
    }
    if (typeof input.host_path !== 'string' || !input.host_path.startsWith('/')) {
      throw new BadRequestError("Field 'host_path' is required: an absolute path on the host, such as /~/shared/");
    }
    const endpoint = new Endpoint({
      ...emptyState(ctx.id, 'shared', ctx.now, ctx.owner),
      name: ctx.id,
      canonical_name: `${shortUsername(ctx.owner.username)}#${ctx.id}`,
      public: true,
      host_endpoint_id: host.id,
      host_path: checkText('host_path', input.host_path, { max: 4096, singleLine: true }),
    });
    endpoint.applySimpleFields(input, UPDATABLE_FIELDS.shared);
    return endpoint;
  }

  /** An object-store endpoint (alpha): not creatable through the API, only by an operator. */
  static createObjectStore(input: { display_name: string; s3_url: string }, ctx: Omit<CreateContext, 'subscriptionId' | 'setupKey'>): Endpoint {
    const endpoint = new Endpoint({
      ...emptyState(ctx.id, 'object_store', ctx.now, ctx.owner),
      name: ctx.id,
      canonical_name: `${shortUsername(ctx.owner.username)}#${ctx.id}`,
      s3_url: checkHttpUrl('s3_url', input.s3_url),
      network_use: 'normal',
      local_user_info_available: false,
    });
    endpoint.applySimpleFields({ display_name: input.display_name }, UPDATABLE_FIELDS.object_store);
    return endpoint;
  }

  private static legacyNames(input: EndpointInput, id: string, owner: IdentityState): { name: string; canonical_name: string } {
    const user = shortUsername(owner.username);
    let name = input.name == null ? undefined : checkLegacyName('name', input.name);
    if (input.canonical_name != null) {
      if (typeof input.canonical_name !== 'string') throw new BadRequestError('Invalid canonical_name: must be a string');
      const hash = input.canonical_name.indexOf('#');
      if (hash < 0) throw new BadRequestError("Invalid canonical_name: must have the form USERNAME#ENDPOINTNAME");
      const userPart = input.canonical_name.slice(0, hash);
      const namePart = checkLegacyName('canonical_name', input.canonical_name.slice(hash + 1));
      if (userPart !== user) {
        throw new BadRequestError(`Invalid canonical_name: the username part must be your username '${user}'`);
      }
      if (name !== undefined && name !== namePart) {
        throw new BadRequestError('name and canonical_name disagree: send one of them');
      }
      name = namePart;
    }
    name ??= id;
    return { name, canonical_name: `${user}#${name}` };
  }

  /** Applies a `PUT /endpoint/<id>` body. Keys not updatable on this kind must equal `ctx.current`. */
  update(input: EndpointInput, ctx: UpdateContext): void {
    if (input.DATA_TYPE !== undefined && input.DATA_TYPE !== 'endpoint') {
      throw new BadRequestError(`Invalid DATA_TYPE '${String(input.DATA_TYPE)}': expected 'endpoint'`);
    }
    const updatable = UPDATABLE_FIELDS[this.state.kind];
    for (const [field, value] of Object.entries(input)) {
      if (value === undefined || field === 'DATA_TYPE' || updatable.has(field)) continue;
      if (!(field in ctx.current)) throw new BadRequestError(`Unknown field '${field}'`);
      if (!jsonEqual(value, ctx.current[field])) throw cannotSet(field, this.state.kind, 'update');
    }
    if (input.subscription_id !== undefined && !jsonEqual(input.subscription_id, this.state.subscription_id)) {
      if (ctx.subscriptionId === undefined) throw new Error('subscription_id changes need a resolved subscription');
      this.setSubscription(ctx.subscriptionId);
    }
    if (updatable.has('network_use')) this.applyNetwork(input);
    this.applySimpleFields(input, updatable);
    if (input.owner_string !== undefined) {
      if (typeof input.owner_string !== 'string') throw new BadRequestError('Invalid owner_string: must be a username');
      this.state.owner_string = input.owner_string;
    }
  }

  private applySimpleFields(input: EndpointInput, allowed: ReadonlySet<string>): void {
    for (const field of Object.keys(SIMPLE_FIELDS) as SimpleField[]) {
      const value = input[field];
      if (value === undefined || !allowed.has(field)) continue;
      (this.state as unknown as Record<string, unknown>)[field] = SIMPLE_FIELDS[field](field, value);
    }
  }

  private setSubscription(subscriptionId: string | null): void {
    const wasManaged = this.state.subscription_id !== null;
    this.state.subscription_id = subscriptionId;
    if (wasManaged && subscriptionId === null && this.state.network_use !== null) {
      // Spec section 3: an endpoint that becomes unmanaged falls back to `normal`.
      this.state.network_use = 'normal';
      this.state.custom_network = null;
    }
  }

  /** network_use and the four numbers: `custom` needs all four; under a preset they are read-only. */
  private applyNetwork(input: EndpointInput): void {
    const sentNumbers = NETWORK_NUMBERS.filter((n) => input[n] !== undefined);
    if (input.network_use === undefined && sentNumbers.length === 0) return;
    let use = this.state.network_use;
    if (input.network_use !== undefined) {
      if (typeof input.network_use !== 'string') throw new BadRequestError('Invalid network_use: must be a string');
      use = checkNetworkUse(input.network_use);
    }
    if (use === null) throw new BadRequestError(`network_use cannot be set on ${KIND_WORDS[this.state.kind]}`);
    let custom: NetworkSettings | null = null;
    if (use === 'custom') {
      if (this.state.network_use !== 'custom' && sentNumbers.length < NETWORK_NUMBERS.length) {
        throw new BadRequestError(
          `network_use 'custom' needs all of ${NETWORK_NUMBERS.join(', ')} in the same request`,
        );
      }
      const merged: Record<string, unknown> = { ...this.state.custom_network };
      for (const n of sentNumbers) merged[n] = input[n];
      for (const n of NETWORK_NUMBERS) {
        if (typeof merged[n] !== 'number') throw new BadRequestError(`Invalid ${n}: must be an integer`);
      }
      custom = checkCustomSettings(merged as unknown as NetworkSettings);
    } else {
      const preset = NETWORK_PRESETS[use];
      for (const n of sentNumbers) {
        if (input[n] !== preset[n]) {
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

  serverDocuments(): ServerDocument[] {
    this.assertHasServers(false);
    return this.documentServers();
  }

  /** The `DATA` list of the endpoint document (empty for kinds without servers). */
  documentServers(): ServerDocument[] {
    if (this.state.kind === 'personal') return [virtualServerDocument(this.state.vcp_connected, this.state.vcp_paused)];
    return this.state.servers.map(serverDocument);
  }

  serverDocument(serverId: number): ServerDocument {
    const found = this.serverDocuments().find((s) => s.id === serverId);
    if (!found) throw new ServerNotFoundError(this.state.id, serverId);
    return found;
  }

  addServer(input: ServerInput): number {
    this.assertHasServers(true);
    const server = newServer(this.state.next_server_id, input);
    this.state.next_server_id += 1;
    this.state.servers.push(server);
    return server.id;
  }

  updateServer(serverId: number, input: ServerInput): void {
    this.assertHasServers(true);
    const index = this.state.servers.findIndex((s) => s.id === serverId);
    if (index < 0) throw new ServerNotFoundError(this.state.id, serverId);
    this.state.servers[index] = updatedServer(this.state.servers[index], input);
  }

  removeServer(serverId: number): void {
    this.assertHasServers(true);
    const index = this.state.servers.findIndex((s) => s.id === serverId);
    if (index < 0) throw new ServerNotFoundError(this.state.id, serverId);
    this.state.servers.splice(index, 1);
  }

  /** Personal-client setup: the key is single use and is cleared when setup completes. */
  completePersonalSetup(key: string): void {
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

  /** Read access for the document renderer. */
  get snapshot(): Readonly<EndpointState> {
    return this.state;
  }

  /** Marks the write; the repository stores `version` and checks the previous one. */
  nextVersion(): void {
    this.state.version += 1;
  }
}

function cannotSet(field: string, kind: EndpointKind, when: 'create' | 'update'): BadRequestError {
  if (field === 'owner_string' && when === 'create') {
    return new BadRequestError("Field 'owner_string' is set from your identity on create");
  }
  if (field === 'DATA' && when === 'update') {
    return new BadRequestError("Field 'DATA' cannot be changed here: use the endpoint server operations");
  }
  return new BadRequestError(
    when === 'create'
      ? `Field '${field}' cannot be set when creating ${KIND_WORDS[kind]}`
      : `Field '${field}' cannot be changed on ${KIND_WORDS[kind]}`,
  );
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
    https_server: null,
    servers: [],
    next_server_id: 1,
  };
}
