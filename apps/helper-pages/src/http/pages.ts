import { randomBytes } from 'node:crypto';
import { AuthenticationFailedError, safeReturnLink, type ClientState, type HelperPagesService, type SignedIn } from '@xfer/core';
import { doubleCsrf } from 'csrf-csrf';
import express, { Router, type Request, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import type nunjucks from 'nunjucks';

export const SESSION_COOKIE = 'xfer_session';
const BROWSER_COOKIE = 'xfer_browser';
const CSRF_COOKIE = 'xfer_csrf';
const COOKIE_PATH = '/v2/web';
const DEFAULT_NEXT = '/v2/web/identities';

interface RouteOptions {
  csrfSecret: string;
  signInAttempts: number;
  signInWindowMs: number;
}

/** The first value of a query parameter; repeated parameters count once. */
function query(req: Request, name: string): string | undefined {
  const value = req.query[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
}

/** Where sign-in may send the browser back to: only pages of this app, never another site. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || /[\\\s]/.test(next)) return DEFAULT_NEXT;
  // Resolve dot segments the way a browser would before checking where it leads.
  const url = new URL(next, 'http://localhost');
  if (url.origin !== 'http://localhost' || !url.pathname.startsWith('/v2/web/') || url.pathname.startsWith('/v2/web/login')) {
    return DEFAULT_NEXT;
  }
  return `${url.pathname}${url.search}`;
}

const cookieOptions = (req: Request) => ({ httpOnly: true, sameSite: 'lax' as const, secure: req.secure, path: COOKIE_PATH });

export function helperPageRoutes(service: HelperPagesService, views: nunjucks.Environment, options: RouteOptions): Router {
  const router = Router();

  const { generateCsrfToken, doubleCsrfProtection } = doubleCsrf({
    getSecret: () => options.csrfSecret,
    // Before sign-in there is no session: a random per-browser cookie binds the token instead.
    getSessionIdentifier: (req) => (req.cookies?.[BROWSER_COOKIE] as string | undefined) ?? '',
    cookieName: CSRF_COOKIE,
    cookieOptions: { sameSite: 'lax', path: COOKIE_PATH, secure: false, httpOnly: true },
    getCsrfTokenFromRequest: (req) => (req.body as Record<string, unknown> | undefined)?._csrf as string | undefined,
  });

  const signInThrottle = rateLimit({
    windowMs: options.signInWindowMs,
    limit: options.signInAttempts,
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    handler: (_req, res) => {
      const minutes = Math.ceil(options.signInWindowMs / 60000);
      res.status(429).type('html').send(
        views.render('error.njk', {
          title: 'Too many sign-in attempts',
          message: `Too many failed sign-ins from your address. Try again in ${minutes} minutes.`,
        }),
      );
    },
  });

  async function page(req: Request, res: Response, template: string, context: Record<string, unknown>, returnLinkAtTop: boolean) {
    const client = await service.client(query(req, 'client_id'));
    const returnLink = safeReturnLink(client, query(req, 'redirect_uri'), query(req, 'redirect_name'));
    const brandingCss = client && (client.branding.primary_color || client.branding.background_color) ? `/v2/web/branding/${client.id}.css` : null;
    res.type('html').send(views.render(template, { ...context, client, returnLink, returnLinkAtTop, brandingCss }));
  }

  async function requireUser(req: Request, res: Response): Promise<SignedIn | null> {
    const user = await service.signedIn(req.cookies?.[SESSION_COOKIE]);
    if (!user) res.redirect(303, `/v2/web/login?next=${encodeURIComponent(req.originalUrl)}`);
    return user;
  }

  router.get('/logout', async (req, res) => {
    const hadSession = await service.logout(req.cookies?.[SESSION_COOKIE]);
    res.clearCookie(SESSION_COOKIE, cookieOptions(req));
    await page(req, res, 'logout.njk', { title: 'Logged out', hadSession }, false);
  });

  router.get('/identities', async (req, res) => {
    const user = await requireUser(req, res);
    if (!user) return;
    await page(req, res, 'identities.njk', { title: 'Your identities', user, identities: service.identities(user) }, true);
  });

  router.get('/consents', async (req, res) => {
    const user = await requireUser(req, res);
    if (!user) return;
    await page(req, res, 'consents.njk', { title: 'Your consents', user, applications: await service.consents(user) }, true);
  });

  const renderSignIn = (req: Request, res: Response, status: number, extra: Record<string, unknown> = {}) => {
    if (!req.cookies?.[BROWSER_COOKIE]) {
      const browserId = randomBytes(18).toString('base64url');
      req.cookies = { ...req.cookies, [BROWSER_COOKIE]: browserId };
      res.cookie(BROWSER_COOKIE, browserId, cookieOptions(req));
    }
    const csrfToken = generateCsrfToken(req, res, { cookieOptions: { secure: req.secure } });
    res.status(status).type('html').send(views.render('login.njk', { title: 'Sign in', csrfToken, ...extra }));
  };

  router.get('/login', (req, res) => renderSignIn(req, res, 200, { next: safeNext(query(req, 'next')) }));

  router.post(
    '/login',
    signInThrottle,
    express.urlencoded({ extended: false, limit: '8kb' }),
    doubleCsrfProtection,
    async (req, res) => {
      const body = req.body as Record<string, unknown>;
      const username = typeof body.username === 'string' ? body.username.trim() : '';
      const password = typeof body.password === 'string' ? body.password : '';
      const next = safeNext(body.next);
      try {
        const { secret, expiresAt } = await service.signIn(username, password);
        res.cookie(SESSION_COOKIE, secret, { ...cookieOptions(req), expires: expiresAt });
        res.redirect(303, next);
      } catch (error) {
        if (!(error instanceof AuthenticationFailedError)) throw error;
        renderSignIn(req, res, 401, { error: error.message, username, next });
      }
    },
  );

  router.get('/branding/:clientId.css', async (req, res) => {
    const client: ClientState | null = await service.client(req.params.clientId);
    const { primary_color, background_color } = client?.branding ?? {};
    const rules = [primary_color && `--brand-primary: ${primary_color};`, background_color && `--brand-background: ${background_color};`].filter(Boolean);
    res.type('text/css').set('Cache-Control', 'public, max-age=300').send(`:root { ${rules.join(' ')} }\n`);
  });

  return router;
}
