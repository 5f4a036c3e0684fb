import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '@xfer/server-kit';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** How each kind of process starts, where it is ready, and a POST route whose body it waits for. */
interface ProcessKind {
  name: string;
  start: (dir: string, port: number) => ChildProcess;
  /** Ready once this answers (or, for the stand-in, once it printed its URL). */
  ready: string | 'url line';
  post: string;
  /** A body the route reads before it answers. */
  body: { type: string; text: string };
}

const JSON_BODY = { type: 'application/json', text: '{"display_name":"in flight"}' };
const FORM_BODY = { type: 'application/x-www-form-urlencoded', text: 'grant_type=client_credentials&scope=openid' };

const env = (dir: string, extra: Record<string, string>) => ({ ...process.env, HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'xfer.sqlite')}`, LOG_LEVEL: 'silent', ...extra });

const KINDS: ProcessKind[] = [
  { name: 'the API (npm run start:api)', start: (dir, port) => spawn(process.execPath, [join(ROOT, 'apps/api/dist/main.js')], { env: env(dir, { API_PORT: String(port) }) }), ready: '/healthz', post: '/v0.10/endpoint', body: JSON_BODY },
  { name: 'the authorization service (npm run start:auth)', start: (dir, port) => spawn(process.execPath, [join(ROOT, 'apps/helper-pages/dist/main.js')], { env: env(dir, { AUTH_PORT: String(port) }) }), ready: '/healthz', post: '/v2/oauth2/token', body: FORM_BODY },
  { name: 'the console (npm run start:console)', start: (dir, port) => spawn(process.execPath, [join(ROOT, 'apps/console/dist/main.js')], { env: env(dir, { CONSOLE_PORT: String(port) }) }), ready: '/console/', post: '/console/logout', body: FORM_BODY },
  {
    name: 'xfer serve (npm start)',
    start: (dir, port) => spawn(process.execPath, [join(ROOT, 'apps/cli/bin/xfer.js'), 'serve'], { env: env(dir, { API_PORT: String(port), AUTH_PORT: '0', CONSOLE_PORT: '0' }) }),
    ready: '/healthz',
    post: '/v0.10/endpoint',
    body: JSON_BODY,
  },
  { name: 'the stand-in (xfer serve --ephemeral)', start: (dir, port) => spawn(process.execPath, [join(ROOT, 'apps/cli/bin/xfer.js'), 'serve', '--ephemeral', '--port', String(port)], { env: env(dir, {}) }), ready: 'url line', post: '/_xfer/faults', body: JSON_BODY },
];

/**
 * Every kind of process on SIGTERM with a request in flight: the request (its body still coming)
 * gets its answer, then the process closes the rest and exits 0.
 */
describe.each(KINDS)('$name on SIGTERM', (kind) => {
  let dir: string;
  let child: ChildProcess;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-signals-'));
  });
  afterEach(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the request in flight, then exits 0', async () => {
    const port = await freePort();
    child = kind.start(dir, port);
    const exited = once(child, 'exit');
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    if (kind.ready === 'url line') {
      await once(createInterface({ input: child.stdout! }), 'line');
    } else {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const answered = await fetch(`http://127.0.0.1:${port}${kind.ready}`).then((r) => r.status, () => 0);
        if (answered > 0) break;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${kind.name} did not start: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    // a request whose body has only begun to arrive
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let response = '';
    let answeredAt = 0;
    socket.on('data', (chunk: Buffer) => {
      response += chunk.toString();
      answeredAt ||= Date.now();
    });
    socket.on('error', () => undefined);
    const { type, text } = kind.body;
    socket.write(`POST ${kind.post} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: ${type}\r\nContent-Length: ${text.length}\r\nConnection: close\r\n\r\n${text.slice(0, 10)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalledAt = Date.now();
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.end(text.slice(10));
    const [code] = await exited;
    await new Promise((resolve) => (socket.closed ? resolve(undefined) : socket.once('close', resolve)));
    // answered after the signal: the request was in flight when it came
    expect(answeredAt).toBeGreaterThan(signalledAt);
    expect({ answered: /^HTTP\/1\.1 \d{3} /.test(response), code }).toEqual({ answered: true, code: 0 });
  }, 60_000);
});
