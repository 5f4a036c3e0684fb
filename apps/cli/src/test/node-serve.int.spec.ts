import 'reflect-metadata';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '@xfer/api';
import { Runtime } from '@xfer/runtime';
import { createLogger, freePort, listen } from '@xfer/server-kit';
import { makeTestCertificates, type TestCertificates } from '@xfer/server-kit/testing';

/** `xfer node serve`: the URL on stdout once it answers; exit 2 with what to fix when a setting is wrong. */
const BIN = join(__dirname, '..', '..', 'bin', 'xfer.js');

describe('xfer node serve', () => {
  let dir: string;
  let runtime: Runtime;
  let server: Server;
  let api: string;
  let node: { id: string; secret: string };
  let certificates: TestCertificates;
  let secretFile: string;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-node-serve-'));
    runtime = await Runtime.open({ kind: 'server', databaseUrl: `sqlite:${join(dir, 'xfer.sqlite')}` });
    server = await listen(createApp(runtime.appServices, { logger: createLogger({ level: 'silent' }) }), 0, '127.0.0.1');
    api = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    port = await freePort();
    const added = await runtime.services.admin.nodes.addNode({ name: 'lab', url: `https://localhost:${port}/lab` });
    node = { id: added.node.id, secret: added.secret };
    certificates = makeTestCertificates(dir);
    secretFile = join(dir, 'secret');
    // as an editor or `echo` leaves it: a trailing new line
    writeFileSync(secretFile, `${node.secret}\n`);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const args = (changes: Record<string, string> = {}) => {
    const settings: Record<string, string> = { '--api': api, '--auth': 'http://127.0.0.1:1', '--id': node.id, '--secret-file': secretFile, '--tls-cert': certificates.cert, '--tls-key': certificates.key, ...changes };
    return ['node', 'serve', ...Object.entries(settings).flatMap(([name, value]) => (value === '' ? [] : [name, value]))];
  };

  function refused(changes: Record<string, string>, env: Record<string, string> = {}): Promise<{ code: number; err: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, [BIN, ...args(changes)], { env: { ...process.env, HOST: '127.0.0.1', ...env }, timeout: 30_000 }, (error, _stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, err: stderr.trim() }),
      );
    });
  }

  it('prints its URL (its registered address, its port) once it answers, records its contact with the API, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, ...args()], { env: { ...process.env, HOST: '127.0.0.1' } });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    expect(url).toBe(`https://localhost:${port}/lab`);
    const listed = await runtime.services.admin.nodes.listNodes();
    expect(listed[0]?.lastContact).toBeInstanceOf(Date);
    // it answers TLS only: plain HTTP on its port gets no HTTP answer
    const plain = await fetch(`http://127.0.0.1:${port}/lab/_xfer/storage/stat?root=/`).then(
      (answer) => answer.status,
      () => 'no answer',
    );
    expect(plain).toBe('no answer');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it.each([
    ['an API that does not answer', { '--api': 'http://127.0.0.1:1' }, /^xfer: the API at http:\/\/127\.0\.0\.1:1 does not answer \(ECONNREFUSED.*\): check --api$/],
    ['an id the API does not know', { '--id': '00000000-0000-4000-8000-000000000000' }, /^xfer: the API at .* knows no node 00000000-0000-4000-8000-000000000000 with this secret: check --id and --secret-file/],
    ['a secret file that is missing', { '--secret-file': '/nonexistent/secret' }, /^xfer: the node's secret cannot be read from '\/nonexistent\/secret' \(ENOENT\): check --secret-file$/],
    ['a certificate that is not one', { '--tls-cert': BIN }, /^xfer: the certificate and key are not a PEM certificate and its private key .*: check --tls-cert and --tls-key$/],
    ['a missing setting', { '--tls-key': '' }, /^xfer: --tls-key is required \(or XFER_NODE_TLS_KEY\)$/],
    ['a URL that is none', { '--api': 'api.example.org' }, /^xfer: --api 'api\.example\.org' is not a URL$/],
  ])('refuses to start with %s: exit 2 and what to check', async (_case, changes, message) => {
    const { code, err } = await refused(changes);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });

  it('refuses another secret than the current one (surrounding whitespace aside), and takes its settings from the environment', async () => {
    const other = join(dir, 'other-secret');
    writeFileSync(other, `  ${node.secret}x \n`);
    expect(await refused({ '--secret-file': other })).toEqual({ code: 2, err: expect.stringMatching(/knows no node .* with this secret/) });
    const fromEnv = await refused({ '--api': '', '--id': '' }, { XFER_NODE_API: 'http://127.0.0.1:1', XFER_NODE_ID: node.id });
    expect(fromEnv).toEqual({ code: 2, err: expect.stringMatching(/^xfer: the API at http:\/\/127\.0\.0\.1:1 does not answer/) });
  });
});
