import { createLogger, requestLogger, type Logger } from '@xfer/server-kit';
import { NODE_STORAGE_PATH, READ_GRANT_CLAIM, type ReadGrantClaim } from '@xfer/storage';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { NodeUnregistered } from '../ApiLink';
import type { ApiTrust } from '../ApiTrust';
import type { Peers } from '../copy/Peers';
import type { VerifyGrant } from './copyRoutes';
import { BrowserSignIn } from './browserSignIn';
import { managerApi, type ForwardManager } from './managerApi';
import { httpsAccess, type DecideAccess } from './httpsAccess';
import { BadRequest, Unauthorized, UPLOAD_IDLE_MS, type NodeStorages } from './requests';
import { storageRoutes, type VerifyApiCall } from './storageRoutes';

export interface NodeAppServices {
  /** The path prefix of the node's URL ('' for none). */
  prefix: string;
  storages: NodeStorages;
  verifyApiCall: VerifyApiCall;
  verifyGrant: VerifyGrant;
  /** Connections to the nodes this one pulls files from. */
  peers: Peers;
  /** How a client's access to a file is decided (by the API). */
  decide: DecideAccess;
  /** Where the authorization service answers (a client without a token is sent there). */
  authUrl: string;
  /** The node's URL as registered (with the port it listens on): where a browser's sign-in comes back. */
  publicUrl: () => string;
  /** How long an upload's body may go quiet (default UPLOAD_IDLE_MS). */
  uploadIdleMs?: number;
  /** Where the node's GCS Manager API is decided (the API). */
  forwardManager: ForwardManager;
  logger?: Logger;
}

/** How the node knows the API's calls: tokens the API signed (a key it publishes) for this node, not expired, and no grant. */
export function apiCallVerifier(trust: ApiTrust): VerifyApiCall {
  return async (authorization) => {
    const token = /^Bearer ([^\s]+)$/i.exec(authorization ?? '')?.[1];
    if (!token) throw new Unauthorized("the API's calls carry its bearer token");
    // a grant to read some files opens nothing else
    if ((await trust.verify(token))[READ_GRANT_CLAIM] !== undefined) throw new Unauthorized('a grant to read files is no token of the API');
  };
}

/** How the node knows a grant of the API (to another node) to read some of its files: signed as the API's calls are, with READ_GRANT_CLAIM. */
export function grantVerifier(trust: ApiTrust): VerifyGrant {
  return async (token) => {
    const grant = (await trust.verify(token))[READ_GRANT_CLAIM] as ReadGrantClaim | undefined;
    if (typeof grant !== 'object' || grant === null) throw new Unauthorized('a grant of the API to read files of this node');
    return grant;
  };
}

/** What body-parser says of a body it would not read (malformed, too large, compressed): a 4xx the client is told; null for any other error. */
function bodyRefusal(error: unknown): { status: number; code: string; message: string } | null {
  const refused = error as { type?: unknown; status?: unknown } | null;
  if (typeof refused?.type !== 'string' || typeof refused.status !== 'number' || refused.status < 400 || refused.status >= 500) return null;
  const code = refused.type === 'entity.too.large' ? 'PayloadTooLarge' : refused.type === 'encoding.unsupported' ? 'UnsupportedMediaType' : 'BadRequest';
  const message = refused.type === 'entity.too.large' ? 'The request body is larger than this call takes' : refused.type === 'encoding.unsupported' ? 'The request body must not be compressed' : 'The request body is no JSON this call takes';
  return { status: refused.status, code, message };
}

/** The data node's HTTP app, under the node's prefix: the API's storage protocol, and HTTPS access to endpoints' files. Does not listen. */
export function createNodeApp(services: NodeAppServices): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const logger = services.logger ?? createLogger({ name: 'xfer-node' });
  const uploadIdleMs = services.uploadIdleMs ?? UPLOAD_IDLE_MS;
  app.use(requestLogger(logger));
  // nosniff and the rest of helmet's headers on every answer (a file is never run as a page: no
  // source of anything); other sites' pages may still fetch files (the JS SDK's HTTPS access)
  app.use(helmet({ contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], sandbox: [] } }, crossOriginResourcePolicy: false }));
  app.use(`${services.prefix}${NODE_STORAGE_PATH}`, storageRoutes(services.storages, services.verifyApiCall, { verifyGrant: services.verifyGrant, peers: services.peers }, uploadIdleMs));
  app.use(`${services.prefix}/api`, managerApi(services.forwardManager));
  const signIn = new BrowserSignIn({ authUrl: services.authUrl, publicUrl: services.publicUrl, prefix: services.prefix });
  app.use(services.prefix || '/', signIn.routes());
  app.use(services.prefix || '/', httpsAccess({ storages: services.storages, decide: services.decide, signIn, uploadIdleMs }));
  app.use((_req: Request, res: Response) => {
    res.status(404).json({ code: 'NotFound', message: 'Nothing here' });
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const unreadable = bodyRefusal(error);
    if (unreadable) res.status(unreadable.status).json({ code: unreadable.code, message: unreadable.message });
    else if (error instanceof BadRequest) res.status(400).json({ code: 'BadRequest', message: error.message });
    else if (error instanceof NodeUnregistered) res.status(503).json({ code: 'NodeUnregistered', message: `This node serves nothing: ${error.message}` });
    else if (error instanceof Unauthorized) res.status(error.forbidden ? 403 : 401).json({ code: error.forbidden ? 'Forbidden' : 'Unauthorized', message: error.message });
    else {
      logger.error({ err: error, path: req.path }, 'unexpected error');
      res.status(500).json({ code: 'Unexpected', message: 'An unexpected error' });
    }
  });
  return app;
}
