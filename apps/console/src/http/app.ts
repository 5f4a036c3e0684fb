import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { assignRequestIds, createLogger, createViews, logRequestError, requestIdOf, requestLogger, SHARED_STATIC_DIR, type Logger } from '@xfer/server-kit';
import { parse as parseCookies } from 'cookie';
import { doubleCsrf } from 'csrf-csrf';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { ApiError, PersonApi, SignedOutError } from './api';
import { consolePages, type PageContext } from './pages';
import { ConsoleSessions, DEFAULT_SESSION_OPTIONS, type ConsoleSession, type SessionOptions } from './sessions';
import { ConsoleSignIn, PendingSignIns, SIGN_IN_SECONDS, SignInError } from './signIn';

export interface ConsoleOptions {
  /** Where the console calls the API (without /v0.10). */
  apiUrl: string;
  /** Where browsers and the console reach the authorization service. */
  authUrl: string;
  /** Where browsers reach the console. */
  publicUrl: string;
  clientId: string;
  clientSecret: string;
  /** HMAC secret of the CSRF tokens; random per process unless set. */
  csrfSecret?: string;
  trustProxy?: boolean;
  logger?: Logger;
  sessions?: Partial<SessionOptions>;
}

export const CONSOLE_SESSION_COOKIE = 'xfer_console';
/** A sign-in under way, sealed (see PendingSignIns). */
export const CONSOLE_SIGN_IN_COOKIE = 'xfer_console_signin';
const CSRF_COOKIE = 'xfer_console_csrf';
const BASE = '/console';
const CONSOLE_STATIC_DIR = join(__dirname, '..', '..', 'public');

/** A console page's path from what a browser sent: only pages of the console, never another site. */
export function safeConsolePath(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith(`${BASE}/`) || /[\\\s]/.test(next)) return `${BASE}/search`;
  const url = new URL(next, 'http://localhost');
  if (url.origin !== 'http://localhost' || !url.pathname.startsWith(`${BASE}/`) || url.pathname.startsWith(`${BASE}/login`) || url.pathname.startsWith(`${BASE}/callback`)) return `${BASE}/search`;
  return `${url.pathname}${url.search}`;
}

/** The console's Express app, and what ends its sessions (revoking their tokens) when the process stops. */
export type ConsoleApp = Express & { endSessions(): Promise<void> };

/**
 * The web console: server-rendered pages over the public API, as a first-party OAuth client.
 * Every page lives under /console/; the app does not listen.
 */
export function createConsoleApp(options: ConsoleOptions): ConsoleApp {
  const views = createViews(join(__dirname, '..', '..', 'views'));
  const signIn = new ConsoleSignIn(options);
  // whenever a session ends, everything its sign-in got is revoked
  const sessions = new ConsoleSessions((ended) => signIn.revoke(ended.tokens), { ...DEFAULT_SESSION_OPTIONS, ...options.sessions });
  const pendingSignIns = new PendingSignIns();
  const authOrigin = new URL(options.authUrl).origin;
  const csrfSecret = options.csrfSecret ?? randomBytes(32).toString('hex');

  const app = express();
  app.disable('x-powered-by');
  if (options.trustProxy) app.set('trust proxy', 1);
  app.use(assignRequestIds());
  app.use(requestLogger(options.logger ?? createLogger({ name: 'xfer-console' })));
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'none'"],
          scriptSrc: ["'none'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'"],
          // sign-out posts here, then goes on to the authorization service's sign-out page
          formAction: ["'self'", authOrigin],
          frameAncestors: ["'none'"],
          baseUri: ["'none'"],
          objectSrc: ["'none'"],
        },
      },
      referrerPolicy: { policy: 'same-origin' },
    }),
  );
  app.use((req, res, next) => {
    req.cookies = req.headers.cookie ? parseCookies(req.headers.cookie) : {};
    // pages show one person's endpoints and carry CSRF tokens: never from a cache
    res.set('Cache-Control', 'no-store');
    next();
  });

  const cookieOptions = (req: Request) => ({ httpOnly: true, sameSite: 'lax' as const, secure: req.secure, path: BASE });
  const { generateCsrfToken, doubleCsrfProtection } = doubleCsrf({
    getSecret: () => csrfSecret,
    getSessionIdentifier: (req) => (req.cookies?.[CONSOLE_SESSION_COOKIE] as string | undefined) ?? '',
    cookieName: CSRF_COOKIE,
    cookieOptions: { sameSite: 'lax', path: BASE, secure: false, httpOnly: true },
    getCsrfTokenFromRequest: (req) => (req.body as Record<string, unknown> | undefined)?._csrf as string | undefined,
  });
  const form = [express.urlencoded({ extended: false, limit: '64kb' }), doubleCsrfProtection];

  const sessionOf = (req: Request) => sessions.find(req.cookies?.[CONSOLE_SESSION_COOKIE]);

  function render(req: Request, res: Response, template: string, context: Record<string, unknown>, status = 200): void {
    const session = sessionOf(req);
    const notice = session?.notice ?? null;
    if (session) session.notice = null;
    const csrfToken = session ? generateCsrfToken(req, res, { cookieOptions: { secure: req.secure } }) : null;
    res.status(status).type('html').send(views.render(template, { person: session?.person ?? null, csrfToken, notice, ...context }));
  }

  /** The page's context for a signed-in person; null when the browser was sent to sign in. */
  function signedIn(req: Request, res: Response): PageContext | null {
    const session = sessionOf(req);
    if (!session) {
      res.redirect(303, `${BASE}/login?next=${encodeURIComponent(req.method === 'GET' ? req.originalUrl : `${BASE}/search`)}`);
      return null;
    }
    return {
      session,
      api: new PersonApi(options.apiUrl, options.authUrl, session.tokens),
      render: (template, context, status) => render(req, res, template, context, status),
      redirect: (path, notice) => {
        if (notice) session.notice = notice;
        res.redirect(303, `${BASE}${path}`);
      },
    };
  }

  const staticOptions = { maxAge: '1h', index: false } as const;
  app.use(`${BASE}/static`, express.static(CONSOLE_STATIC_DIR, staticOptions), express.static(SHARED_STATIC_DIR, staticOptions));

  app.get(`${BASE}/`, (req, res) => {
    if (sessionOf(req)?.person) return res.redirect(303, `${BASE}/search`);
    render(req, res, 'home.njk', { title: 'Welcome' });
  });
  app.get(BASE, (_req, res) => res.redirect(302, `${BASE}/`));

  app.get(`${BASE}/login`, async (req, res) => {
    const next = safeConsolePath(req.query.next);
    if (sessionOf(req)) return res.redirect(303, next);
    // nothing kept on the server until the sign-in completes: the request under way travels sealed in the browser's cookie
    const { url, pending } = await signIn.start(next);
    res.cookie(CONSOLE_SIGN_IN_COOKIE, await pendingSignIns.seal(pending), { ...cookieOptions(req), maxAge: SIGN_IN_SECONDS * 1000 });
    res.redirect(303, url);
  });

  app.get(`${BASE}/callback`, async (req, res) => {
    const pending = await pendingSignIns.open(req.cookies?.[CONSOLE_SIGN_IN_COOKIE] as string | undefined);
    res.clearCookie(CONSOLE_SIGN_IN_COOKIE, cookieOptions(req));
    try {
      const { person, tokens } = await signIn.finish(pending, req.query as Record<string, string>);
      // a new session id at every sign-in: whatever id the browser held before names nothing now
      const before = sessionOf(req);
      if (before) await sessions.end(before);
      const session = sessions.create(person, tokens);
      res.cookie(CONSOLE_SESSION_COOKIE, session.id, cookieOptions(req));
      res.redirect(303, pending!.next);
    } catch (error) {
      if (!(error instanceof SignInError)) throw error;
      render(req, res, 'error.njk', { title: 'Sign-in failed', message: `${error.message}. Sign in again from the start page.` }, 400);
    }
  });

  app.post(`${BASE}/logout`, ...form, async (req, res) => {
    const session = sessionOf(req);
    if (session) await sessions.end(session);
    for (const name of [CONSOLE_SESSION_COOKIE, CSRF_COOKIE]) res.clearCookie(name, cookieOptions(req));
    // on to the authorization service's sign-out, which links back here
    const logout = new URL('/v2/web/logout', options.authUrl);
    logout.searchParams.set('client_id', options.clientId);
    logout.searchParams.set('redirect_uri', signIn.homeUrl);
    logout.searchParams.set('redirect_name', 'xfer console');
    res.redirect(303, logout.href);
  });

  app.use(BASE, consolePages(signedIn, form));

  app.use(BASE, (req, res) => render(req, res, 'error.njk', { title: 'Not found', message: 'There is no page at this address.' }, 404));
  app.get('/', (_req, res) => res.redirect(302, `${BASE}/`));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof SignedOutError) {
      const session = sessionOf(req);
      if (session) void sessions.end(session);
      return res.redirect(303, `${BASE}/login?next=${encodeURIComponent(req.method === 'GET' ? req.originalUrl : `${BASE}/search`)}`);
    }
    if ((error as { code?: string })?.code === 'EBADCSRFTOKEN') {
      return render(req, res, 'error.njk', { title: 'Form expired', message: 'The form expired or did not come from this site. Reload the page and try again.' }, 403);
    }
    if (error instanceof ApiError) {
      const title = error.status === 404 ? 'Not found' : error.status === 403 ? 'Not allowed' : error.status >= 500 ? 'Service unavailable' : 'Request refused';
      return render(req, res, 'error.njk', { title, message: error.message }, error.status >= 500 ? 502 : error.status);
    }
    if (error instanceof SignInError) {
      return render(req, res, 'error.njk', { title: 'Sign-in is not available', message: error.message }, 502);
    }
    const status = (error as { status?: number })?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return render(req, res, 'error.njk', { title: 'Bad request', message: 'The request could not be read.' }, status);
    }
    logRequestError(res, error);
    render(req, res, 'error.njk', { title: 'Something went wrong', message: 'An internal error occurred. Please try again later.', requestId: requestIdOf(res) }, 500);
  });
  return Object.assign(app, { endSessions: () => sessions.endAll() });
}

export type { ConsoleSession };
