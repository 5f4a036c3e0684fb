import { StorageError, type MappedRootPolicy, type Storage } from '@xfer/core';
import { MemoryTree, RestrictedStorage } from '@xfer/storage';
import { Unauthorized } from '../http/requests';
import { AccountRefused, type LocalAccount, type LocalAccounts } from './LocalAccounts';
import { MappedStorages } from './MappedStorages';

const ANN: LocalAccount = { name: 'ann', uid: 1001, gid: 1001, home: '/home/ann', groups: ['ann', 'lab'] };
const NODE: LocalAccount = { name: 'xfer', uid: 999, gid: 999, home: '/var/lib/xfer', groups: ['xfer'] };
const OPEN: MappedRootPolicy = { users_allow: [], users_deny: [], groups_allow: [], groups_deny: [], restrict_paths: null };
const as = (account: string) => ({ account, policy: 'digest' });

/** The node's machine as these tests see it: ann, and the account the node runs as. */
const accounts = {
  lookUp: async (name: string) => {
    const found = [ANN, NODE].find((account) => account.name === name);
    if (!found) throw new AccountRefused(`Identity mapped to a local user name, but local user does not exist. Local user name: ${name}`);
    return found;
  },
} as unknown as LocalAccounts;

async function refusalOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'done';
  } catch (error) {
    if (error instanceof StorageError) return `${error.failure}: ${error.message}`;
    if (error instanceof Unauthorized) return `403: ${error.message}`;
    throw error;
  }
}

describe("a node's storages of mapped collections, as the account each call names", () => {
  const own: Storage = new MemoryTree({ '/a.txt': 'a' }).storage;
  // a node that does not run as root: no helpers, it acts as its own account alone
  const storages = new MappedStorages(accounts, null, () => own, NODE.uid);

  it("serves a directory no mapped collection is bound to as the node's own, and never as an account", async () => {
    expect(await storages.at(null, '/srv', '/', undefined)).toBe(own);
    expect(await refusalOf(storages.at(null, '/srv', '/', as('ann')))).toMatch(/^403: account: no mapped collection is bound to this directory/);
  });

  it("refuses a mapped collection's call that names no account, an account the machine lacks, and one the lists refuse", async () => {
    expect(await refusalOf(storages.at(OPEN, '/srv', '/', undefined))).toMatch(/^403: account: this directory is a mapped collection's/);
    expect(await refusalOf(storages.at(OPEN, '/srv', '/', as('bob')))).toBe('login_denied: Identity mapped to a local user name, but local user does not exist. Local user name: bob');
    expect(await refusalOf(storages.at({ ...OPEN, users_deny: ['ann'] }, '/srv', '/', as('ann')))).toBe("login_denied: the account 'ann' is denied access (users_deny)");
    expect(await refusalOf(storages.at({ ...OPEN, groups_deny: ['lab'] }, '/srv', '/', as('ann')))).toBe("login_denied: a group of the account 'ann' is denied access (groups_deny)");
  });

  it('acts as no account but its own when it does not run as root', async () => {
    expect(await refusalOf(storages.at(OPEN, '/srv', '/', as('ann')))).toBe("login_denied: the node does not run as root: it acts as no account but its own, not as 'ann'");
    expect(await refusalOf(storages.helperOf(OPEN, as('ann')))).toMatch(/^login_denied: the node does not run as root/);
    expect(await storages.at(OPEN, '/srv', '/', as('xfer'))).toBe(own);
    expect(await storages.helperOf(OPEN, as('xfer'))).toBeNull();
  });

  it("holds the account to the gateway's path restrictions", async () => {
    const restricted = await storages.at({ ...OPEN, restrict_paths: { DATA_TYPE: 'path_restrictions#1.0.0', read: ['/'], read_write: [], none: [] } }, '/srv', '/', as('xfer'));
    expect(restricted).toBeInstanceOf(RestrictedStorage);
    expect(await refusalOf(restricted.mkdir('/new'))).toBe('denied: read only: the path restrictions of this storage let nobody change it');
  });
});
