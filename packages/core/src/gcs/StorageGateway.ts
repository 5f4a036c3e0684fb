import { InvalidFieldError } from '../shared/errors';
import { checkInteger, checkText, hasAnyControlCharacter } from '../shared/text';
import { MAX_PATH_LENGTH } from '../storage/paths';
import { checkPathRestrictions, type PathRestrictions } from './DataAccessPolicy';
import { checkIdentityMappings, type ExpressionIdentityMapping } from './IdentityMapping';

/** The one connector of xfer's storage gateways: GCS's POSIX connector. */
export const POSIX_CONNECTOR_ID = '145812c8-decc-41f1-83cf-bb2a85a2a70b';

/** A POSIX gateway's policies (posix_storage_policies#1.0.0): kept as the administrator set them. */
export interface PosixPolicies {
  groups_allow: string[];
  groups_deny: string[];
}

/** What a gateway keeps as the administrator set it, beside its root. */
export interface StorageGatewaySettings {
  /** Domains of the identities that may use it (their usernames' `@domain`); empty: any. */
  allowed_domains: string[];
  users_allow: string[];
  users_deny: string[];
  /** Which local account each identity uses (expression mappings, the first that maps wins). */
  identity_mappings: ExpressionIdentityMapping[];
  /** Which paths accounts may read, write or not see; null: the operating system decides. */
  restrict_paths: PathRestrictions | null;
  authentication_timeout_mins: number;
  require_mfa: boolean;
  policies: PosixPolicies;
}

/**
 * A storage gateway of a data node (GCS's): a directory of the node (`root`) through the POSIX
 * connector, within which its mapped collections lie. Only its node's administrators see it.
 */
export interface StorageGatewayState {
  id: string;
  node_id: string;
  display_name: string;
  /** An absolute directory of the node, normalized (no `.`, `..` or doubled slashes). */
  root: string;
  settings: StorageGatewaySettings;
  created_at: Date;
}

/** What a create or an update sends, typed (the edge reads GCS's document into it); the mapping and restriction documents are checked here, whole. */
export type StorageGatewayInput = Partial<Pick<StorageGatewayState, 'display_name' | 'root'> & Omit<StorageGatewaySettings, 'identity_mappings' | 'restrict_paths'>> & { identity_mappings?: unknown; restrict_paths?: unknown };

/** GCS's default authentication timeout: 11 days, in minutes. */
export const DEFAULT_AUTHENTICATION_TIMEOUT_MINS = 15840;
const MAX_LIST = 100;

/**
 * An absolute directory of a node, normalized: `/`-separated, without `.`, `..`, doubled or
 * trailing slashes; `..` anywhere is refused (a root or a base path names its directory plainly).
 */
export function checkNodeDirectory(field: string, value: string): string {
  if (!value.startsWith('/') || hasAnyControlCharacter(value) || value.length > MAX_PATH_LENGTH) throw new InvalidFieldError(field, 'an absolute directory of the node (/...), at most 4096 characters, without control characters');
  const segments = value.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw new InvalidFieldError(field, `'${value.slice(0, 200)}' climbs with '..': name the directory plainly`);
  return `/${segments.join('/')}`;
}

function checkWords(field: string, values: string[]): string[] {
  if (values.length > MAX_LIST) throw new InvalidFieldError(field, `at most ${MAX_LIST} entries`);
  return values.map((value, i) => checkText(`${field}[${i}]`, value, { max: 256, singleLine: true }));
}

/** A new gateway's settings, GCS's defaults for what is not sent. */
function defaultSettings(): StorageGatewaySettings {
  return { allowed_domains: [], users_allow: [], users_deny: [], identity_mappings: [], restrict_paths: null, authentication_timeout_mins: DEFAULT_AUTHENTICATION_TIMEOUT_MINS, require_mfa: false, policies: { groups_allow: [], groups_deny: [] } };
}

/** Applies what `input` sends onto `gateway`, each field checked. */
function applyInput(gateway: StorageGatewayState, input: StorageGatewayInput): void {
  if (input.display_name !== undefined) gateway.display_name = checkText('display_name', input.display_name, { max: 128, singleLine: true });
  if (gateway.display_name.trim() === '') throw new InvalidFieldError('display_name', 'is required');
  if (input.root !== undefined) gateway.root = checkNodeDirectory('root', input.root);
  const s = gateway.settings;
  if (input.allowed_domains !== undefined) s.allowed_domains = checkWords('allowed_domains', input.allowed_domains).map((domain) => domain.toLowerCase());
  if (input.users_allow !== undefined) s.users_allow = checkWords('users_allow', input.users_allow);
  if (input.users_deny !== undefined) s.users_deny = checkWords('users_deny', input.users_deny);
  if (input.identity_mappings !== undefined) s.identity_mappings = input.identity_mappings === null ? [] : checkIdentityMappings(input.identity_mappings);
  if (input.restrict_paths !== undefined) s.restrict_paths = input.restrict_paths === null ? null : checkPathRestrictions(input.restrict_paths);
  if (input.authentication_timeout_mins !== undefined) s.authentication_timeout_mins = checkInteger('authentication_timeout_mins', input.authentication_timeout_mins, 1, 5_256_000);
  if (input.require_mfa !== undefined) s.require_mfa = input.require_mfa;
  if (input.policies !== undefined) s.policies = { groups_allow: checkWords('policies.groups_allow', input.policies.groups_allow), groups_deny: checkWords('policies.groups_deny', input.policies.groups_deny) };
}

/** A new gateway of `nodeId` (root `/` unless sent, as GCS's POSIX connector). */
export function newStorageGateway(input: StorageGatewayInput, ctx: { id: string; nodeId: string; now: Date }): StorageGatewayState {
  if (input.display_name === undefined) throw new InvalidFieldError('display_name', 'is required');
  const gateway: StorageGatewayState = { id: ctx.id, node_id: ctx.nodeId, display_name: '', root: '/', settings: defaultSettings(), created_at: ctx.now };
  applyInput(gateway, input);
  return gateway;
}

/**
 * The gateway with `patch` applied; its root does not move while collections lie in it (their
 * directories are below it: moving it would move their files under them).
 */
export function updatedStorageGateway(gateway: StorageGatewayState, patch: StorageGatewayInput, hasCollections: boolean): StorageGatewayState {
  const next = structuredClone(gateway);
  applyInput(next, patch);
  if (next.root !== gateway.root && hasCollections) throw new InvalidFieldError('root', 'cannot change while collections use this storage gateway');
  return next;
}

/** Whether an identity's username may use the gateway, by its allowed domains (none: any). */
export function gatewayAllows(gateway: StorageGatewayState, username: string): boolean {
  const domains = gateway.settings.allowed_domains;
  const domain = username.slice(username.lastIndexOf('@') + 1).toLowerCase();
  return domains.length === 0 || domains.includes(domain);
}

/** A directory within the gateway's root: `base` (absolute, `/` the root itself) below `root`. */
export function directoryWithin(root: string, base: string): string {
  return base === '/' ? root : root === '/' ? base : `${root}${base}`;
}

export interface StorageGatewayRepository {
  add(gateway: StorageGatewayState): Promise<void>;
  findById(id: string): Promise<StorageGatewayState | null>;
  /** A node's gateways, oldest first. */
  listForNode(nodeId: string): Promise<StorageGatewayState[]>;
  update(gateway: StorageGatewayState): Promise<void>;
  delete(id: string): Promise<void>;
  deleteForNode(nodeId: string): Promise<void>;
}
