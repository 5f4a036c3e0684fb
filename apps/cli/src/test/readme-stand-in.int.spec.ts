import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..', '..', '..');
const run = promisify(execFile);

/** The README's "Testing your code against xfer" section: its code blocks, by language, in order. */
function readmeSection(): { blocks: { lang: string; code: string }[]; text: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Testing your code against xfer');
  const text = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const blocks = [...text.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2] }));
  return { blocks, text };
}

const block = (lang: string, index = 0): string => {
  const found = readmeSection().blocks.filter((b) => b.lang === lang)[index];
  if (!found) throw new Error(`the README's stand-in section has no ${lang} block #${index + 1}`);
  return found.code;
};

/**
 * Every example of the README's stand-in section, run as printed: in a folder inside the checkout,
 * where `npx xfer` finds the command as it does in a project that depends on xfer.
 */
describe("the README's stand-in examples, as printed", () => {
  let dir: string;
  const children: ChildProcess[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(ROOT, '.readme-examples-'));
    writeFileSync(join(dir, 'seed.json'), block('json'));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** A shell line of the README, run in the example folder; resolves with its first line of output. */
  async function startLine(line: string): Promise<string> {
    const child = spawn('bash', ['-c', `exec ${line}`], { cwd: dir, env: { ...process.env, HOST: '127.0.0.1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit').then(() => {
      throw new Error(`'${line}' exited before printing a line: ${stderr}`);
    });
    const printed = once(createInterface({ input: child.stdout! }), 'line').then(([l]) => l as string);
    return Promise.race([printed, exited]);
  }

  it('starts the stand-in with the seed as printed, and `xfer env` prints the export lines', async () => {
    const [serve, env] = block('sh').split('\n').filter((l) => l.startsWith('npx '));
    const url = await startLine(serve.replace(/\s+#.*$/, ''));
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const seed = JSON.parse(block('json')) as { tokens: { value: string }[]; endpoints: { id: string; display_name: string }[] };
    const got = await fetch(`${url}/v0.10/endpoint/${seed.endpoints[0].id}`, { headers: { Authorization: `Bearer ${seed.tokens[0].value}` } });
    expect(await got.json()).toMatchObject({ display_name: seed.endpoints[0].display_name });
    const printedUrl = /--url (\S+)/.exec(env)![1];
    const { stdout } = await run('bash', ['-c', env.replace(/\s+#.*$/, '')], { cwd: dir });
    expect(stdout).toContain(`export GLOBUS_SDK_SERVICE_URL_TRANSFER=${printedUrl}/`);
    expect(stdout).toContain(`export GLOBUS_SDK_SERVICE_URL_AUTH=${printedUrl}/`);
  });

  it("answers every control route of the README's table as it says", async () => {
    const url = await startLine('npx xfer serve --ephemeral --port 0 --seed seed.json --exit-on-stdin-close');
    const rows = readmeSection().text.split('\n').filter((l) => l.startsWith('| `') && l.includes('/_xfer/'));
    const routes = rows.map((row) => {
      const [route, what] = row.split(' | ');
      return { methods: [...route.matchAll(/`(GET|POST|DELETE)/g)].map((m) => m[1]), path: /(\/_xfer\/[a-z]+)(\[\?([^\]]+)\])?/.exec(route)!, what };
    });
    expect(routes.map((r) => `${r.methods.join(',')} ${r.path[1]}`)).toEqual(['GET /_xfer/health', 'POST /_xfer/reset', 'GET /_xfer/requests', 'POST /_xfer/faults', 'GET,DELETE /_xfer/faults', 'POST /_xfer/faults', 'GET,POST /_xfer/tasks', 'POST /_xfer/tasks']);
    const [health, reset, requests, addFault, faults, storageFault, progress] = routes;
    // the storage fault as printed, on the seed's endpoint
    const printed = JSON.parse(/`(\{"endpoint"[^`]*\})`/.exec(storageFault.what)![1]) as Record<string, unknown>;
    const seeded = JSON.parse(block('json')) as { endpoints: { id: string }[] };
    const added = await fetch(`${url}/_xfer/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...printed, endpoint: seeded.endpoints[0].id }) });
    expect(added.status).toBe(201);
    expect((await fetch(`${url}/_xfer/faults`, { method: 'DELETE' })).status).toBe(200);
    // each mode the table names, set as printed, read back; a reset goes back to background
    const modes = [...progress.what.matchAll(/`(\{"mode": "[a-z]+"\})`/g)].map((m) => JSON.parse(m[1]) as { mode: string });
    expect(modes.map((m) => m.mode)).toEqual(['background', 'immediate', 'manual']);
    for (const mode of modes) {
      expect((await fetch(`${url}/_xfer/tasks/progress`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(mode) })).status).toBe(200);
      expect(await (await fetch(`${url}/_xfer/tasks/progress`)).json()).toEqual(mode);
    }
    expect((await fetch(`${url}${health.path[1]}`)).status).toBe(200);
    // the fault as the table prints it, then the requests it answers
    const fault = JSON.parse(/`(\{"method"[^`]*\})`/.exec(addFault.what)![1]) as { path: string; status: number };
    expect((await fetch(`${url}${addFault.path[1]}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(fault) })).status).toBe(201);
    expect(((await (await fetch(`${url}${faults.path[1]}`)).json()) as { faults: unknown[] }).faults).toHaveLength(1);
    const faulted = await fetch(`${url}${fault.path}some-id`);
    expect(faulted.status).toBe(fault.status);
    expect(faulted.headers.get('retry-after')).toBe('1');
    expect(((await (await fetch(`${url}${requests.path[1]}?${requests.path[3]}`)).json()) as { requests: { status: number }[] }).requests).toEqual([expect.objectContaining({ status: fault.status })]);
    expect((await fetch(`${url}${faults.path[1]}`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${url}${reset.path[1]}`, { method: 'POST' })).status).toBe(200);
    expect(await (await fetch(`${url}/_xfer/tasks/progress`)).json()).toEqual({ mode: 'background' });
    expect(((await (await fetch(`${url}${requests.path[1]}`)).json()) as { requests: unknown[] }).requests).toEqual([]);
  });

  it('runs the Jest example as printed, with the hosted service\'s JavaScript SDK', async () => {
    writeFileSync(join(dir, 'example.test.ts'), block('ts'));
    const config = { rootDir: dir, testEnvironment: 'node', transform: { '^.+\\.ts$': '@swc/jest' }, testMatch: ['<rootDir>/example.test.ts'] };
    const jest = spawn(process.execPath, [join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', JSON.stringify(config), '--ci'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(jest);
    let output = '';
    jest.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    jest.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const [code] = await once(jest, 'exit');
    expect({ code, output }).toMatchObject({ code: 0, output: expect.stringContaining('2 passed') });
  });

  it('runs the pytest conftest as printed (with small stand-ins for pytest and globus_sdk, which a machine with only Node lacks)', async () => {
    writeFileSync(join(dir, 'conftest.py'), block('python', 0));
    const shims = join(__dirname, 'readme-examples');
    const { stdout } = await run('python3', ['-m', 'pytest', 'conftest.py'], { cwd: dir, env: { ...process.env, PYTHONPATH: shims } });
    expect(stdout).toContain('PASSED test_seeded_endpoint');
    expect(stdout).toContain('PASSED test_seeded_files');
  });
});
