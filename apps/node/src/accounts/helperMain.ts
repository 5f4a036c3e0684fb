import type { LocalAccount } from './LocalAccounts';

/**
 * A helper of the node for one local account: forked by the node (as root), it takes the account's
 * supplementary groups, its group and its user before it loads or reads anything else, then serves
 * the node's storage protocol on a Unix socket only the node and the account reach. Every file it
 * touches, it touches as the account: the operating system's permissions decide, new files are the
 * account's. It never parses a network request as root.
 */

/** What the node tells its helper first, over the IPC channel. */
export interface HelperStart {
  account: LocalAccount;
  socketPath: string;
  uploadIdleMs: number;
  peerCa?: string;
}

/** Becomes the account for good: groups, group, user; then checks that root cannot come back. */
function become(account: LocalAccount): void {
  if (account.uid === 0) throw new Error('no helper acts as root');
  // POSIX only (the node's machine); typed as optional because Windows has none of them
  const ids = process as unknown as Required<Pick<NodeJS.Process, 'setuid' | 'setgid' | 'getuid' | 'geteuid' | 'getegid'>> & { initgroups(user: string, group: number): void };
  ids.initgroups(account.name, account.gid);
  ids.setgid(account.gid);
  ids.setuid(account.uid);
  let regained = false;
  try {
    ids.setuid(0);
    regained = true;
  } catch {
    // as it must be: the saved user is the account's too
  }
  if (regained || ids.getuid() !== account.uid || ids.geteuid() !== account.uid || ids.getegid() !== account.gid) throw new Error(`the helper is not ${account.name} alone`);
}

process.once('message', (start: HelperStart) => {
  void (async () => {
    become(start.account);
    // the server (express, the storage protocol) is loaded only once the helper is the account
    const { serveAccountStorage } = await import('./helperServer');
    await serveAccountStorage(start.socketPath, start.uploadIdleMs, start.peerCa);
    process.send!({ ready: true });
  })().catch((error: unknown) => {
    process.send!({ failed: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  });
});
// the node gone, its helpers go too
process.on('disconnect', () => process.exit(0));
