import { isAccessRuleLive, type AccessRuleState } from '../access/AccessRule';
import { shortUsername } from '../auth/Identity';
import type { Principal } from '../auth/Principal';
import type { Endpoint } from '../endpoint/Endpoint';
import { hostRolesOf, loadEndpoint } from '../endpoint/loadEndpoint';
import { pauseRuleInForce, type PauseFlags } from '../pause-rule/PauseRule';
import { canViewEndpoint, type EndpointRole } from '../role/Role';
import {
  BadRequestError,
  EndpointNotConnectedError,
  IdentityNotMappedError,
  NodeNotReachableError,
  EndpointPermissionDeniedError,
  FileNotFoundError,
  InvalidPathError,
  MkdirExistsError,
  OperationPausedError,
  PermissionDeniedError,
  ResourceNotFoundError,
} from '../shared/errors';
import type { Clock } from '../shared/ports';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { mappedAccountOf } from '../gcs/mappedAccount';
import type { ActingAs } from '../node/Node';
import { compareEntries, KEEP_EVERY_ENTRY, type ListingFilter, type ListingOrder } from './listing';
import { baseName, isWithin, parentOf, resolveStoragePath } from './paths';
import { StorageError, type FileEntry, type Storage, type StorageAttachment, type StorageDirectory } from './Storage';

export type FileServiceRepositories = RepositoriesOf<'endpoints' | 'accessRules' | 'pauseRules' | 'storageGateways' | 'identities'>;
type Repos = FileServiceRepositories['repositories'];

/**
 * An endpoint whose files the caller may use at all, with the caller's roles and the live access
 * rules naming them: the rule of ls, stat, mkdir, rename and of tasks. Public, a role that sees
 * it, or (a share's) an access rule; else PermissionDenied.
 */
export async function endpointWithFiles(repos: Pick<Repos, 'endpoints' | 'accessRules'>, caller: Principal, xid: string, now: Date): Promise<{ endpoint: Endpoint; roles: EndpointRole[]; rules: AccessRuleState[] }> {
  const { endpoint, roles } = await loadEndpoint(repos, caller, xid);
  const rules = endpoint.kind === 'shared' ? (await repos.accessRules.listForEndpoint(endpoint.id)).filter((rule) => isAccessRuleLive(rule, now) && ruleNamesCaller(rule, caller)) : [];
  // a share's access rules let their principals see the share's files, as hosted shares do
  if (!canViewEndpoint(endpoint.isPublic, roles) && rules.length === 0) {
    throw new PermissionDeniedError(`You need the 'administrator' or 'activity_monitor' role on endpoint '${endpoint.id}', an access rule on it, or it must be public`);
  }
  return { endpoint, roles, rules };
}

/** At most this many entries in one listing (the hosted limit), and by default. */
export const MAX_LISTING = 100_000;

export interface ListingOptions {
  /** Names beginning with a dot too (default true). */
  showHidden?: boolean;
  limit?: number;
  offset?: number;
  /** Field after field, each ascending or descending (then by name). */
  order?: ListingOrder;
  /** Which entries are kept (default: every one). */
  filter?: ListingFilter;
}

export interface Listing {
  endpointId: string;
  /** The path as resolved, ending in `/`. */
  path: string;
  /** The resolved path when the caller asked with `~` (the hosted answer has null otherwise). */
  absolutePath: string | null;
  entries: FileEntry[];
  /** Entries matching the filter, over every page. */
  total: number;
  offset: number;
  limit: number;
}

type Access = 'r' | 'rw';
type FileOperation = keyof PauseFlags;
type TaskOperation = 'pause_task_transfer_read' | 'pause_task_transfer_write' | 'pause_task_delete';

/** The hosted code of a login refused (an identity that maps to no account), by operation. */
const LOGIN_FAILED: Record<FileOperation | TaskOperation, string> = {
  pause_ls: 'ExternalError.DirListingFailed.LoginFailed',
  pause_mkdir: 'ExternalError.MkdirFailed.LoginFailed',
  pause_rename: 'ExternalError.RenameFailed.LoginFailed',
  pause_task_delete: 'ExternalError.DeleteFailed.LoginFailed',
  pause_task_transfer_read: 'ExternalError.TransferFailed.LoginFailed',
  pause_task_transfer_write: 'ExternalError.TransferFailed.LoginFailed',
};

/** A task's item on an endpoint: the storage, the path in it, the path as the endpoint shows it (events and file lists), and the path the access that allowed it covers. */
export interface TaskPlace {
  storage: Storage;
  path: string;
  shown: string;
  within: string;
}

/** An endpoint located for a task's attempt: its paths placed from what was located. */
export interface TaskSide {
  /** The local account the endpoint's files are used as (a mapped collection's); null: its storage's own. */
  account: string | null;
  place(rawPath: string, options?: { makeParents?: boolean }): Promise<TaskPlace>;
}

/** What decides a caller's access to an endpoint's files, and where they are attached. */
interface Reached {
  endpoint: Endpoint;
  /** The endpoint whose storage holds the files (a share's host); null when it is gone. */
  host: Endpoint | null;
  attachment: StorageAttachment | null;
  /** Where the endpoint's files begin in its host's storage (a share's host_path). */
  base: string;
  roles: EndpointRole[];
  /** A share's live access rules that name the caller, with their paths resolved. */
  rules: { path: string; permissions: Access }[];
  home: string;
  /** The local account its files are used as (a mapped collection whose gateway maps identities); null: the node's own. */
  account: ActingAs | null;
  /** The hosted refusal of a login to the account (the mapping, or the node, refused it). */
  loginRefused: (detail: string) => IdentityNotMappedError;
}

/** One operation on an endpoint's storage: where, for whom, and what decides access there. */
interface Located extends Reached {
  storage: Storage;
}

/**
 * Files on endpoints (tasks-and-file-operations: file operations): ls, stat, mkdir and rename on
 * the storage behind an endpoint. A host's administrators read and write its storage; on a share,
 * its administrators and access managers everything under host_path, and everyone its live access
 * rules name what lies under the rule's path (r: read; rw: also write). Anyone else who may see
 * the endpoint is refused EndpointPermissionDenied; one who may not see it, as on every route.
 * A pause rule in force for the caller that names the operation refuses it (OperationPaused).
 */
export class FileService {
  constructor(
    private readonly uow: FileServiceRepositories,
    private readonly clock: Clock,
    private readonly storages: StorageDirectory,
  ) {}

  async ls(caller: Principal, xid: string, rawPath: string | undefined, options: ListingOptions = {}): Promise<Listing> {
    const limit = options.limit ?? MAX_LISTING;
    const offset = options.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LISTING) throw new BadRequestError(`Invalid limit: a whole number from 1 to ${MAX_LISTING}`);
    if (!Number.isInteger(offset) || offset < 0) throw new BadRequestError('Invalid offset: a whole number from 0');
    const order = options.order ?? [];
    const keep = options.filter ?? KEEP_EVERY_ENTRY;
    const located = await this.locate(caller, xid, 'pause_ls');
    const asked = rawPath ?? '/~/';
    const path = resolveStoragePath(asked, located.home);
    this.assertAllowed(located, path, 'r');

    // Names first (streamed, cheap); whole entries only for what the filter, the order or the page needs.
    const names: string[] = [];
    const showHidden = options.showHidden ?? true;
    await this.storageCall(located, path, async () => {
      for await (const batch of located.storage.names(path)) for (const name of batch) if (showHidden || !name.startsWith('.')) names.push(name);
    });
    const entriesOf = async (some: readonly string[]): Promise<FileEntry[]> => present(await this.storageCall(located, path, () => located.storage.entries(path, some)));
    const byName: ListingOrder = [...order, { field: 'name', descending: false }];
    let page: FileEntry[];
    let total: number;
    if (keep.namesOnly && order.every((o) => o.field === 'name')) {
      const matching = names.filter((name) => keep.test({ name }));
      // by name alone: the first name field decides (names are unique), in code-unit order as compareEntries
      matching.sort();
      if (order[0]?.descending) matching.reverse();
      total = matching.length;
      page = await entriesOf(matching.slice(offset, offset + limit));
    } else {
      const matching = (await entriesOf(names)).filter((entry) => keep.test(entry));
      matching.sort((a, b) => compareEntries(a, b, byName));
      total = matching.length;
      page = matching.slice(offset, offset + limit);
    }
    return { endpointId: located.endpoint.id, path: path === '/' ? '/' : `${path}/`, absolutePath: asked.includes('~') ? (path === '/' ? '/' : `${path}/`) : null, entries: page, total, offset, limit };
  }

  async stat(caller: Principal, xid: string, rawPath: string): Promise<FileEntry> {
    const located = await this.locate(caller, xid, 'pause_ls');
    const path = resolveStoragePath(rawPath, located.home);
    this.assertAllowed(located, path, 'r');
    const entry = await this.storageCall(located, path, () => located.storage.stat(path));
    return { ...entry, name: baseName(path) };
  }

  async mkdir(caller: Principal, xid: string, rawPath: string): Promise<string> {
    const located = await this.locate(caller, xid, 'pause_mkdir');
    const path = resolveStoragePath(rawPath, located.home);
    // Stryker disable next-line ConditionalExpression,StringLiteral: the root exists, and every storage says so too; said here before asking it
    if (path === '/') throw new MkdirExistsError(path);
    // Stryker disable next-line StringLiteral: any access but 'r' is a write
    this.assertAllowed(located, path, 'rw');
    await this.storageCall(located, path, () => located.storage.mkdir(path));
    return path;
  }

  async rename(caller: Principal, xid: string, rawOld: string, rawNew: string): Promise<void> {
    const located = await this.locate(caller, xid, 'pause_rename');
    const from = resolveStoragePath(rawOld, located.home);
    const to = resolveStoragePath(rawNew, located.home);
    if (from === '/' || to === '/') throw new BadRequestError("Invalid path: the endpoint's root cannot be renamed, nor anything renamed onto it");
    if (isWithin(to, from)) throw new BadRequestError(`Invalid new_path '${to}': a directory cannot move into itself`);
    // Stryker disable next-line StringLiteral: any access but 'r' is a write
    this.assertAllowed(located, from, 'rw');
    // Stryker disable next-line StringLiteral: any access but 'r' is a write
    this.assertAllowed(located, to, 'rw');
    await this.storageCall(located, from, () => located.storage.rename(from, to));
  }

  /**
   * Where a task's item lies: the storage and the path in it of `rawPath` on an endpoint, for
   * `access` by the task's owner, refused as the file operations refuse (no access, a pause rule
   * that names `operation` in force for the owner, no storage). `shown`: the path as resolved on
   * the endpoint, for events and file lists.
   */
  async place(owner: Principal, xid: string, rawPath: string, access: Access, operation: TaskOperation, options: { makeParents?: boolean } = {}): Promise<TaskPlace> {
    return (await this.taskSide(owner, xid, access, operation)).place(rawPath, options);
  }

  /**
   * An endpoint as a task's attempt uses it, located once (the endpoint, the owner's roles and
   * rules there, the pause rules, its storage): `place` refuses as `place()` does, from what was
   * located. A task locates it again where rules could have changed since (its rechecks).
   */
  async taskSide(owner: Principal, xid: string, access: Access, operation: TaskOperation): Promise<TaskSide> {
    const located = await this.locate(owner, xid, operation);
    return {
      account: located.account?.account ?? null,
      place: async (rawPath, options = {}) => {
        const shown = resolveStoragePath(rawPath, located.home);
        const within = this.assertAllowed(located, shown, access);
        if (options.makeParents) await this.makeParents(located, shown);
        return { storage: located.storage, path: shown, shown, within };
      },
    };
  }

  /**
   * Makes the missing directories above `path` (a transfer's destination: the hosted service
   * makes them, for a file as for a directory), each where the caller may write; one stat when
   * the parent is there already. A file in the way is left for the copy to fail on.
   */
  private async makeParents(located: Located, path: string): Promise<void> {
    const missing: string[] = [];
    for (let dir = parentOf(path); dir !== '/'; dir = parentOf(dir)) {
      const entry = await this.storageCall(located, dir, () => located.storage.stat(dir)).catch((error: unknown) => {
        if (error instanceof FileNotFoundError) return null;
        throw error;
      });
      if (entry !== null) break;
      missing.unshift(dir);
    }
    for (const dir of missing) {
      this.assertAllowed(located, dir, 'rw');
      await located.storage.mkdir(dir).catch((error: unknown) => {
        // made meanwhile by another file of the task, or another task
        if (!(error instanceof StorageError && error.failure === 'exists')) throw error;
      });
    }
  }

  /**
   * Where a data node serves `rawPath` of an endpoint to the caller for `access` (its HTTPS
   * access): the node, its directory, the base a share sees it from, and the path there; refused as
   * the file operations refuse (no access, a pause rule naming `operation`), or ResourceNotFound
   * when the endpoint's storage is not on a node.
   */
  async onNode(caller: Principal, xid: string, rawPath: string, access: Access, operation: TaskOperation): Promise<{ node: string; root: string; base: string; path: string; actingAs: ActingAs | null }> {
    const reached = await this.reach(caller, xid, operation);
    const attached = reached.attachment;
    if (attached?.type !== 'node') throw new ResourceNotFoundError(`Endpoint '${reached.endpoint.id}' is not served by a data node`);
    const path = resolveStoragePath(rawPath, reached.home);
    this.assertAllowed(reached, path, access);
    return { node: attached.node, root: attached.root, base: reached.base, path, actingAs: reached.account };
  }

  /**
   * The endpoint, the storage its paths live on (a share's host's, from its host_path), and what
   * decides access there; refused when a pause rule in force for the caller pauses `operation`.
   */
  private async locate(caller: Principal, xid: string, operation: FileOperation): Promise<Located> {
    const reached = await this.reach(caller, xid, operation);
    const attached = reached.attachment;
    const storage = reached.host ? this.storages.storageOf(reached.host.id, attached, reached.base, reached.account ?? undefined) : null;
    if (!storage) throw attached?.type === 'node' ? new NodeNotReachableError(reached.endpoint.id, attached.node) : new EndpointNotConnectedError(reached.endpoint.id);
    return { ...reached, storage };
  }

  /** What decides the caller's access to an endpoint's files, and where they are attached (its host's storage, from `base`). */
  private async reach(caller: Principal, xid: string, operation: FileOperation): Promise<Reached> {
    const repos: Repos = this.uow.repositories;
    const now = this.clock.now();
    const { endpoint, roles, rules } = await endpointWithFiles(repos, caller, xid, now);
    const shared = endpoint.kind === 'shared';
    const host = shared ? (await hostRolesOf(repos, caller, endpoint.hostEndpointId)).host : endpoint;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: an endpoint that is its own host is checked twice, with the same answer
    for (const paused of host && host !== endpoint ? [endpoint, host] : [endpoint]) {
      const rule = (await repos.pauseRules.listForEndpoint(paused.id)).find((r) => r[operation] && pauseRuleInForce(r, caller.identityIds, now));
      if (rule) throw new OperationPausedError(`Paused by endpoint '${paused.id}': ${rule.message}`);
    }
    const loginRefused = (detail: string) => new IdentityNotMappedError(LOGIN_FAILED[operation], { id: endpoint.id, displayName: endpoint.displayName }, detail);
    const account = host ? await this.localAccount(repos, endpoint, host, caller, loginRefused) : null;
    // a share sees its host's storage from host_path down, and nothing above it
    const base = shared ? resolveStoragePath(endpoint.snapshot.host_path ?? '/', `/home/${shortUsername(endpoint.snapshot.owner_string)}`) : '/';
    const defaultDirectory = endpoint.snapshot.default_directory;
    // Stryker disable next-line StringLiteral: a home without ~ needs none resolved, and '' and '/' are the same home
    const home = defaultDirectory && !defaultDirectory.includes('~') ? resolveStoragePath(defaultDirectory, '/') : shared ? '/' : `/home/${shortUsername(caller.primary.username)}`;
    const resolvedRules = rules.map((rule) => ({ path: resolveStoragePath(rule.path, home), permissions: rule.permissions }));
    return { endpoint, host, attachment: host?.snapshot.storage ?? null, base, roles, rules: resolvedRules, home, account, loginRefused };
  }

  /** The local account a mapped collection's files are used as (mappedAccountOf), refused in the hosted words where the identity maps to none. */
  private async localAccount(repos: Repos, endpoint: Endpoint, host: Endpoint, caller: Principal, refused: (detail: string) => IdentityNotMappedError): Promise<ActingAs | null> {
    const mapped = await mappedAccountOf(repos, endpoint, host, caller);
    if (mapped !== null && 'refused' in mapped) throw refused(mapped.refused);
    return mapped;
  }

  /** Refuses (EndpointPermissionDenied) unless the caller may `wanted` at `path`; the path the access that allows it covers (`/` for a role, else the widest rule's). */
  private assertAllowed(located: Reached, path: string, wanted: Access): string {
    const { endpoint, roles, rules } = located;
    // a mapped collection's files are its account's: the operating system decides what it may use
    if (roles.includes('administrator') || (located.account !== null && endpoint.kind !== 'shared')) return '/';
    // Stryker disable next-line ConditionalExpression: only shares have access managers and access rules
    if (endpoint.kind === 'shared') {
      if (roles.includes('access_manager')) return '/';
      const allowing = rules.filter((rule) => isWithin(path, rule.path) && (wanted === 'r' || rule.permissions === 'rw'));
      if (allowing.length > 0) return allowing.reduce((widest, rule) => (rule.path.length < widest.length ? rule.path : widest), allowing[0]!.path);
    }
    throw new EndpointPermissionDeniedError(`Denied by endpoint '${endpoint.id}': you may not ${wanted === 'r' ? 'read' : 'write'} '${path}'`);
  }

  /** A StorageError as what a caller is told; anything else goes on up. */
  private async storageCall<T>(located: Located, path: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof StorageError)) throw error;
      switch (error.failure) {
        case 'not_found':
          throw new FileNotFoundError(path);
        case 'exists':
          throw new MkdirExistsError(path);
        case 'not_directory':
          throw new BadRequestError(`Path '${path}' or its parent is not a directory`);
        case 'is_directory':
          throw new BadRequestError(`Path '${path}' is a directory`);
        case 'special_file':
          throw new BadRequestError(`Path '${path}' is not a regular file (a FIFO, a socket or a device)`);
        case 'login_denied':
          throw located.loginRefused(error.message);
        case 'invalid_name':
          throw new InvalidPathError(`Invalid path '${path.slice(0, 200)}': a name in it is longer than the storage takes (${error.message})`);
        default:
          throw new EndpointPermissionDeniedError(`Denied by endpoint: '${path}' may not be used: ${error.message}`);
      }
    }
  }
}

/** Whether a rule's principal is the caller: one of its identities or groups, or everyone signed in. */
function ruleNamesCaller(rule: AccessRuleState, caller: Principal): boolean {
  switch (rule.principal_type) {
    case 'identity':
      return caller.identityIds.has(rule.principal);
    case 'group':
      return caller.groupIds.has(rule.principal);
    default:
      // all_authenticated_users and anonymous: every caller here is signed in, and may read what anyone may
      return true;
  }
}

function present(entries: (FileEntry | null)[]): FileEntry[] {
  return entries.filter((entry): entry is FileEntry => entry !== null);
}

