import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '@xfer/server-kit';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** Whether something accepts connections on the port of loopback. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => socket.destroy() && resolve(true)).once('error', () => resolve(false));
  });
}

async function until(condition: () => Promise<boolean>, what: () => string, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what()}: not within ${ms} ms`);
}

/** This process's environment without what npm put in it (a supervisor's is clean: npm would take npm_config_local_prefix and run this project's scripts instead). */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_'))), ...extra };
}

async function distinctPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  return ports;
}

/**
 * Supervisors, containers and test harnesses stop what they started by its pid: a server started
 * the README's way stops on SIGTERM and SIGINT sent to the command's own pid (npm's, npx's), its
 * ports free again.
 */
describe('servers started the README way (npm start, npx xfer) stop on a signal to the command they were started by', () => {
  let dir: string;
  let child: ChildProcess | null;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-signals-'));
    child = null;
  });
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['SIGTERM', 'SIGINT'] as const)("npm start: %s to npm's pid stops the servers", async (signal) => {
    // the README's `npm start`, as package.json has it, run by npm in a folder of its own (its
    // build step made a no-op: the project is built, and a build meanwhile would change files
    // other suites run)
    const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'signals', version: '1.0.0', private: true, scripts: { build: 'true', start } }));
    symlinkSync(join(ROOT, 'apps'), join(dir, 'apps'));
    const [api, auth, console_] = await distinctPorts(3);
    const env = cleanEnv({ HOST: '127.0.0.1', API_PORT: String(api), AUTH_PORT: String(auth), CONSOLE_PORT: String(console_), DATABASE_URL: `sqlite:${join(dir, 'xfer.sqlite')}` });
    child = spawn('npm', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = once(child, 'exit');
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await until(async () => (await listening(api!)) && (await listening(auth!)) && (await listening(console_!)), () => `npm start listening (it said: ${output})`);
    child.kill(signal);
    await until(async () => !(await listening(api!)) && !(await listening(auth!)) && !(await listening(console_!)), () => `the ports freed after ${signal} (npm said: ${output})`);
    // npm itself ends too, the way a supervisor waits for it
    await exited;
  });

  // the project's .npmrc runs npm's scripts with bash, which passes signals on; with sh (dash, as
  // npx has outside this project) the stand-in notices npx is gone
  it.each([
    ['SIGTERM', null],
    ['SIGINT', null],
    ['SIGTERM', 'sh'],
  ] as const)("npx xfer serve --ephemeral: %s to npx's pid stops the stand-in (script shell: %s)", async (signal, shell) => {
    child = spawn('npx', ['xfer', 'serve', '--ephemeral', '--port', '0'], { cwd: ROOT, env: cleanEnv({ HOST: '127.0.0.1', ...(shell && { npm_config_script_shell: shell }) }), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.resume();
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    const port = Number(new URL(line).port);
    expect(await listening(port)).toBe(true);
    child.kill(signal);
    await until(async () => !(await listening(port)), () => `the stand-in's port freed after ${signal}`);
  });
});
