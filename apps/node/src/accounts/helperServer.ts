import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { ChunkBuffers, EndpointStorages, NODE_STORAGE_PATH, READ_CHUNK, type ReadGrant } from '@xfer/storage';
import express, { type NextFunction, type Request, type Response } from 'express';
import { fileFrames } from '../copy/fileFrames';
import { Peers } from '../copy/Peers';
import { HELPER_FRAMES } from '../http/copyRoutes';
import { BadRequest, storagePath, Unauthorized } from '../http/requests';
import { sendChunks } from '../http/send';
import { storageRoutes } from '../http/storageRoutes';

/**
 * The storage protocol on a Unix socket, as an account's helper serves it (running as that
 * account): the node is its only client (the socket's directory is the account's, mode 0700), so it
 * takes the node's calls without a token and reads no grant (the node checks those and hands over
 * the files they open: `frames`). Its pulls reach other nodes themselves, trusting `peerCa` too.
 */
export async function serveAccountStorage(socketPath: string, uploadIdleMs: number, peerCa?: string): Promise<void> {
  const storages = new EndpointStorages();
  const app = express();
  app.disable('x-powered-by');
  const at = async (root: string, base: string) => storages.storageOf(root, { type: 'posix', root }, base)!;
  const nodeStorages = {
    at,
    ofEndpoint: async () => {
      throw new Unauthorized("an account's helper serves directories the node names, not endpoints", true);
    },
  };
  const refuseGrants = async (): Promise<never> => {
    throw new Unauthorized('grants are read by the node', true);
  };
  // a grant's files, the grant checked by the node (its names and checksum in the body)
  app.post(`${NODE_STORAGE_PATH}/${HELPER_FRAMES}`, express.json({ limit: '4mb', inflate: false }), async (req: Request, res: Response) => {
    const root = String(req.query.root ?? '');
    if (!root.startsWith('/')) throw new BadRequest('root: an absolute directory');
    const grant = req.body as ReadGrant;
    const storage = await at(root, storagePath(grant.base, 'base'));
    const pool = new ChunkBuffers(READ_CHUNK);
    res.type('application/octet-stream');
    // the body ends with the connection (no chunks to parse on the node's side: a relay's every byte counts)
    res.useChunkedEncodingByDefault = false;
    res.setHeader('Connection', 'close');
    try {
      await sendChunks(res, fileFrames(storage, { ...grant, dir: storagePath(grant.dir, 'dir') }, pool), pool);
    } catch {
      res.destroy();
    }
  });
  app.use(NODE_STORAGE_PATH, storageRoutes(nodeStorages, async () => undefined, { verifyGrant: refuseGrants, peers: new Peers(peerCa) }, uploadIdleMs));
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
