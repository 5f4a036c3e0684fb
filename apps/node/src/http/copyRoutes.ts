import { StorageError, type ChecksumAlgorithm } from '@xfer/core';
import { ChunkBuffers, namesDigest, NODE_STORAGE_PATH, READ_CHUNK, type PullLine, type PullRequest, type ReadGrant, type ReadGrantClaim } from '@xfer/storage';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Dispatcher } from 'undici';
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

/** The route of an account's helper that sends a grant's files as frames (its node checked the grant). */
export const HELPER_FRAMES = 'frames';
/** A relay's pieces: a helper's socket is read a MiB at a time. */
const RELAY_CHUNK = 1024 * 1024;
/** A helper that sends nothing for this long (its reads stalled) is given up on. */
const HELPER_SILENCE_MS = 120_000;

/**
 * A grant's files as an account's helper frames them, sent on as they come: read a MiB at a time
 * from its socket, each piece copied once into the answer (the node's TLS is the one cost a relay
 * adds); a refusal before the first byte is sent on as the helper said it.
 */
function relayFrames(res: Response, peers: Peers, pool: ChunkBuffers, socketPath: string, root: string, grant: ReadGrant): Promise<void> {
  // its body ends with the connection, no chunked encoding: each piece one write of the TLS socket, not three to gather
  res.useChunkedEncodingByDefault = false;
  res.setHeader('Connection', 'close');
  return new Promise((resolve) => {
    let status = 0;
    const refusal: Buffer[] = [];
    const url = new URL(`http://account-helper${NODE_STORAGE_PATH}/${HELPER_FRAMES}?${new URLSearchParams({ root })}`);
    const call = peers.post(
      url,
      'account-helper',
      JSON.stringify(grant),
      HELPER_SILENCE_MS,
      {
        status: (code) => void (status = code),
        body: (piece) => {
          if (status !== 200) return refusal.push(Buffer.from(piece)) > 0;
          const chunk = pool.take(piece.length);
          piece.copy(chunk);
          if (res.write(chunk.subarray(0, piece.length), () => pool.give(chunk))) return true;
          res.once('drain', () => call.resume());
          return false;
        },
        end: () => {
          if (status === 200) res.end();
          else res.status(status).type('application/json').send(Buffer.concat(refusal));
          resolve();
        },
        failed: () => {
          res.destroy();
          resolve();
        },
      },
      socketPath,
    );
    res.on('close', () => {
      if (!res.writableFinished) call.stop(new Error('the destination went'));
    });
  });
}

/** A helper's answer, sent on as it comes, of its type (a refusal before it begins is the call's error); cut, the answer is cut. */
export async function relayed(res: Response, answer: Promise<Dispatcher.ResponseData>): Promise<void> {
  const { body, headers } = await answer;
  const type = headers['content-type'];
  if (typeof type === 'string') res.type(type);
  try {
    await sendChunks(res, body as AsyncIterable<Uint8Array>);
  } catch {
    res.destroy();
  } finally {
    if (!body.readableEnded) body.destroy();
  }
}

/** A signal that aborts when the client goes before the answer is whole. */
export function whileConnected(res: Response): AbortSignal {
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
    // the relays' buffers, one pool for all of them: a pool a relay made a tree's 100 folders allocate
    // hundreds of MiB outside the heap, each MiB a step towards a full collection (1.3 s of a copy's CPU)
    const relayBuffers = new ChunkBuffers(RELAY_CHUNK, 32);
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
        const actingAs = grant.actingAs && actingAsOf(grant.actingAs.account, grant.actingAs.policy);
        const storage = await services.storages.ofEndpoint(grant.endpoint, storagePath(grant.base, 'base'), actingAs);
        const checked: ReadGrant = { endpoint: grant.endpoint, base: grant.base, dir: storagePath(grant.dir, 'dir'), names: named, checksum: grant.checksum };
        const helper = await services.storages.helperOf?.({ endpointId: grant.endpoint }, actingAs);
        res.type('application/octet-stream');
        // as an account: its helper reads and frames the files, the node passes the bytes on
        if (helper) return relayFrames(res, services.peers, relayBuffers, helper.socketPath, helper.root, checked);
        const pool = new ChunkBuffers(READ_CHUNK);
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
      const [root, base] = [absolute(req.query.root, 'root'), storagePath(req.query.base, 'base')];
      const destination = await services.storages.at(root, base, actingAs);
      const source: PullSource = 'url' in request.source ? request.source : { local: await services.storages.at(request.source.root, request.source.base, actingAs) };
      const signal = whileConnected(res);
      // as an account (both directories checked above): its helper does the whole copy, the node passes its answer on
      const helper = await services.storages.helperOf?.({ root }, actingAs);
      if (helper) {
        return relayed(res, helper.client.call({ endpointId: root, operation: 'pull', method: 'POST', query: { root, base }, body: JSON.stringify(request), signal, answerMs: 0 }));
      }
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
