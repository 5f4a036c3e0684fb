import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A local account of the node's machine, as its name service knows it (NSS: files, LDAP, ...). */
export interface LocalAccount {
  name: string;
  uid: number;
  gid: number;
  home: string;
  /** Its primary group and supplementary groups, by name (a group without a name by its number). */
  groups: string[];
}

/** Why an account cannot be acted as: none by that name, or root. */
export class AccountRefused extends Error {}

/** How long an account's entry is kept before it is looked up again (a site's changes reach the node within this). */
const KEPT_MS = 60_000;
const NAME = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,63}$/;

/**
 * The node's machine's accounts, looked up with `getent` and `id` (the name service the site
 * configured, not only /etc/passwd), kept a minute. Root is never an account a collection acts as.
 */
export class LocalAccounts {
  private readonly known = new Map<string, { account: Promise<LocalAccount>; until: number }>();

  /** The account `name`; AccountRefused for none, or for uid 0. */
  lookUp(name: string): Promise<LocalAccount> {
    const now = Date.now();
    const kept = this.known.get(name);
    if (kept && kept.until > now) return kept.account;
    const account = this.read(name);
    this.known.set(name, { account, until: now + KEPT_MS });
    account.catch(() => this.known.delete(name));
    return account;
  }

  private async read(name: string): Promise<LocalAccount> {
    if (!NAME.test(name)) throw new AccountRefused(`Identity mapped to a local user name, but it is no local user name: '${name.slice(0, 64)}'`);
    const entry = await run('getent', ['passwd', name]).then(
      ({ stdout }) => stdout.trim().split('\n')[0] ?? '',
      () => '',
    );
    const [, , uid, gid, , home] = entry.split(':');
    if (!entry || uid === undefined || gid === undefined) throw new AccountRefused(`Identity mapped to a local user name, but local user does not exist. Local user name: ${name}`);
    if (Number(uid) === 0) throw new AccountRefused(`Identity mapped to the local user '${name}', which is root (uid 0): no collection acts as root`);
    const { stdout } = await run('id', ['-G', '-n', '--', name]).catch(() => ({ stdout: '' }));
    const groups = stdout.trim().split(/\s+/).filter(Boolean);
    return { name, uid: Number(uid), gid: Number(gid), home: home || '/', groups };
  }
}
