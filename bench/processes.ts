import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { freePort } from '@xfer/server-kit';

/** Starting, watching and stopping the processes a benchmark measures (loopback only). */

export async function waitFor(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function start(script: string, env: Record<string, string>, health: (port: number) => string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, PORT: String(port), API_PORT: String(port), AUTH_PORT: String(port), CONSOLE_PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor(health(port), child);
  return { port, child };
}

/** Peak resident set size of a process so far (Linux), in MB. */
export function peakRssMb(child: ChildProcess): number | null {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
    return Math.round(kb / 1024);
  } catch {
    return null;
  }
}

/**
 * CPU seconds a process and the processes it runs (a node's helpers) have used so far (Linux,
 * /proc/<pid>/stat), user and system apart: a copy's whole cost, wherever its work is done.
 */
export function cpuSeconds(child: ChildProcess): { user: number; system: number } {
  return cpuOfTree(child.pid!);
}

function cpuOfTree(pid: number): { user: number; system: number } {
  let user = 0;
  let system = 0;
  try {
    // the fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks (100 a second)
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    user = Number(fields[11]) / 100;
    system = Number(fields[12]) / 100;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const kid of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) {
        const spent = cpuOfTree(Number(kid));
        user += spent.user;
        system += spent.system;
      }
    }
  } catch {
    // a process gone meanwhile: what was read of it
  }
  return { user, system };
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** The first line a process prints on stdout (a server's URL, once it answers). */
export function firstLine(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before it answered`)));
  });
}

/** The stand-in's URL, the first line it prints. */
export const standInUrl = firstLine;
