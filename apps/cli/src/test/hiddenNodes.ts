import 'reflect-metadata';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '@xfer/api';
import { TestWorld } from '@xfer/core/testing';
import type { TestBackend } from '@xfer/persistence/testing';
import { Runtime, type TaskWorkerPool } from '@xfer/runtime';
import { createLogger, freePort, listen } from '@xfer/server-kit';
import { makeTestCertificates } from '@xfer/server-kit/testing';
import { Agent } from 'undici';

const BIN = join(__dirname, '..', '..', 'bin', 'xfer.js');

/** A node run as its own `xfer node serve` process, its storage a tmpfs of a mount namespace held by a process of its own (it outlives the node: a node killed and started again finds its files). */
export interface HiddenNode {
  id: string;
  name: string;
  storage: string;
  /** Holds the namespace (and the tmpfs) for the test's life. */
  holder: ChildProcess;
  child: ChildProcess;
  url: string;
}

/** Runs a command inside a node's mount namespace (what the node sees). */
export const inside = (node: HiddenNode, ...command: string[]) => execFileSync('nsenter', ['-t', String(node.holder.pid), '-m', '--', ...command], { encoding: 'utf8' });

const lines = (child: ChildProcess): Promise<string> =>
  new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}`)));
  });

/**
 * The API (this process, with its task workers) and two data nodes whose storage the API process
 * cannot see (its view of each directory is empty), with an endpoint of alice's on each.
 */
export async function startHiddenNodes(backend: TestBackend) {
  const dir = mkdtempSync(join(tmpdir(), 'xfer-hidden-'));
  const certificates = makeTestCertificates(dir);
  const database = await backend.create();
  const runtime = await Runtime.open({ kind: 'server', databaseUrl: database.url, nodeCa: readFileSync(certificates.ca, 'utf8') });
  const server: Server = await listen(createApp(runtime.appServices, { logger: createLogger({ level: 'silent' }) }), 0, '127.0.0.1');
  const apiUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER = `${apiUrl}/`;
  const workers: TaskWorkerPool = await runtime.startTaskWorkers({ concurrency: 1, pollMs: 20, retryMs: 100, sweepMs: 50 });
  const agent = new Agent({ connect: { ca: readFileSync(certificates.ca, 'utf8') } });
  const alice = (await new TestWorld(runtime.uow).user('alice')).token;
  const as = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

  const serve = async (node: Omit<HiddenNode, 'child' | 'url'>, port: number, secretFile: string): Promise<{ child: ChildProcess; url: string }> => {
    const args = [join(BIN), 'node', 'serve', '--api', apiUrl, '--auth', 'http://127.0.0.1:9', '--id', node.id, '--secret-file', secretFile, '--port', String(port), '--tls-cert', certificates.cert, '--tls-key', certificates.key];
    const child = spawn('nsenter', ['-t', String(node.holder.pid), '-m', '--', process.execPath, ...args], { env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_EXTRA_CA_CERTS: certificates.ca }, stdio: ['ignore', 'pipe', 'inherit'] });
    return { child, url: await lines(child) };
  };
  const ports = new Map<string, { port: number; secretFile: string }>();
  const startNode = async (name: string): Promise<HiddenNode> => {
    const port = await freePort();
    const { node, secret } = await runtime.services.admin.nodes.addNode({ name, url: `https://localhost:${port}` });
    const secretFile = join(dir, `${name}.secret`);
    writeFileSync(secretFile, `${secret}\n`);
    const storage = join(dir, name);
    mkdirSync(storage);
    // the storage, a tmpfs of a namespace of its own: an empty directory in every other
    const holder = spawn('unshare', ['-m', '--propagation', 'private', '--', 'sh', '-c', 'mount -t tmpfs xfer-node "$0" && echo ready && exec sleep 100000', storage], { stdio: ['ignore', 'pipe', 'inherit'] });
    await lines(holder);
    ports.set(node.id, { port, secretFile });
    const described = { id: node.id, name, storage, holder };
    return { ...described, ...(await serve(described, port, secretFile)) };
  };
  const nodes = [await startNode('node-one'), await startNode('node-two')];
  const endpoints: string[] = [];
  for (const node of nodes) {
    const created = await fetch(`${apiUrl}/v0.10/endpoint`, { method: 'POST', headers: { ...as(alice).headers, 'content-type': 'application/json' }, body: JSON.stringify({ display_name: `On ${node.name}`, DATA: [{ hostname: `${node.name}.example.org` }] }) });
    const id = ((await created.json()) as { id: string }).id;
    await runtime.services.admin.endpoints.setStorage(id, { type: 'node', node: node.name, root: node.storage });
    endpoints.push(id);
  }
  const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
  const stop = async (child: ChildProcess, signal: NodeJS.Signals) => {
    if (!running(child)) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  };

  return {
    runtime,
    apiUrl,
    agent,
    alice,
    as,
    nodes,
    endpoints,
    /** kill -9 of a node's process (its files stay, in its namespace). */
    kill: (node: HiddenNode) => stop(node.child, 'SIGKILL'),
    /** Starts a node killed before, on its port, over the same files. */
    async restart(node: HiddenNode) {
      const { port, secretFile } = ports.get(node.id)!;
      Object.assign(node, await serve(node, port, secretFile));
    },
    async close() {
      for (const node of nodes) {
        await stop(node.child, 'SIGTERM');
        await stop(node.holder, 'SIGKILL');
      }
      await agent.close();
      await workers.stop();
      await new Promise((resolve) => server.close(resolve));
      delete process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER;
      await runtime.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type HiddenNodes = Awaited<ReturnType<typeof startHiddenNodes>>;
