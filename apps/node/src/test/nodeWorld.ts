import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeCallKey } from '@xfer/core';
import { createLogger, listen } from '@xfer/server-kit';
import { makeTestCertificates, type TestCertificates } from '@xfer/server-kit/testing';
import { NodeCallSigner, NodeClient } from '@xfer/storage';
import basicAuth from 'basic-auth';
import express from 'express';
import { NodeServer } from '../NodeServer';

export const NODE_ID = '2f1c0a8e-6b7d-4c3e-9a51-0d4e8b7f6a21';
export const SECRET = 'xfer_node-secret-for-tests';

/** The endpoint whose storage the test node serves (at `root`). */
export const ENDPOINT_ID = 'e1';

/**
 * A data node on loopback beside a stand-in for the API's one call a node makes (GET
 * /_xfer/node, HTTP Basic with the node's id and secret: the node's directory and the API's
 * public call keys), with a CA and certificate made by openssl in a temp directory, and a
 * directory `root` for its storage.
 */
export interface NodeWorld {
  dir: string;
  root: string;
  certificates: TestCertificates;
  apiUrl: string;
  secretFile: string;
  node: NodeServer;
  /** A client of the node as the API has one (the test CA trusted), signing with the API's key; `published` false: a key the API never published. */
  client(published?: boolean): NodeClient;
  /** A token of the API's for the node's storage protocol, as its client sends it. */
  apiToken(): Promise<string>;
  /** How often the node asked the API whether a client may reach a file. */
  asked: { access: number };
  close(): Promise<void>;
}

/** The API's answer to a node that presents NODE_ID and SECRET (its registered URL: https://localhost:<port>): `roots` it serves, the keys published. */
export async function fakeApi(roots: { endpoint: string; root: string }[] = []): Promise<{ url: string; server: Server; keys: NodeCallKey[]; asked: { access: number } }> {
  const keys: NodeCallKey[] = [];
  const asked = { access: 0 };
  const app = express();
  // every client's token is one the API does not know
  app.post('/_xfer/node/access', (_req, res) => {
    asked.access += 1;
    res.status(401).json({ code: 'AuthenticationFailed', message: 'Invalid token' });
  });
  app.get('/_xfer/node', (req, res) => {
    const credentials = basicAuth(req);
    if (credentials?.name !== NODE_ID || credentials.pass !== SECRET) res.status(401).json({ code: 'ClientError.AuthenticationFailed' });
    else res.json({ DATA_TYPE: 'node', id: NODE_ID, name: 'test-node', url: 'https://localhost:1', roots, call_keys: keys.map((key) => JSON.parse(key.publicJwk) as unknown) });
  });
  const server = await listen(app, 0, '127.0.0.1');
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, keys, asked };
}

export async function startNodeWorld(options: { uploadIdleMs?: number } = {}): Promise<NodeWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'xfer-node-'));
  const root = join(dir, 'storage');
  mkdirSync(root);
  const certificates = makeTestCertificates(dir);
  const secretFile = join(dir, 'secret');
  writeFileSync(secretFile, `  ${SECRET}\n\n`);
  const api = await fakeApi([{ endpoint: ENDPOINT_ID, root }]);
  const signer = new NodeCallSigner(async (key) => void api.keys.push(key));
  const unpublished = new NodeCallSigner(async () => undefined);
  const node = await NodeServer.start({ apiUrl: api.url, authUrl: 'http://127.0.0.1:1', nodeId: NODE_ID, secretFile, port: 0, host: '127.0.0.1', tlsCert: certificates.cert, tlsKey: certificates.key, uploadIdleMs: options.uploadIdleMs, logger: createLogger({ level: 'silent' }) });
  const clients: NodeClient[] = [];
  const world: NodeWorld = {
    dir,
    root,
    certificates,
    apiUrl: api.url,
    secretFile,
    node,
    client: (published = true) => {
      const client = new NodeClient(NODE_ID, { find: async () => ({ url: world.node.url }), signer: published ? signer : unpublished, extraCa: readFileSync(certificates.ca, 'utf8') });
      clients.push(client);
      return client;
    },
    apiToken: () => signer.sign({}, NODE_ID, 300),
    asked: api.asked,
    close: async () => {
      await Promise.all(clients.map((client) => client.close()));
      // the node now running (a test may have started another)
      await world.node.close();
      await new Promise((resolve) => api.server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return world;
}
