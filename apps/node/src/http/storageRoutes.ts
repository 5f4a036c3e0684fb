import { StorageError, type ChecksumAlgorithm, type Storage } from '@xfer/core';
import { ChunkBuffers, entryToWire, failureToWire, READ_CHUNK, STORAGE_REFUSED, type StorageOperation } from '@xfer/storage';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { copyRoutes, relayed, whileConnected, type CopyServices } from './copyRoutes';
import { actingAsOf, BadRequest, storagePath, watchedUpload, type NodeStorages } from './requests';
import { sendChunks } from './send';

/** How the node knows a call is the API's: its bearer token, checked (throws Unauthorized otherwise). */
export type VerifyApiCall = (authorization: string | undefined) => Promise<void>;

const ALGORITHMS: ReadonlySet<string> = new Set<ChecksumAlgorithm>(['md5', 'sha256']);
/** The calls an account's helper answers as they came (a pull is the copy routes'). */
const RELAYED: ReadonlySet<string> = new Set<StorageOperation>(['stat', 'names', 'typed-names', 'entries', 'mkdir', 'rename', 'remove', 'checksum', 'read', 'write']);

/**
 * The storage protocol (NODE_STORAGE_PATH): the API's calls on a directory of this node, each one
 * member of the Storage port on the storage named by `root` (and `base`, a share's), answered as
 * the storage answers; a refusal is 409 with the StorageError.
 */
export function storageRoutes(storages: NodeStorages, verify: VerifyApiCall, copies: Omit<CopyServices, 'storages'>, uploadIdleMs: number): Router {
  const router = express.Router();
  // a grant is the credential of this one, not the API's token
  router.use(copyRoutes.readFiles({ storages, ...copies }));
  router.use(async (req, _res, next) => {
    await verify(req.headers.authorization);
    next();
  });

  const rootOf = (req: Request): string => {
    const root = String(req.query.root ?? '');
    if (!root.startsWith('/') || root.includes('\0')) throw new BadRequest('root: an absolute directory of this node');
    return root;
  };
  const storageOf = async (req: Request): Promise<{ storage: Storage; path: string }> => {
    return { storage: await storages.at(rootOf(req), storagePath(req.query.base, 'base'), actingAsOf(req.query.account, req.query.policy)), path: storagePath(req.query.path, 'path') };
  };

  // as an account: the call goes to its helper as it came, and its answer back as it comes (parsed
  // and encoded once, by the helper); a pull is the copy routes' (its source is checked there)
  router.use(async (req, res, next) => {
    const operation = req.path.slice(1);
    const actingAs = RELAYED.has(operation) ? actingAsOf(req.query.account, req.query.policy) : undefined;
    const helper = actingAs && storages.helperOf ? await storages.helperOf({ root: rootOf(req) }, actingAs) : null;
    if (!helper) return next();
    const query = Object.fromEntries(Object.entries(req.query).flatMap(([name, value]) => (name === 'account' || name === 'policy' ? [] : [[name, String(value)]])));
    const body = req.method === 'GET' ? undefined : operation === 'write' ? watchedUpload(req, uploadIdleMs) : req;
    const method = req.method as 'GET' | 'POST' | 'PUT';
    await relayed(res, helper.client.call({ endpointId: helper.root, operation: operation as StorageOperation, method, query, body, contentType: req.headers['content-type'], signal: whileConnected(res), answerMs: 0 }));
  });

  /** A listing sent as lines of JSON arrays: the first batch (or the refusal) before any byte is sent. */
  const lines = (list: (storage: Storage, path: string) => AsyncIterable<readonly unknown[]>) => async (req: Request, res: Response) => {
    const { storage, path } = await storageOf(req);
    const batches = list(storage, path)[Symbol.asyncIterator]();
    let next = await batches.next();
    res.type('application/x-ndjson');
    async function* encoded(): AsyncIterable<Uint8Array> {
      for (; !next.done; next = await batches.next()) yield Buffer.from(`${JSON.stringify(next.value)}\n`);
    }
    try {
      await sendChunks(res, encoded());
    } catch {
      // the client sees a listing cut short, never a partial one taken for whole
      res.destroy();
    } finally {
      await batches.return?.();
    }
  };

  router.get('/stat', async (req, res) => {
    const { storage, path } = await storageOf(req);
    res.json(entryToWire(await storage.stat(path)));
  });
  router.get('/names', lines((storage, path) => storage.names(path)));
  router.get(
    '/typed-names',
    lines((storage, path) => {
      const typedNames = storage.features.typedNames;
      if (!typedNames) throw new BadRequest('this storage lists no types');
      return typedNames(path);
    }),
  );
  router.post('/entries', express.json({ limit: '4mb', inflate: false }), async (req, res) => {
    const { storage, path } = await storageOf(req);
    const names: unknown = (req.body as { names?: unknown } | undefined)?.names;
    if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) throw new BadRequest('names: an array of names');
    res.json((await storage.entries(path, names as string[])).map((entry) => entry && entryToWire(entry)));
  });
  router.post('/mkdir', async (req, res) => {
    const { storage, path } = await storageOf(req);
    await storage.mkdir(path);
    res.json({});
  });
  router.post('/rename', async (req, res) => {
    const { storage, path } = await storageOf(req);
    await storage.rename(path, storagePath(req.query.to, 'to'));
    res.json({});
  });
  router.post('/remove', async (req, res) => {
    const { storage, path } = await storageOf(req);
    await storage.remove(path);
    res.json({});
  });
  router.get('/checksum', async (req, res) => {
    const { storage, path } = await storageOf(req);
    const algorithm = String(req.query.algorithm);
    if (!ALGORITHMS.has(algorithm)) throw new BadRequest('algorithm: md5 or sha256');
    res.json({ digest: await storage.checksum(path, algorithm as ChecksumAlgorithm) });
  });
  router.get('/read', async (req, res) => {
    const { storage, path } = await storageOf(req);
    const range = req.query.start === undefined ? undefined : { start: byteOffset(req.query.start, 'start'), end: byteOffset(req.query.end, 'end') };
    if (range && range.end < range.start) throw new BadRequest('end: at least start');
    const pool = new ChunkBuffers(READ_CHUNK);
    const chunks = storage.read(path, { range, pool })[Symbol.asyncIterator]();
    // the file opened (or refused) before the status is sent
    const first = await chunks.next();
    res.type('application/octet-stream');
    async function* all(): AsyncIterable<Uint8Array> {
      if (first.done) return;
      yield first.value;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
    }
    try {
      await sendChunks(res, all(), pool);
    } catch {
      // the API sees a file cut short, never a short one taken for whole
      res.destroy();
    } finally {
      await chunks.return?.();
    }
  });
  router.put('/write', async (req, res) => {
    const { storage, path } = await storageOf(req);
    const raw = req.query.lastModified;
    const lastModified = raw === undefined ? undefined : new Date(String(raw));
    if (lastModified && Number.isNaN(lastModified.getTime())) throw new BadRequest('lastModified: an ISO 8601 time');
    // a request cut short fails the write, which leaves no file behind
    const bytes = await storage.write(path, watchedUpload(req, uploadIdleMs), { lastModified });
    res.json({ bytes });
  });

  router.use(copyRoutes.pull({ storages, ...copies }));

  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (error instanceof StorageError) res.status(STORAGE_REFUSED).json(failureToWire(error));
    else next(error);
  });
  return router;
}

function byteOffset(value: unknown, name: string): number {
  const text = String(value);
  if (!/^\d{1,15}$/.test(text)) throw new BadRequest(`${name}: a byte offset`);
  return Number(text);
}
