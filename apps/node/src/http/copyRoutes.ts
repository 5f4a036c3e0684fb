import { StorageError, type ChecksumAlgorithm } from '@xfer/core';
import { ChunkBuffers, namesDigest, READ_CHUNK, type PullLine, type PullRequest, type ReadGrant, type ReadGrantClaim } from '@xfer/storage';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Peers } from '../copy/Peers';
import { fileFrames } from '../copy/fileFrames';
import { pullFiles, type PullSource } from '../copy/pull';
import { actingAsOf, BadRequest, storagePath, Unauthorized, type NodeStorages } from './requests';
import { sendChunks } from './send';

/** A read-files request whose grant was verified. */
type GrantedRequest = Request & { grant: ReadGrantClaim };

/** How the node knows a grant of the API to read some of its files: checked (throws Unauthorized otherwise). */
export type VerifyGrant = (token: string) => Promise<ReadGrantClaim>;

export interface CopyServices {
  storages: NodeStorages;
  verifyGrant: VerifyGrant;
  peers: Peers;
}

const CHECKSUMS: ReadonlySet<unknown> = new Set<ChecksumAlgorithm | null>(['md5', 'sha256', null]);
/** The most files one call names (a batch of the API's copy is 1,000). */
const MOST_FILES = 2_000;

const absolute = (value: unknown, name: string): string => {
  if (typeof value !== 'string' || !value.startsWith('/') || value.includes('\0')) throw new BadRequest(`${name}: an absolute directory of a node`);
  return value;
};
/** A name within a directory: never a path. */
const fileName = (value: unknown, name: string): string => {
  if (typeof value !== 'string' || value === '' || value === '.' || value === '..' || /[/\0]/.test(value)) throw new BadRequest(`${name}: a file's name`);
  return value;
};
const names = (value: unknown, name: string): string[] => {
  if (!Array.isArray(value) || value.length > MOST_FILES) throw new BadRequest(`${name}: at most ${MOST_FILES} names`);
  return value.map((entry, i) => fileName(entry, `${name}[${i}]`));
};

const httpsUrl = (value: string): string => {
  if (!URL.canParse(value) || new URL(value).protocol !== 'https:') throw new BadRequest("source.url: a node's https:// URL");
  return new URL(value).href;
};

/** The API's pull request, each field checked. */
function pullRequestOf(body: unknown): PullRequest {
  const raw = (body ?? {}) as Record<string, unknown>;
  const source = (raw.source ?? {}) as Record<string, unknown>;
  const files = raw.files;
  if (!Array.isArray(files) || files.length > MOST_FILES) throw new BadRequest(`files: at most ${MOST_FILES} files`);
  if (!CHECKSUMS.has(raw.checksum)) throw new BadRequest('checksum: md5, sha256 or null');
  if (raw.maxBytes !== null && !(Number.isSafeInteger(raw.maxBytes) && (raw.maxBytes as number) > 0)) throw new BadRequest('maxBytes: a number of bytes or null');
  return {
    source: typeof source.url === 'string' ? { url: httpsUrl(source.url), grant: String(source.grant) } : { root: absolute(source.root, 'source.root'), base: storagePath(source.base, 'source.base') },
    from: storagePath(raw.from, 'from'),
    to: storagePath(raw.to, 'to'),
    files: files.map((file: Record<string, unknown> | null, i) => {
      const lastModified = file?.lastModified;
      if (lastModified !== undefined && (typeof lastModified !== 'string' || Number.isNaN(Date.parse(lastModified)))) throw new BadRequest(`files[${i}].lastModified: an ISO 8601 time`);
      return { name: fileName(file?.name, `files[${i}].name`), ...(file?.as !== undefined && { as: fileName(file.as, `files[${i}].as`) }), ...(lastModified !== undefined && { lastModified }) };
    }),
    checksum: raw.checksum as PullRequest['checksum'],
    sourceTimes: raw.sourceTimes === true,
    maxBytes: raw.maxBytes as number | null,
  };
}

/** A signal that aborts when the client goes before the answer is whole. */
function whileConnected(res: Response): AbortSignal {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}

/**
 * Copies between nodes, the destination pulling: `read-files` (before the API's token is asked
 * for: its grant, the bearer token, is its credential) sends the files a grant names as a stream of
 * frames; `pull` (the API's call, mounted after its check) copies files here from another node or
 * from this one.
 */
export const copyRoutes = {
  readFiles(services: CopyServices): Router {
    const router = express.Router();
    // the grant is its credential, in the Authorization header: checked before the body (its names) is read
    const body = express.json({ limit: '4mb', inflate: false });
    router.post(
      '/read-files',
      async (req: Request, _res: Response, next: NextFunction) => {
        const token = /^Bearer ([^\s]+)$/i.exec(req.headers.authorization ?? '')?.[1];
        if (!token) throw new Unauthorized("read-files carries the API's grant as its bearer token");
        (req as GrantedRequest).grant = await services.verifyGrant(token);
        next();
      },
      body,
      async (req: Request, res: Response) => {
        const grant = (req as GrantedRequest).grant;
        if (!CHECKSUMS.has(grant.checksum)) throw new BadRequest('checksum: md5, sha256 or null');
        if (typeof grant.endpoint !== 'string') throw new BadRequest('endpoint: the endpoint whose files the grant opens');
        const named = names((req.body as { names?: unknown } | undefined)?.names, 'names');
        if (namesDigest(named) !== grant.names_sha256) throw new Unauthorized('names: not the names the grant opens', true);
        const storage = await services.storages.ofEndpoint(grant.endpoint, storagePath(grant.base, 'base'), grant.actingAs && actingAsOf(grant.actingAs.account, grant.actingAs.policy));
        const checked: ReadGrant = { endpoint: grant.endpoint, base: grant.base, dir: storagePath(grant.dir, 'dir'), names: named, checksum: grant.checksum };
        const pool = new ChunkBuffers(READ_CHUNK);
        res.type('application/octet-stream');
        try {
          await sendChunks(res, fileFrames(storage, checked, pool), pool);
        } catch {
          // the destination sees a stream cut short, never a short file taken for whole
          res.destroy();
        }
      },
    );
    return router;
  },

  pull(services: CopyServices): Router {
    const router = express.Router();
    router.post('/pull', express.json({ limit: '4mb', inflate: false }), async (req: Request, res: Response) => {
      const request = pullRequestOf(req.body);
      // a source on this node is read as the same account (the API sends another account's files under a grant)
      const actingAs = actingAsOf(req.query.account, req.query.policy);
      const destination = await services.storages.at(absolute(req.query.root, 'root'), storagePath(req.query.base, 'base'), actingAs);
      const source: PullSource = 'url' in request.source ? request.source : { local: await services.storages.at(request.source.root, request.source.base, actingAs) };
      const signal = whileConnected(res);
      res.type('application/x-ndjson');
      res.flushHeaders();
      const tell = (line: PullLine) => {
        if (!res.writableEnded && !res.destroyed) res.write(`${JSON.stringify(line)}\n`);
      };
      try {
        await pullFiles(request, destination, source, services.peers, signal, tell);
        res.end();
      } catch (error) {
        // told as the copy's failure where it is a storage's; anything else cuts the answer
        if (error instanceof StorageError) {
          tell({ failed: { failure: error.failure, path: error.path, message: error.message }, side: 'destination' });
          tell({ end: true });
          res.end();
        } else res.destroy();
      }
    });
    return router;
  },
};
