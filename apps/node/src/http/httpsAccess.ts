import { baseName, httpsScopeOf, isUuid, parentOf, StorageError, type Storage, type StorageFailure } from '@xfer/core';
import { ChunkBuffers, READ_CHUNK } from '@xfer/storage';
import type { NextFunction, Request, Response } from 'express';
import rangeParser from 'range-parser';
import { AccessRefused, type AccessDecision, type HttpsAccess } from '../ApiLink';
import type { BrowserSignIn } from './browserSignIn';
import { BadRequest, watchedUpload, type NodeStorages } from './requests';
import { sendChunks } from './send';

/** How the node asks the API whether a client may open a file (ApiLink.access). */
export type DecideAccess = (token: string, endpointId: string, path: string, access: HttpsAccess) => Promise<AccessDecision>;

export interface HttpsAccessOptions {
  storages: NodeStorages;
  decide: DecideAccess;
  /** Where a browser without a token is sent to sign in, and how its token comes back. */
  signIn: BrowserSignIn;
  /** How long an upload's body may go quiet before it is cut. */
  uploadIdleMs: number;
}

const ACCESS_OF: Record<string, HttpsAccess> = { GET: 'read', HEAD: 'read', PUT: 'write', DELETE: 'delete' };

/** A storage's refusal as a client of HTTPS access is told it. */
const STATUS_OF: Record<StorageFailure, number> = {
  not_found: 404,
  not_directory: 409,
  is_directory: 409,
  exists: 409,
  denied: 403,
  quota: 507,
  invalid_name: 400,
  special_file: 403,
  login_denied: 403,
};

/** The endpoint and the file a request names: `/<endpoint id>/<path>`, each segment decoded once. */
function target(req: Request): { endpointId: string; path: string } {
  const [, endpointId = '', ...segments] = req.path.split('/');
  const decoded = segments.map((segment) => {
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      throw new BadRequest('The path holds a malformed percent-encoding');
    }
    // an encoded slash or NUL would make another path than the one sent
    if (name.includes('/') || name.includes('\0')) throw new BadRequest('A name in the path holds an encoded / or NUL');
    return name;
  });
  return { endpointId, path: `/${decoded.join('/')}` };
}

function bearer(req: Request): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;
}

/**
 * HTTPS access to the files of the endpoints this node serves, as clients of a hosted collection
 * use it: GET (Range: 206) and HEAD read, PUT writes (streamed to a temporary name, renamed when
 * whole; missing folders made), DELETE removes. A GET without credentials is sent to the
 * authorization service with `client_id=<endpoint id>` (what GCSDownloader looks for); any other
 * request needs a bearer token for the endpoint's `https` scope, checked by the API.
 */
export function httpsAccess(options: HttpsAccessOptions) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const { endpointId, path } = target(req);
    if (!isUuid(endpointId)) return next();
    const access = ACCESS_OF[req.method];
    if (!access) {
      res.set('Allow', 'GET, HEAD, PUT, DELETE').status(405).json({ code: 'MethodNotAllowed', message: `${req.method} is not one of GET, HEAD, PUT, DELETE` });
      return;
    }
    // a browser's token is its cookie (reads only: a cross-site page cannot make it write or delete)
    const fromCookie = bearer(req) === null && req.headers.authorization === undefined && access === 'read' ? options.signIn.tokenOf(req) : null;
    const token = bearer(req) ?? fromCookie;
    if (token === null) {
      if (req.headers.authorization === undefined && access === 'read') return options.signIn.redirect(res, endpointId.toLowerCase(), path);
      res.set('WWW-Authenticate', `Bearer realm="xfer", scope="${httpsScopeOf(endpointId.toLowerCase())}"`).status(401).json({ code: 'AuthenticationFailed', message: `A bearer token for the scope ${httpsScopeOf(endpointId.toLowerCase())}` });
      return;
    }
    try {
      const decision = await options.decide(token, endpointId, path, access);
      const storage = await options.storages.at(decision.root, decision.base, decision.actingAs ?? undefined);
      if (access === 'read') await sendFile(req, res, storage, decision.path);
      else if (access === 'write') await receiveFile(req, res, storage, decision.path, (dir) => options.decide(token, endpointId, dir, 'write'), options.uploadIdleMs);
      else {
        await storage.remove(decision.path);
        res.status(204).end();
      }
    } catch (error) {
      if (error instanceof AccessRefused) {
        // a browser whose token ran out signs in again
        if (error.status === 401 && fromCookie !== null) {
          options.signIn.forget(res, endpointId.toLowerCase());
          return options.signIn.redirect(res, endpointId.toLowerCase(), path);
        }
        if (error.status === 401) res.set('WWW-Authenticate', 'Bearer realm="xfer", error="invalid_token"');
        res.status(error.status).json({ code: error.code, message: error.message });
      } else if (error instanceof StorageError && !res.headersSent) {
        res.status(STATUS_OF[error.failure]).json({ code: error.failure, message: error.message });
      } else throw error;
    }
  };
}

/** A Range header of which a range ends before it begins (`bytes=9-2`) is invalid, and ignored: the whole file (RFC 9110 14.1.1), never 416. */
function invalidRange(header: string): boolean {
  if (!header.startsWith('bytes=')) return false;
  return header
    .slice('bytes='.length)
    .split(',')
    .some((spec) => {
      const bounds = /^\s*(\d+)-(\d+)\s*$/.exec(spec);
      return bounds !== null && Number(bounds[2]) < Number(bounds[1]);
    });
}

async function sendFile(req: Request, res: Response, storage: Storage, path: string): Promise<void> {
  const entry = await storage.stat(path);
  if (entry.type === 'dir') throw new StorageError('is_directory', path, 'a directory: HTTPS access reads files');
  if (entry.type === 'invalid_symlink') throw new StorageError('denied', path, 'a link that leads nowhere this endpoint reaches');
  const size = entry.size;
  const ranges = req.headers.range === undefined || invalidRange(req.headers.range) ? -2 : rangeParser(size, req.headers.range, { combine: true });
  if (ranges === -1) {
    res.set('Content-Range', `bytes */${size}`).status(416).json({ code: 'RangeNotSatisfiable', message: `The file holds ${size} bytes` });
    return;
  }
  // one range is served as asked; several, or a malformed header, get the whole file (RFC 9110 14.2)
  const range = ranges !== -2 && ranges.type === 'bytes' && ranges.length === 1 ? ranges[0]! : undefined;
  res.set({ 'Accept-Ranges': 'bytes', 'Last-Modified': entry.lastModified.toUTCString(), 'Content-Type': 'application/octet-stream', 'Cache-Control': 'private, no-store' });
  if ('download' in req.query) res.attachment(baseName(path));
  if (range) res.status(206).set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  res.set('Content-Length', String(range ? range.end - range.start + 1 : size));
  if (req.method === 'HEAD' || size === 0) {
    res.end();
    return;
  }
  // a few buffers of the file's chunk size, used again and again however long the file
  const pool = new ChunkBuffers(READ_CHUNK);
  await sendChunks(res, storage.read(path, { range, pool }), pool);
}

/** The file written through a temporary name; folders missing above it made where the caller may write the topmost of them. */
async function receiveFile(req: Request, res: Response, storage: Storage, path: string, mayWrite: (dir: string) => Promise<AccessDecision>, uploadIdleMs: number): Promise<void> {
  const missing: string[] = [];
  for (let dir = parentOf(path); dir !== '/'; dir = parentOf(dir)) {
    const found = await storage.stat(dir).catch((error: unknown) => {
      if (error instanceof StorageError && error.failure === 'not_found') return null;
      throw error;
    });
    if (found) break;
    missing.unshift(dir);
  }
  if (missing.length > 0) await mayWrite(missing[0]!);
  for (const dir of missing) {
    await storage.mkdir(dir).catch((error: unknown) => {
      // made meanwhile by another upload
      if (!(error instanceof StorageError && error.failure === 'exists')) throw error;
    });
  }
  const bytes = await storage.write(path, watchedUpload(req, uploadIdleMs));
  res.status(200).json({ DATA_TYPE: 'https_upload', path, bytes });
}
