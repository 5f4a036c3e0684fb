import { fork, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Storage } from '@xfer/core';
import { NodeClient, NodeStorage } from '@xfer/storage';
import type { HelperStart } from './helperMain';
import type { LocalAccount } from './LocalAccounts';

/** The helper's script: beside this module when built; from the build when this runs from its source (tests). */
function helperEntry(): string {
  const beside = join(__dirname, 'helperMain.js');
  return existsSync(beside) ? beside : join(__dirname, '..', '..', 'dist', 'accounts', 'helperMain.js');
}

/** How long a helper may take to start. */
const START_MS = 15_000;
/** A helper nobody used for this long is stopped (the next call starts another). */
const IDLE_MS = 5 * 60_000;

/** How the node reaches an account's helper. */
export interface AccountHelper {
  client: NodeClient;
  socketPath: string;
}

interface Helper extends AccountHelper {
  account: LocalAccount;
  child: ChildProcess;
  lastUse: number;
}

/**
 * The node's helpers, one per local account it acts as (started on first use, stopped when idle
 * or when the node stops): a directory's storage as an account is reached through its helper,
 * whose every file access is the account's. The node itself may run as root; it parses requests,
 * its helpers touch the files.
 */
export class AccountHelpers {
  private readonly helpers = new Map<string, Promise<Helper>>();
  private readonly dir: string;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly uploadIdleMs: number,
    /** A CA the helpers trust for other nodes (a pull's source) beside the system's and NODE_EXTRA_CA_CERTS. */
    private readonly peerCa?: string,
  ) {
    // root's own directory (0711): each account's socket lies in a directory of its own within
    this.dir = mkdtempSync(join(tmpdir(), 'xfer-node-accounts-'));
    chmodSync(this.dir, 0o711);
    this.timer = setInterval(() => void this.stopIdle(), 30_000);
    this.timer.unref();
  }

  /** The storage of `root` (from `base`) as `account` reaches it. */
  async storageOf(account: LocalAccount, root: string, base: string): Promise<Storage> {
    return new NodeStorage((await this.reach(account)).client, root, root, base);
  }

  /** `account`'s helper: its client (the storage protocol, a pull) and its socket (a grant's files, relayed). */
  async reach(account: LocalAccount): Promise<AccountHelper> {
    const helper = await this.helperFor(account);
    helper.lastUse = Date.now();
    return { client: helper.client, socketPath: helper.socketPath };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const all = await Promise.all([...this.helpers.values()].map((helper) => helper.catch(() => null)));
    this.helpers.clear();
    await Promise.all(all.map((helper) => (helper ? this.stop(helper) : undefined)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private helperFor(account: LocalAccount): Promise<Helper> {
    const name = account.name;
    let helper = this.helpers.get(name);
    if (!helper) {
      helper = this.start(account);
      this.helpers.set(name, helper);
      helper.catch(() => this.helpers.delete(name));
    }
    return helper;
  }

  private async start(account: LocalAccount): Promise<Helper> {
    const name = account.name;
    // the account's own directory (0700): the node (root) and the account reach its socket, nobody else
    const home = join(this.dir, String(account.uid));
    mkdirSync(home, { recursive: true, mode: 0o700 });
    chownSync(home, account.uid, account.gid);
    const socketPath = join(home, 'storage.sock');
    const child = fork(helperEntry(), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
    const start: HelperStart = { account, socketPath, uploadIdleMs: this.uploadIdleMs, peerCa: this.peerCa };
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the helper of '${name}' did not start within ${START_MS / 1000} s`)), START_MS);
        child.once('message', (message: { ready?: boolean; failed?: string }) => {
          clearTimeout(timer);
          if (message.ready) resolve();
          else reject(new Error(`the helper of '${name}' could not start: ${message.failed ?? 'no reason given'}`));
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`the helper of '${name}' stopped (${code})`));
        });
        child.send(start);
      });
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    const client = new NodeClient(`${name} (local account)`, { find: async () => ({ url: 'http://localhost', socketPath }), signer: { sign: async () => 'account-helper' } });
    const helper: Helper = { account, child, client, socketPath, lastUse: Date.now() };
    // a helper that dies is started again on the next call
    child.once('exit', () => {
      if (this.helpers.get(name) !== undefined) this.helpers.delete(name);
      void client.close();
    });
    return helper;
  }

  private async stopIdle(): Promise<void> {
    const now = Date.now();
    for (const [name, pending] of this.helpers) {
      const helper = await pending.catch(() => null);
      if (helper && now - helper.lastUse > IDLE_MS) {
        this.helpers.delete(name);
        await this.stop(helper);
      }
    }
  }

  private async stop(helper: Helper): Promise<void> {
    await helper.client.close();
    if (helper.child.exitCode === null) {
      const exited = new Promise((resolve) => helper.child.once('exit', resolve));
      helper.child.kill('SIGTERM');
      await exited;
    }
  }
}
