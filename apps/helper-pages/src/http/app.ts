import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ResourceNotFoundError, type CoreServices } from '@xfer/core';
import { assignRequestIds, createLogger, addHealthRoutes, createViews, requestLogger, SHARED_STATIC_DIR, type HealthOfDatabase, type Logger } from '@xfer/server-kit';
import { parse as parseCookies } from 'cookie';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { clientsApiRoutes } from './clientsApi';
import { apiErrorHandler, errorPages } from './errors';
import { identitiesApiRoutes } from './identitiesApi';
import { helperPageRoutes } from './pages';
import { OAuthProtocol } from '../oauth/OAuthProtocol';
import { oauthRoutes, openIdRoutes } from '../oauth/oauthRoutes';

/** The helper pages' own templates and scripts (the stylesheet is shared: server-kit's). */
const VIEWS_DIR = join(__dirname, '..', '..', 'views');
const OWN_STATIC_DIR = join(__dirname, '..', '..', 'public');

/** What the authorization service uses of the process: its core services, and the database for the health checks. */
export type PagesServices = Pick<CoreServices, 'authorizationServer' | 'idTokens' | 'identityDirectory' | 'clientRegistration' | 'helperPages'> & { database: HealthOfDatabase };

export interface HelperPagesOptions {
  /** HMAC secret of the CSRF tokens; random per process unless set (set it when several instances share users). */
  csrfSecret?: string;
  /** Trust X-Forwarded-* from the one reverse proxy in front (so cookies get Secure behind https). */
  trustProxy?: boolean;
  /** Where request logs go (default: JSON lines on stdout). */
  logger?: Logger;
  /** Seconds an authorization code stays exchangeable (default 600). */
  codeLifetimeSeconds?: number;
  /** This service's public address (AUTH_PUBLIC_URL): the discovery document's issuer. */
  issuer?: string;
  /** Where the API answers, for the landing page's links (none: the same origin, as in the stand-in). */
  apiUrl?: string;
}

/** The authorization service's browser helper pages (area A). Does not listen. */
export function createApp(services: PagesServices, options: HelperPagesOptions = {}): Express {
  const { authorizationServer, idTokens } = services;
  const views = createViews(VIEWS_DIR);
  const protocol = new OAuthProtocol(authorizationServer, idTokens, { codeLifetimeSeconds: options.codeLifetimeSeconds ?? 600 });
  const issuer = options.issuer ?? 'http://localhost:8081';
  const app = express();
  app.disable('x-powered-by');
  // One hop: the proxy in front of us. `true` would let any client spoof X-Forwarded-For past the sign-in throttle.
  if (options.trustProxy) app.set('trust proxy', 1);
  app.use(assignRequestIds());
  app.use(requestLogger(options.logger ?? createLogger({ name: 'xfer-helper-pages' })));
  addHealthRoutes(app, services.database);
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'https:', 'data:'],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          baseUri: ["'none'"],
          objectSrc: ["'none'"],
        },
      },
      // the return link leaves for the client's own site; send it only our origin
      referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    }),
  );
  // Cookies as plain strings (the `cookie` package): cookie-parser turns `j:`-prefixed values into
  // objects, and a crafted cookie must not reach code that expects a session secret.
  app.use((req, _res, next) => {
    req.cookies = req.headers.cookie ? parseCookies(req.headers.cookie) : {};
    next();
  });
  app.use('/v2/oauth2', oauthRoutes(authorizationServer, protocol));
  app.use(openIdRoutes(authorizationServer, idTokens, issuer));
  app.use(
    '/v2/api',
    identitiesApiRoutes(services.identityDirectory),
    clientsApiRoutes(services.clientRegistration, authorizationServer),
    // every answer of the JSON API is a JSON document, an unknown route's too
    (req: express.Request) => {
      throw new ResourceNotFoundError(`No route ${req.method} ${req.originalUrl.split('?')[0].slice(0, 200)}`);
    },
    apiErrorHandler,
  );
  const staticOptions = { maxAge: '1h', index: false } as const;
  app.use('/v2/web/static', express.static(OWN_STATIC_DIR, staticOptions), express.static(SHARED_STATIC_DIR, staticOptions));
  // browsers ask for it at the root whatever the page links
  app.get('/favicon.ico', (_req, res) => res.sendFile(join(SHARED_STATIC_DIR, 'favicon.ico'), { maxAge: '1d' }));
  app.use(
    '/v2/web',
    helperPageRoutes(services.helperPages, authorizationServer, protocol, views, {
      csrfSecret: options.csrfSecret ?? randomBytes(32).toString('hex'),
      apiUrl: options.apiUrl,
    }),
  );
  // the root too: what someone who types the address sees
  app.get('/', (_req, res) => res.redirect(302, '/v2/web/'));
  const { notFound, errorHandler } = errorPages(views);
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
