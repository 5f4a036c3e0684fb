import 'reflect-metadata';
import type { CoreServices, ReadMemo } from '@xfer/core';
import { createLogger, addHealthRoutes, requestLogger, type HealthOfDatabase, type Logger } from '@xfer/server-kit';
import express, { type Express } from 'express';
import { authenticate } from './authenticate';
import { endpointRoutes } from './endpointRoutes';
import { fileRoutes } from './fileRoutes';
import { taskRoutes } from './taskRoutes';
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
export type ApiServices = Pick<CoreServices, 'authentication' | 'endpoints' | 'accessRules' | 'endpointManager' | 'maintenance' | 'files' | 'tasks'> & {
  readMemo: ReadMemo;
  database: HealthOfDatabase;
};

/** The endpoint management API (area B) over the process's services. Does not listen. */
export function createApp(services: ApiServices, options: ApiOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext());
  app.use(requestLogger(options.logger ?? createLogger({ name: 'xfer-api' })));
  addHealthRoutes(app, services.database);
  // Any content type: curl -d sends form encoding by default, and the body is JSON either way.
  const parseJson = express.json({ limit: options.bodyLimit ?? '1mb', type: () => true });
  // reads carry no body: they skip the parser's checks
  app.use((req, res, next) => (req.method === 'GET' ? next() : parseJson(req, res, next)));
  app.get(`${VERSION_PREFIX}/openapi.json`, (_req, res) => {
    res.json(openApiDocument);
  });
  app.use(VERSION_PREFIX, (_req, _res, next) => {
    const pending = services.maintenance.check();
    if (pending) pending.then(() => next(), next);
    else next();
  });
  app.use(VERSION_PREFIX, authenticate(services.authentication), endpointRoutes(services.endpoints, services.accessRules, services.endpointManager, services.tasks, services.readMemo), fileRoutes(services.files), taskRoutes(services.tasks));
  // what someone who types the API's address sees: where things are
  app.get('/', (_req, res) => {
    res.json({ service: 'xfer endpoint management API', api: `${VERSION_PREFIX}/`, openapi: `${VERSION_PREFIX}/openapi.json` });
  });
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
