import 'reflect-metadata';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '@xfer/api';
import { httpsScopeOf } from '@xfer/core';
import { TestWorld } from '@xfer/core/testing';
import type { TestBackend } from '@xfer/persistence/testing';
import { Runtime } from '@xfer/runtime';
import { createLogger, freePort, listen } from '@xfer/server-kit';
import { makeTestCertificates, type TestCertificates } from '@xfer/server-kit/testing';
import type { Express } from 'express';
import supertest from 'supertest';
import { Agent, fetch as undiciFetch, request } from 'undici';
import { NodeServer } from '../NodeServer';

export const V = '/v0.10';

/** One node of the world: its server, its name and where its storage is. */
export interface TestNode {
  name: string;
  id: string;
  secretFile: string;
  port: number;
  root: string;
  server: NodeServer;
}

/**
 * The API (on `backend`, listening on loopback without TLS) with two data nodes on loopback
 * (TLS from a test CA, each with its own storage directory), and alice's endpoints Lab (on node
 * one) and Archive (on node two), each holding `tree` (paths to content).
 */
export async function startApiAndNodes(backend: TestBackend, tree: Record<string, string>, options: { taskWorkers?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'xfer-nodes-'));
  const certificates: TestCertificates = makeTestCertificates(dir);
  const ca = readFileSync(certificates.ca, 'utf8');
  const database = await backend.create();
  const runtime = await Runtime.open({ kind: 'server', databaseUrl: database.url, nodeCa: ca });
  const app = createApp(runtime.appServices, { logger: createLogger({ level: 'silent' }) });
  const apiServer: Server = await listen(app, 0, '127.0.0.1');
  const apiUrl = `http://127.0.0.1:${(apiServer.address() as { port: number }).port}`;
  const world = new TestWorld(runtime.uow);
  const alice = await world.user('alice');
  const bob = await world.user('bob');
  const http = supertest(app);
  const as = (token: string) => ({
    get: (path: string) => http.get(`${V}${path}`).set('Authorization', `Bearer ${token}`),
    post: (path: string, body?: unknown) => http.post(`${V}${path}`).set('Authorization', `Bearer ${token}`).send(body as object),
    put: (path: string, body?: unknown) => http.put(`${V}${path}`).set('Authorization', `Bearer ${token}`).send(body as object),
    delete: (path: string) => http.delete(`${V}${path}`).set('Authorization', `Bearer ${token}`),
  });

  const startNode = async (node: Omit<TestNode, 'server'>): Promise<NodeServer> =>
    NodeServer.start({ apiUrl, authUrl: 'http://127.0.0.1:9', nodeId: node.id, secretFile: node.secretFile, port: node.port, host: '127.0.0.1', tlsCert: certificates.cert, tlsKey: certificates.key, peerCa: ca, logger: createLogger({ level: 'silent' }) });
  const nodes: TestNode[] = [];
  for (const name of ['node-one', 'node-two']) {
    const port = await freePort();
    const { node, secret } = await runtime.services.admin.nodes.addNode({ name, url: `https://localhost:${port}` });
    const secretFile = join(dir, `${name}.secret`);
    writeFileSync(secretFile, secret);
    const root = join(dir, name);
    mkdirSync(root);
    const described = { name, id: node.id, secretFile, port, root };
    nodes.push({ ...described, server: await startNode(described) });
  }
  const endpoint = async (name: string, node: TestNode) => {
    const id = (await as(alice.token).post('/endpoint', { display_name: name, DATA: [{ hostname: `${name.toLowerCase()}.example.org` }] })).body.id as string;
    const root = join(node.root, name.toLowerCase());
    mkdirSync(root);
    for (const [path, content] of Object.entries(tree)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    await runtime.services.admin.endpoints.setStorage(id, { type: 'node', node: node.name, root });
    return { id, root };
  };
  const hostile: HttpsServer[] = [];
  const lab = await endpoint('Lab', nodes[0]!);
  const archive = await endpoint('Archive', nodes[1]!);
  // clients of the nodes trust the test CA
  const agent = new Agent({ connect: { ca } });
  const workers = options.taskWorkers ? await runtime.startTaskWorkers({ concurrency: 2, pollMs: 20, retryMs: 200, sweepMs: 50 }) : null;

  return {
    runtime,
    world,
    http,
    as,
    alice,
    bob,
    nodes,
    lab,
    archive,
    apiUrl,
    /** The task workers (when asked for): paused, a submitted task waits queued. */
    workers,
    /** Another endpoint of alice's on `node` (holding `tree`). */
    endpoint,
    /** An endpoint of alice's stored on the API's own machine (a posix directory), holding `files`. */
    async localEndpoint(name: string, files: Record<string, string>) {
      const id = (await as(alice.token).post('/endpoint', { display_name: name, DATA: [{ hostname: `${name.toLowerCase()}.example.org` }] })).body.id as string;
      const root = join(dir, `local-${name.toLowerCase()}`);
      mkdirSync(root);
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(join(root, path, '..'), { recursive: true });
        writeFileSync(join(root, path), content);
      }
      await runtime.services.admin.endpoints.setStorage(id, { type: 'posix', root });
      return { id, root };
    },
    /**
     * A node registered with the API that is `app` (a test's server answering the node protocol
     * as an attack needs, over TLS from the test CA), with an endpoint of alice's on it at `root`.
     */
    async hostileNode(name: string, app: Express, root = '/srv/hostile') {
      const server = createHttpsServer({ cert: readFileSync(certificates.cert), key: readFileSync(certificates.key) }, app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      hostile.push(server);
      const url = `https://localhost:${(server.address() as { port: number }).port}`;
      const { node } = await runtime.services.admin.nodes.addNode({ name, url });
      const id = (await as(alice.token).post('/endpoint', { display_name: name, DATA: [{ hostname: `${name.toLowerCase()}.example.org` }] })).body.id as string;
      await runtime.services.admin.endpoints.setStorage(id, { type: 'node', node: node.id, root });
      return { nodeId: node.id, endpointId: id, url };
    },
    /** A token of `username` for the https scope of `endpointId`. */
    httpsToken: async (username: string, endpointId: string) => (await runtime.services.admin.tokens.issueToken(username, null, httpsScopeOf(endpointId))).token,
    /** A request to a node, as a client of HTTPS access sends it (redirects not followed). */
    fetch: (url: string, init: { method?: string; token?: string; headers?: Record<string, string>; body?: string | Buffer } = {}) =>
      request(url, { dispatcher: agent, method: (init.method ?? 'GET') as 'GET', headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...init.headers }, body: init.body }),
    /** @globus/sdk's options for calls to the nodes (their TLS from the test CA); with `token` as bearer. */
    sdk: (token?: string) => ({
      options: token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
      sdkOptions: { fetch: { options: { __callable: ((input: string, init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch } } },
    }),
    /** The https_server of an endpoint, as its document shows it. */
    httpsServer: async (endpointId: string) => (await as(alice.token).get(`/endpoint/${endpointId}`)).body.https_server as string,
    /** Stops a node (it starts again with `restart`). */
    stop: (node: TestNode) => node.server.close(),
    restart: async (node: TestNode) => {
      node.server = await startNode(node);
    },
    /** A task (alice's unless `token` is another's) once `done` says so (polled every 25 ms), within 30 s. */
    async until(taskId: string, done: (task: Record<string, unknown>) => boolean, token = alice.token): Promise<Record<string, unknown>> {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
        const task = (await as(token).get(`/task/${taskId}`)).body as Record<string, unknown>;
        if (done(task)) return task;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`task ${taskId} did not get there`);
    },
    /** Submits a transfer of alice's (a fresh submission id); its task id. */
    async transfer(document: Record<string, unknown>, token = alice.token): Promise<{ status: number; body: Record<string, unknown> }> {
      const submissionId = (await as(token).get('/submission_id')).body.value as string;
      const answer = await as(token).post('/transfer', { DATA_TYPE: 'transfer', submission_id: submissionId, ...document });
      return { status: answer.status, body: answer.body as Record<string, unknown> };
    },
    async close() {
      await workers?.stop();
      await agent.close();
      for (const node of nodes) await node.server.close().catch(() => undefined);
      for (const server of hostile) await new Promise((resolve) => server.close(resolve).closeAllConnections());
      await new Promise((resolve) => apiServer.close(resolve));
      await runtime.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type ApiAndNodes = Awaited<ReturnType<typeof startApiAndNodes>>;
