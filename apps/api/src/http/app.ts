import 'reflect-metadata';
import type { CoreServices, NodeAdministration, ReadMemo } from '@xfer/core';
import { createLogger, addHealthRoutes, requestLogger, type HealthOfDatabase, type Logger } from '@xfer/server-kit';
import parseurl from 'parseurl';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { authenticate } from './authenticate';
import { endpointRoutes } from './endpointRoutes';
import { fileRoutes } from './fileRoutes';
import { taskRoutes } from './taskRoutes';
import { nodeRoutes } from './nodeRoutes';
import { gcsRoutes } from './gcsRoutes';
import { errorHandler, notFoundHandler } from './errors';
import { openApiDocument } from './openapi';
import { requestContext, VERSION_PREFIX } from './requestContext';

export interface ApiOptions {
  /** Largest JSON body accepted, as express.json understands it ('1mb'). */
  bodyLimit?: string;
  /** Where request logs go (default: JSON lines on stdout). */
  logger?: Logger;
}

/** What the API uses of the process: its core services, the read memo, and the database for the health checks. */
export type ApiServices = Pick<CoreServices, 'authentication' | 'endpoints' | 'accessRules' | 'endpointManager' | 'maintenance' | 'files' | 'nodeAccess' | 'gcsManager' | 'tasks'> & {
  /** What a running data node asks about itself. */
  admin: { nodes: Pick<NodeAdministration, 'authenticate' | 'briefing'> };
  readMemo: ReadMemo;
  database: HealthOfDatabase;
};

type NextHandler = (req: Request, res: Response, next: NextFunction) => void;

/** Handlers run one after another as one layer of Express's router: each begins when the one before calls next(); an error goes to Express's. */
function inSequence(...handlers: NextHandler[]): NextHandler {
  return (req, res, next) => {
    const from = (index: number) => (error?: unknown) => {
      if (error) next(error);
      else if (index === handlers.length) next();
      else handlers[index]!(req, res, from(index + 1));
    };
    from(0)();
  };
}

/** Routes registered on the app with `prefix` before their paths (what the route groups add routes to). */
function prefixedRoutes(app: Express, prefix: string): Router {
  const routes = {
    get: (path: string, ...handlers: RequestHandler[]) => app.get(`${prefix}${path}`, ...handlers),
    post: (path: string, ...handlers: RequestHandler[]) => app.post(`${prefix}${path}`, ...handlers),
    put: (path: string, ...handlers: RequestHandler[]) => app.put(`${prefix}${path}`, ...handlers),
    delete: (path: string, ...handlers: RequestHandler[]) => app.delete(`${prefix}${path}`, ...handlers),
  };
  // the groups call these four only
  return routes as unknown as Router;
}

/** The endpoint management API (area B) over the process's services. Does not listen. */
export function createApp(services: ApiServices, options: ApiOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // maintenance, then the caller: what every route of the API needs first
  const authenticated = authenticate(services.authentication);
  const gate = (req: Request, res: Response, next: NextFunction) => {
    const pending = services.maintenance.check();
    (pending ? pending.then(() => authenticated(req, res, next)) : authenticated(req, res, next)).catch(next);
  };
  // One layer of Express's router for what every request passes (each layer is a turn of the
  // router's loop, a mounted router a loop of its own and a prefix trimmed and restored): its id
  // and headers, its log line, its body (reads carry none: no parser), and under the version
  // prefix, the gate (the OpenAPI document aside: anyone may read it).
  const context = requestContext();
  const log = requestLogger(options.logger ?? createLogger({ name: 'xfer-api' }));
  const parseJson = express.json({ limit: options.bodyLimit ?? '1mb', type: () => true });
  const openApiPath = `${VERSION_PREFIX}/openapi.json`;
  // on the path as Express's router reads it (parseurl, which it keeps on the request for the
  // router: an absolute-form target names its path after the host), without regard to case
  const inApi = (req: Request) => {
    const path = (parseurl(req)?.pathname ?? '').toLowerCase();
    return (path === VERSION_PREFIX || path.startsWith(`${VERSION_PREFIX}/`)) && path !== openApiPath && path !== `${openApiPath}/`;
  };
  const gated: NextHandler = (req, res, next) => (inApi(req) ? gate(req, res, next) : next());
  const body: NextHandler = (req, res, next) => (req.method === 'GET' ? next() : parseJson(req, res, next));
  app.use(inSequence(context, log, body, gated));
  app.get(openApiPath, (_req, res) => {
    res.json(openApiDocument);
  });
  // the API's routes on the app itself, under the version prefix
  const api = prefixedRoutes(app, VERSION_PREFIX);
  endpointRoutes(api, services.endpoints, services.accessRules, services.endpointManager, services.tasks, services.readMemo);
  fileRoutes(api, services.files);
  taskRoutes(api, services.tasks);
  nodeRoutes(app, { nodes: services.admin.nodes, nodeAccess: services.nodeAccess });
  gcsRoutes(app, services.gcsManager);
  // after the API's routes: the health checks are not what most requests ask for
  addHealthRoutes(app, services.database);
  // what someone who types the API's address sees: where things are
  app.get('/', (_req, res) => {
    res.json({ service: 'xfer endpoint management API', api: `${VERSION_PREFIX}/`, openapi: `${VERSION_PREFIX}/openapi.json` });
  });
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
