import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { EndpointStorages, NODE_STORAGE_PATH } from '@xfer/storage';
import express, { type NextFunction, type Request, type Response } from 'express';
import { Peers } from '../copy/Peers';
import { BadRequest, Unauthorized } from '../http/requests';
import { storageRoutes } from '../http/storageRoutes';

/**
 * The storage protocol on a Unix socket, as an account's helper serves it (running as that
 * account): the node is its only client (the socket's directory is the account's, mode 0700), so it
 * takes the node's calls without a token and reads no grant (the node checks those).
 */
export async function serveAccountStorage(socketPath: string, uploadIdleMs: number): Promise<void> {
  const storages = new EndpointStorages();
  const app = express();
  app.disable('x-powered-by');
  const nodeStorages = {
    at: async (root: string, base: string) => storages.storageOf(root, { type: 'posix', root }, base)!,
    ofEndpoint: async () => {
      throw new Unauthorized("an account's helper serves directories the node names, not endpoints", true);
    },
  };
  const refuseGrants = async (): Promise<never> => {
    throw new Unauthorized('grants are read by the node', true);
  };
  app.use(NODE_STORAGE_PATH, storageRoutes(nodeStorages, async () => undefined, { verifyGrant: refuseGrants, peers: new Peers() }, uploadIdleMs));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return void res.destroy();
    if (error instanceof BadRequest) res.status(400).json({ code: 'BadRequest', message: error.message });
    else if (error instanceof Unauthorized) res.status(403).json({ code: 'Forbidden', message: error.message });
    else res.status(500).json({ code: 'Unexpected', message: error instanceof Error ? error.message : 'An unexpected error' });
  });
  rmSync(socketPath, { force: true });
  const server = createServer(app);
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socketPath, resolve));
}
