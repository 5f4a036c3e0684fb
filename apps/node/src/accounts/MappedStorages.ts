import { refusalOf, StorageError, type ActingAs, type MappedRootPolicy, type Storage } from '@xfer/core';
import { RestrictedStorage } from '@xfer/storage';
import { relative, isAbsolute } from 'node:path';
import { Unauthorized } from '../http/requests';
import type { AccountHelpers } from './AccountHelpers';
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
    const account = actingAs?.account;
    if (policy === null) {
      if (account !== undefined) throw new Unauthorized('account: no mapped collection is bound to this directory of the node, which acts as no local account there', true);
      return this.ownAt(root, base);
    }
    if (account === undefined) throw new Unauthorized("account: this directory is a mapped collection's: each call names the local account it acts as", true);
    const local = await this.accounts.lookUp(account).catch((error: unknown) => {
      throw error instanceof AccountRefused ? new StorageError('login_denied', base, error.message) : error;
    });
    const refusal = refusalOf(policy, local);
    if (refusal !== null) throw new StorageError('login_denied', base, refusal);
    let storage: Storage;
    if (local.uid === this.nodeUid) storage = this.ownAt(root, base);
    else if (this.helpers === null) throw new StorageError('login_denied', base, `the node does not run as root: it acts as no account but its own, not as '${account}'`);
    else storage = await this.helpers.storageOf(local, root, base);
    return policy.restrict_paths ? new RestrictedStorage(storage, policy.restrict_paths, { home: homeWithin(root, local), user: local.name }, base) : storage;
  }
}

/** The account's home as a path of the directory `root` (where `~` points in its path restrictions); outside it, as it is. */
function homeWithin(root: string, account: LocalAccount): string {
  const within = relative(root, account.home);
  return within.startsWith('..') || isAbsolute(within) ? account.home : `/${within}`;
}
