import { readFileSync } from 'node:fs';

/** How often a command started by npm looks whether npm is still there. */
const LAUNCHER_CHECK_MS = 500;

/** What npm runs a script or a package's bin in: `sh -c` (dash on Debian), or the user's script-shell. */
const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ash']);

/** A process's name and parent from /proc (Linux); null where there is no /proc or the process is gone. */
function processInfo(pid: number): { name: string; parent: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (name) state ppid ...: the name may hold spaces and parentheses
    const close = stat.lastIndexOf(')');
    return { name: stat.slice(stat.indexOf('(') + 1, close), parent: Number(stat.slice(close + 2).split(' ')[1]) };
  } catch {
    return null;
  }
}

/** Whether a process of this id exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * npm runs a script and `npx xfer` under `sh -c`, and passes a signal to neither: Debian's sh
 * (dash) forwards none, and `npx` ends alone on SIGTERM, leaving the shell and the server (with
 * its ports) behind. A command npm started (it says so in npm_command) watches the first ancestor
 * that is not a shell, npm itself, and stops as on SIGTERM, through the handlers the command
 * installed, once npm is gone. A server started otherwise (systemd, nohup, a harness that runs
 * `xfer` directly) is left alone.
 */
export function stopWhenLauncherGone(env: NodeJS.ProcessEnv): void {
  if (env.npm_command === undefined) return;
  let launcher = process.ppid;
  for (let info = processInfo(launcher); info !== null && SHELLS.has(info.name) && info.parent > 1; info = processInfo(launcher)) launcher = info.parent;
  const check = setInterval(() => {
    if (alive(launcher)) return;
    clearInterval(check);
    process.kill(process.pid, 'SIGTERM');
  }, LAUNCHER_CHECK_MS);
  // never what keeps a command running
  check.unref();
}
