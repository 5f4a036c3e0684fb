import { createLogger, requestLogger, type Logger } from '@xfer/server-kit';
import { NODE_STORAGE_PATH, READ_GRANT_CLAIM, type ReadGrant } from '@xfer/storage';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { NodeUnregistered } from '../ApiLink';
import type { ApiTrust } from '../ApiTrust';
import type { Peers } from '../copy/Peers';
import type { VerifyGrant } from './copyRoutes';
import { httpsAccess, type DecideAccess } from './httpsAccess';
import { BadRequest, Unauthorized, type NodeStorages } from './requests';
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
    const grant = (await trust.verify(token))[READ_GRANT_CLAIM] as ReadGrant | undefined;
    if (typeof grant !== 'object' || grant === null) throw new Unauthorized('a grant of the API to read files of this node');
    return grant;
  };
}

/** The data node's HTTP app, under the node's prefix: the API's storage protocol, and HTTPS access to endpoints' files. Does not listen. */
export function createNodeApp(services: NodeAppServices): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const logger = services.logger ?? createLogger({ name: 'xfer-node' });
  app.use(requestLogger(logger));
  app.use(`${services.prefix}${NODE_STORAGE_PATH}`, storageRoutes(services.storages, services.verifyApiCall, { verifyGrant: services.verifyGrant, peers: services.peers }));
  app.use(services.prefix || '/', httpsAccess({ storages: services.storages, decide: services.decide, authUrl: services.authUrl }));
  app.use((_req: Request, res: Response) => {
    res.status(404).json({ code: 'NotFound', message: 'Nothing here' });
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof BadRequest) res.status(400).json({ code: 'BadRequest', message: error.message });
    else if (error instanceof NodeUnregistered) res.status(503).json({ code: 'NodeUnregistered', message: `This node serves nothing: ${error.message}` });
    else if (error instanceof Unauthorized) res.status(error.forbidden ? 403 : 401).json({ code: error.forbidden ? 'Forbidden' : 'Unauthorized', message: error.message });
    else {
      logger.error({ err: error, path: req.path }, 'unexpected error');
      res.status(500).json({ code: 'Unexpected', message: 'An unexpected error' });
    }
  });
  return app;
}
