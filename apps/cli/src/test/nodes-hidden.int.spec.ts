import 'reflect-metadata';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transfer } from '@globus/sdk';
import { createApp } from '@xfer/api';
import { httpsScopeOf } from '@xfer/core';
import { TestWorld } from '@xfer/core/testing';
import { testBackends } from '@xfer/persistence/testing';
import { Runtime, type TaskWorkerPool } from '@xfer/runtime';
import { createLogger, freePort, listen } from '@xfer/server-kit';
import { makeTestCertificates } from '@xfer/server-kit/testing';
import { Agent, request } from 'undici';

/**
 * The API (this process) and two data nodes, each its own `xfer node serve` process whose storage
 * is a tmpfs mounted in a mount namespace of its own: the files are where the API process cannot
 * see them (its view of the directory is empty), and reached only through the nodes.
 */
const BIN = join(__dirname, '..', '..', 'bin', 'xfer.js');

interface HiddenNode {
  id: string;
  name: string;
  storage: string;
  child: ChildProcess;
  url: string;
}

/** A command run inside a node's mount namespace (what the node sees). */
const inside = (node: HiddenNode, ...command: string[]) => execFileSync('nsenter', ['-t', String(node.child.pid), '-m', '--', ...command], { encoding: 'utf8' });

describe.each(testBackends())('data nodes whose storage the API cannot see ($name)', (backend) => {
  let dir: string;
  let runtime: Runtime;
  let server: Server;
  let workers: TaskWorkerPool;
  let drop: () => Promise<void>;
  let agent: Agent;
  let nodes: HiddenNode[];
  let alice: string;
  let endpoints: string[];
  const as = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

  async function startNode(apiUrl: string, name: string, ca: { cert: string; key: string }): Promise<HiddenNode> {
    const port = await freePort();
    const { node, secret } = await runtime.services.admin.nodes.addNode({ name, url: `https://localhost:${port}` });
    const secretFile = join(dir, `${name}.secret`);
    writeFileSync(secretFile, `${secret}\n`);
    const storage = join(dir, name);
    mkdirSync(storage);
    const args = ['node', BIN, 'node', 'serve', '--api', apiUrl, '--auth', 'http://127.0.0.1:9', '--id', node.id, '--secret-file', secretFile, '--port', String(port), '--tls-cert', ca.cert, '--tls-key', ca.key];
    // the storage, a tmpfs of the node's own namespace: an empty directory in every other
    const child = spawn('unshare', ['-m', '--propagation', 'private', '--', 'sh', '-c', 'mount -t tmpfs xfer-node "$0" && exec "$@"', storage, process.execPath, ...args.slice(1)], { env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.once('exit', (code) => reject(new Error(`node ${name} exited ${code}`)));
    });
    return { id: node.id, name, storage, child, url };
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-hidden-'));
    const certificates = makeTestCertificates(dir);
    const database = await backend.create();
    drop = database.drop;
    runtime = await Runtime.open({ kind: 'server', databaseUrl: database.url, nodeCa: readFileSync(certificates.ca, 'utf8') });
    server = await listen(createApp(runtime.appServices, { logger: createLogger({ level: 'silent' }) }), 0, '127.0.0.1');
    const apiUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER = `${apiUrl}/`;
    workers = await runtime.startTaskWorkers({ concurrency: 1, pollMs: 20, retryMs: 100, sweepMs: 50 });
    agent = new Agent({ connect: { ca: readFileSync(certificates.ca, 'utf8') } });
    nodes = [await startNode(apiUrl, 'node-one', certificates), await startNode(apiUrl, 'node-two', certificates)];
    alice = (await new TestWorld(runtime.uow).user('alice')).token;
    endpoints = [];
    for (const node of nodes) {
      const created = await fetch(`${apiUrl}/v0.10/endpoint`, { method: 'POST', headers: { ...as(alice).headers, 'content-type': 'application/json' }, body: JSON.stringify({ display_name: `On ${node.name}`, DATA: [{ hostname: `${node.name}.example.org` }] }) });
      const id = ((await created.json()) as { id: string }).id;
      await runtime.services.admin.endpoints.setStorage(id, { type: 'node', node: node.name, root: node.storage });
      endpoints.push(id);
    }
  });

  afterEach(async () => {
    for (const node of nodes) {
      if (node.child.exitCode === null && node.child.signalCode === null) {
        const exited = new Promise((resolve) => node.child.once('exit', resolve));
        node.child.kill('SIGTERM');
        await exited;
      }
    }
    await agent.close();
    await workers.stop();
    await new Promise((resolve) => server.close(resolve));
    delete process.env.GLOBUS_SDK_SERVICE_URL_TRANSFER;
    await runtime.close();
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const put = async (endpoint: string, path: string, body: string, token: string) => {
    const server = ((await (await transfer.endpoint.get(endpoint, as(alice))).json()) as { https_server: string }).https_server;
    const answer = await request(`${server}${path}`, { dispatcher: agent, method: 'PUT', headers: { authorization: `Bearer ${token}` }, body });
    await answer.body.dump();
    return answer.statusCode;
  };

  it('writes over HTTPS, lists, stats, makes, renames and deletes through the API, on files only the node sees', async () => {
    const [one] = nodes as [HiddenNode, HiddenNode];
    const [lab] = endpoints as [string, string];
    const token = (await runtime.services.admin.tokens.issueToken('alice', null, httpsScopeOf(lab))).token;
    expect(await put(lab, '/data/a.txt', 'written over HTTPS', token)).toBe(200);
    expect(await put(lab, '/data/old/b.txt', 'b', token)).toBe(200);
    expect(inside(one, 'cat', `${one.storage}/data/a.txt`)).toBe('written over HTTPS');
    // this process (the API's) sees an empty directory where the node keeps them
    expect(readdirSync(one.storage)).toEqual([]);

    const listing = (await (await transfer.fileOperations.ls(lab, { query: { path: '/data/' }, ...as(alice) })).json()) as { DATA: { name: string; size: number }[] };
    expect(listing.DATA.map((entry) => [entry.name, entry.size]).sort()).toEqual([['a.txt', 18], ['old', expect.any(Number)]]);
    expect(await (await transfer.fileOperations.stat(lab, { query: { path: '/data/a.txt' }, ...as(alice) })).json()).toMatchObject({ name: 'a.txt', type: 'file', size: 18 });
    expect((await transfer.fileOperations.mkdir(lab, { payload: { path: '/data/new' }, ...as(alice) })).status).toBe(200);
    expect((await transfer.fileOperations.rename(lab, { payload: { old_path: '/data/a.txt', new_path: '/data/new/a.txt' }, ...as(alice) })).status).toBe(200);
    expect(inside(one, 'find', `${one.storage}/data`, '-type', 'f').split('\n').filter(Boolean).sort()).toEqual([`${one.storage}/data/new/a.txt`, `${one.storage}/data/old/b.txt`]);

    const submission = ((await (await transfer.taskSubmission.submissionId(as(alice))).json()) as { value: string }).value;
    const submitted = await transfer.taskSubmission.submitDelete({ payload: { DATA_TYPE: 'delete', submission_id: submission, endpoint: lab, recursive: true, DATA: [{ DATA_TYPE: 'delete_item', path: '/data/old' }] } as never, ...as(alice) });
    const taskId = ((await submitted.json()) as { task_id: string }).task_id;
    let task: { status: string } = { status: 'ACTIVE' };
    for (let i = 0; i < 400 && task.status === 'ACTIVE'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      task = (await (await transfer.task.get(taskId, as(alice))).json()) as typeof task;
    }
    expect(task.status).toBe('SUCCEEDED');
    expect(inside(one, 'ls', `${one.storage}/data`).split('\n').filter(Boolean)).toEqual(['new']);
  });

  it("keeps each node's files to itself, and a node that is down is ExternalError.NodeNotReachable while the other answers", async () => {
    const [one, two] = nodes as [HiddenNode, HiddenNode];
    const [lab, archive] = endpoints as [string, string];
    expect(await put(archive, '/kept.txt', 'on two', (await runtime.services.admin.tokens.issueToken('alice', null, httpsScopeOf(archive))).token)).toBe(200);
    // a token for the lab's scope writes nothing on the archive
    expect(await put(archive, '/planted.txt', 'x', (await runtime.services.admin.tokens.issueToken('alice', null, httpsScopeOf(lab))).token)).toBe(403);
    expect(inside(two, 'ls', two.storage).trim()).toBe('kept.txt');
    expect(inside(one, 'ls', one.storage).trim()).toBe('');
    const exited = new Promise((resolve) => two.child.once('exit', resolve));
    two.child.kill('SIGKILL');
    await exited;
    const down = await transfer.fileOperations.ls(archive, { query: { path: '/' }, ...as(alice) });
    expect([down.status, ((await down.json()) as { code: string }).code]).toEqual([409, 'ExternalError.NodeNotReachable']);
    expect((await transfer.fileOperations.ls(lab, { query: { path: '/' }, ...as(alice) })).status).toBe(200);
  });
});
