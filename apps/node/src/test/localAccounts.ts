import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A local account a test made on this machine (`useradd`), removed by `removeAccounts`. */
export interface TestAccount {
  name: string;
  uid: number;
  gid: number;
  /** Its group of the test (a supplementary group), when made with one. */
  group?: string;
}

/** A name no earlier run left behind: a test's accounts are its own. */
export const accountName = (prefix: string) => `${prefix}${randomBytes(4).toString('hex')}`;

/** Makes a local account (no home made, no login shell), with a supplementary group when asked. */
export function addAccount(name: string, group?: string): TestAccount {
  if (group) execFileSync('groupadd', [group]);
  execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', ...(group ? ['--groups', group] : []), name]);
  const uid = Number(execFileSync('id', ['-u', name]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', name]).toString().trim());
  return { name, uid, gid, ...(group && { group }) };
}

export function removeAccounts(accounts: readonly TestAccount[]): void {
  for (const account of accounts) {
    execFileSync('userdel', [account.name], { stdio: 'ignore' });
    // useradd's own group of the account goes with it; a test's group is removed here
    if (account.group) execFileSync('groupdel', [account.group], { stdio: 'ignore' });
  }
}

/** A directory of `account` (mode 700) holding `files`, each the account's too. */
export function homeOf(account: TestAccount, dir: string, files: Record<string, string> = {}): string {
  mkdirSync(dir, { recursive: true });
  chownSync(dir, account.uid, account.gid);
  chmodSync(dir, 0o700);
  for (const [path, content] of Object.entries(files)) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    chownSync(file, account.uid, account.gid);
  }
  return dir;
}

/** Each directory from `dir` up to `/` open for every account to pass (a test's temp directories are root's, mode 700). */
export function passable(dir: string): void {
  for (let at = dir; at !== dirname(at); at = dirname(at)) {
    const mode = statSync(at).mode & 0o777;
    if ((mode & 0o005) !== 0o005) chmodSync(at, mode | 0o005);
  }
}

/** Who owns a file: uid and gid. */
export function ownerOf(path: string): { uid: number; gid: number } {
  const { uid, gid } = statSync(path);
  return { uid, gid };
}
