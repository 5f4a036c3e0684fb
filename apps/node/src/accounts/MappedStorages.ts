import { refusalOf, StorageError, type ActingAs, type MappedRootPolicy, type Storage } from '@xfer/core';
import { RestrictedStorage } from '@xfer/storage';
import { relative, isAbsolute } from 'node:path';
import { Unauthorized } from '../http/requests';
import type { AccountHelper, AccountHelpers } from './AccountHelpers';
import { AccountRefused, type LocalAccount, type LocalAccounts } from './LocalAccounts';

/** The node's own storage of a directory, from `base` down. */
type OwnStorageAt = (root: string, base: string) => Storage;

/**
 * The storages of the node's directories as the API's calls name them: a mapped collection's (its
 * gateway maps identities) only as the local account each call names, looked up on this machine,
 * admitted by the gateway's allow and deny lists and held to its path restrictions; any other
 * directory as the node's own account, and never as another.
 */
export class MappedStorages {
  constructor(
    private readonly accounts: LocalAccounts,
    /** The node's helpers (null: the node does not run as root, and acts only as itself). */
    private readonly helpers: AccountHelpers | null,
    private readonly ownAt: OwnStorageAt,
    /** The node's own account: the one it acts as without a helper. */
    private readonly nodeUid: number,
  ) {}

  async at(policy: MappedRootPolicy | null, root: string, base: string, actingAs: ActingAs | undefined): Promise<Storage> {
    const local = await this.admitted(policy, actingAs, base);
    if (local === null || local.uid === this.nodeUid) return this.restricted(policy, root, base, local, this.ownAt(root, base));
    return this.restricted(policy, root, base, local, await this.helpers!.storageOf(local, root, base));
  }

  /**
   * The client of the helper acting as the account a call names, admitted as `at` admits it, to
   * hand it a copy's whole work; null where the node does it itself: no account, the node's own,
   * or path restrictions (each path then passes the node's checks).
   */
  async helperOf(policy: MappedRootPolicy | null, actingAs: ActingAs | undefined): Promise<AccountHelper | null> {
    const local = await this.admitted(policy, actingAs, '/');
    if (local === null || local.uid === this.nodeUid || policy?.restrict_paths) return null;
    return this.helpers!.reach(local);
  }

  /** The account a call acts as, checked (null: none, the directory being no mapped collection's); refused as 403 or login_denied. */
  private async admitted(policy: MappedRootPolicy | null, actingAs: ActingAs | undefined, base: string): Promise<LocalAccount | null> {
    const account = actingAs?.account;
    if (policy === null) {
      if (account !== undefined) throw new Unauthorized('account: no mapped collection is bound to this directory of the node, which acts as no local account there', true);
      return null;
    }
    if (account === undefined) throw new Unauthorized("account: this directory is a mapped collection's: each call names the local account it acts as", true);
    const local = await this.accounts.lookUp(account).catch((error: unknown) => {
      throw error instanceof AccountRefused ? new StorageError('login_denied', base, error.message) : error;
    });
    const refusal = refusalOf(policy, local);
    if (refusal !== null) throw new StorageError('login_denied', base, refusal);
    if (local.uid !== this.nodeUid && this.helpers === null) throw new StorageError('login_denied', base, `the node does not run as root: it acts as no account but its own, not as '${account}'`);
    return local;
  }

  private restricted(policy: MappedRootPolicy | null, root: string, base: string, local: LocalAccount | null, storage: Storage): Storage {
    return policy?.restrict_paths && local ? new RestrictedStorage(storage, policy.restrict_paths, { home: homeWithin(root, local), user: local.name }, base) : storage;
  }
}

/** The account's home as a path of the directory `root` (where `~` points in its path restrictions); outside it, as it is. */
function homeWithin(root: string, account: LocalAccount): string {
  const within = relative(root, account.home);
  return within.startsWith('..') || isAbsolute(within) ? account.home : `/${within}`;
}
