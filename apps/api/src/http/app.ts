import 'reflect-metadata';
import { TOKENS } from '@xfer/server-kit';
import { createLogger, addHealthRoutes, requestLogger, type Logger } from '@xfer/server-kit';
import express, { type Express } from 'express';
import type { Container } from 'inversify';
import { authenticate } from './authenticate';
import { endpointRoutes } from './endpointRoutes';
import { errorHandler, notFoundHandler } from './errors';
import { openApiDocument } from './openapi';
import { requestContext, VERSION_PREFIX } from './requestContext';

export interface ApiOptions {
  /** Largest JSON body accepted, as express.json understands it ('1mb'). */
  bodyLimit?: string;
  /** Where request logs go (default: JSON lines on stdout). */
  logger?: Logger;
}

/** The endpoint management API (area B) over the services bound in `container`. Does not listen. */
export function createApp(container: Container, options: ApiOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext());
  app.use(requestLogger(options.logger ?? createLogger({ name: 'xfer-api' })));
  addHealthRoutes(app, container.get(TOKENS.Database));
  // Any content type: curl -d sends form encoding by default, and the body is JSON either way.
  const parseJson = express.json({ limit: options.bodyLimit ?? '1mb', type: () => true });
  // reads carry no body: they skip the parser's checks
  app.use((req, res, next) => (req.method === 'GET' ? next() : parseJson(req, res, next)));
  app.get(`${VERSION_PREFIX}/openapi.json`, (_req, res) => {
    res.json(openApiDocument);
  });
  const maintenance = container.get(TOKENS.maintenance);
  app.use(VERSION_PREFIX, (_req, _res, next) => {
    const pending = maintenance.check();
    if (pending) pending.then(() => next(), next);
    else next();
  });
  app.use(VERSION_PREFIX, authenticate(container.get(TOKENS.authentication)), endpointRoutes(container.get(TOKENS.endpoints), container.get(TOKENS.accessRules), container.get(TOKENS.endpointManager), container.get(TOKENS.ReadMemo)));
  // what someone who types the API's address sees: where things are
  app.get('/', (_req, res) => {
    res.json({ service: 'xfer endpoint management API', api: `${VERSION_PREFIX}/`, openapi: `${VERSION_PREFIX}/openapi.json` });
  });
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
