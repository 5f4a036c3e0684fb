import { randomBytes } from 'node:crypto';
import {
  AuthenticationFailedError,
  isUuid,
  OAuthProtocolError,
  OWN_AUTH_CODE_PAGE,
  safeReturnLink,
  type AuthorizationServerService,
  type CheckedAuthorizationRequest,
  type ClientState,
  type HelperPagesService,
  type SignedIn,
} from '@xfer/core';
import { firstValue } from '@xfer/server-kit';
import { doubleCsrf } from 'csrf-csrf';
import express, { Router, type Request, type Response } from 'express';
import type nunjucks from 'nunjucks';
import type { OAuthProtocol } from '../oauth/OAuthProtocol';
import { formFields, sendProtocolResult } from '../oauth/oauthRoutes';
import { protocolErrorRedirect } from './errors';

export const SESSION_COOKIE = 'xfer_session';
const BROWSER_COOKIE = 'xfer_browser';
const CSRF_COOKIE = 'xfer_csrf';
const COOKIE_PATH = '/v2/web';
const DEFAULT_NEXT = '/v2/web/identities';

interface RouteOptions {
  csrfSecret: string;
  /** Where the API answers (the landing page links its OpenAPI document); none: this origin. */
  apiUrl?: string;
}

/** The first value of a query parameter; repeated parameters count once. */
const query = (req: Request, name: string): string | undefined => firstValue(req.query[name]);

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

/** The parameters of an authorization request (RFC 6749 4.1.1, RFC 7636 4.3) that the consent form carries along. */
const AUTHORIZE_PARAMS = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'nonce'] as const;

function authorizeParams(value: (name: string) => string | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of AUTHORIZE_PARAMS) {
    const v = value(name);
    if (v !== undefined) params[name] = v;
  }
  return params;
}

/**
 * Chromium applies form-action to the redirects that follow a form post: a form whose answer
 * sends the browser back to the client (consent, sign-in) must name that client's origin.
 */
function allowFormRedirectTo(res: Response, uri: string): void {
  const origin = new URL(uri).origin;
  const csp = res.getHeader('Content-Security-Policy');
  if (typeof csp === 'string' && origin !== 'null') res.setHeader('Content-Security-Policy', csp.replace("form-action 'self'", `form-action 'self' ${origin}`));
}

const cookieOptions = (req: Request) => ({ httpOnly: true, sameSite: 'lax' as const, secure: req.secure, path: COOKIE_PATH });

export function helperPageRoutes(
  service: HelperPagesService,
  authorizationServer: AuthorizationServerService,
  protocol: OAuthProtocol,
  views: nunjucks.Environment,
  options: RouteOptions,
): Router {
  const router = Router();
  // pages show who is signed in, and forms carry CSRF tokens: never from a cache (Back after logout)
  router.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });

  const { generateCsrfToken, doubleCsrfProtection } = doubleCsrf({
    getSecret: () => options.csrfSecret,
    // Before sign-in there is no session: a random per-browser cookie binds the token instead.
    getSessionIdentifier: (req) => (req.cookies?.[BROWSER_COOKIE] as string | undefined) ?? '',
    cookieName: CSRF_COOKIE,
    cookieOptions: { sameSite: 'lax', path: COOKIE_PATH, secure: false, httpOnly: true },
    getCsrfTokenFromRequest: (req) => (req.body as Record<string, unknown> | undefined)?._csrf as string | undefined,
  });

  async function page(req: Request, res: Response, template: string, context: Record<string, unknown>, returnLinkAtTop: boolean) {
    const client = await service.client(query(req, 'client_id'));
    const returnLink = safeReturnLink(client, query(req, 'redirect_uri'), query(req, 'redirect_name'));
    res.type('html').send(views.render(template, { ...context, client, returnLink, returnLinkAtTop, brandingCss: brandingCssOf(client) }));
  }

  /** The style sheet of a client's colours, where it registered any. */
  const brandingCssOf = (client: ClientState | null) => (client && (client.branding.primary_color || client.branding.background_color) ? `/v2/web/branding/${client.id}.css` : null);

  async function requireUser(req: Request, res: Response): Promise<SignedIn | null> {
    const user = await service.signedIn(req.cookies?.[SESSION_COOKIE]);
    if (!user) res.redirect(303, `/v2/web/login?next=${encodeURIComponent(req.originalUrl)}`);
    return user;
  }

  // a small landing page: what this is, and where to go
  router.get('/', async (req, res) => {
    await page(req, res, 'landing.njk', { title: 'xfer', apiUrl: options.apiUrl ?? '' }, false);
  });

  router.get('/logout', async (req, res) => {
    const hadSession = await service.logout(req.cookies?.[SESSION_COOKIE]);
    // every cookie this service set goes with the session
    for (const name of [SESSION_COOKIE, BROWSER_COOKIE, CSRF_COOKIE]) res.clearCookie(name, cookieOptions(req));
    await page(req, res, 'logout.njk', { title: 'Logged out', hadSession }, false);
  });

  router.get('/identities', async (req, res) => {
    const user = await requireUser(req, res);
    if (!user) return;
    await page(req, res, 'identities.njk', { title: 'Your identities', user, identities: service.identities(user) }, true);
  });

  /** A CSRF token for a form on the page; before sign-in a random per-browser cookie binds it. */
  function csrfTokenFor(req: Request, res: Response): string {
    if (!req.cookies?.[BROWSER_COOKIE]) {
      const browserId = randomBytes(18).toString('base64url');
      req.cookies = { ...req.cookies, [BROWSER_COOKIE]: browserId };
      res.cookie(BROWSER_COOKIE, browserId, cookieOptions(req));
    }
    return generateCsrfToken(req, res, { cookieOptions: { secure: req.secure } });
  }

  router.get('/consents', async (req, res) => {
    const user = await requireUser(req, res);
    if (!user) return;
    const rescindedId = query(req, 'rescinded');
    const rescinded = rescindedId ? ((await service.client(rescindedId))?.display_name ?? null) : null;
    const url = new URL(req.originalUrl, 'http://localhost');
    url.searchParams.delete('rescinded');
    await page(
      req,
      res,
      'consents.njk',
      { title: 'Your consents', user, applications: await service.consents(user), csrfToken: csrfTokenFor(req, res), currentUrl: `${url.pathname}${url.search}`, rescinded },
      true,
    );
  });

  router.post('/consents/rescind', express.urlencoded({ extended: false, limit: '8kb' }), doubleCsrfProtection, async (req, res) => {
    const user = await service.signedIn(req.cookies?.[SESSION_COOKIE]);
    if (!user) return res.redirect(303, '/v2/web/login?next=%2Fv2%2Fweb%2Fconsents');
    const fields = formFields(req);
    const clientId = fields.client_id?.toLowerCase() ?? '';
    if (isUuid(clientId)) await authorizationServer.authorizationCode.rescind(user, clientId);
    const back = new URL(safeNext(fields.next?.startsWith('/v2/web/consents') ? fields.next : '/v2/web/consents'), 'http://localhost');
    if (isUuid(clientId)) back.searchParams.set('rescinded', clientId);
    res.redirect(303, `${back.pathname}${back.search}`);
  });

  /** This service's auth-code page at the address the browser reached it at (a redirect URI clients may register as a path). */
  const ownAuthCodePage = (req: Request) => `${req.protocol}://${req.get('host')}${OWN_AUTH_CODE_PAGE}`;

  /**
   * Checks an authorization request; a protocol error goes back to the client's (registered)
   * redirect URI, an unknown client or unregistered redirect URI becomes an error page.
   */
  async function checkedRequest(req: Request, res: Response, params: Record<string, string>): Promise<CheckedAuthorizationRequest | null> {
    try {
      return await authorizationServer.authorizationCode.checkAuthorizationRequest(params, ownAuthCodePage(req));
    } catch (error) {
      if (!(error instanceof OAuthProtocolError)) throw error;
      res.redirect(302, protocolErrorRedirect(error, params.redirect_uri, params.state));
      return null;
    }
  }

  /**
   * OpenID Connect's prompt=login and max_age: the user signs in again. The request sign-in
   * returns to carries neither (they are not authorize parameters kept), so it does not loop.
   * Other parameters the hosted service's SDK may send (session_required_identities, ...) are ignored.
   */
  function mustSignInAgain(req: Request, user: SignedIn): boolean {
    if ((query(req, 'prompt') ?? '').split(' ').includes('login')) return true;
    const maxAge = query(req, 'max_age');
    if (maxAge === undefined || !/^\d{1,9}$/.test(maxAge) || !user.authenticatedAt) return false;
    return Date.now() - user.authenticatedAt.getTime() > Number(maxAge) * 1000;
  }

  const authorizeUrl = (params: Record<string, string>) => `/v2/web/authorize?${new URLSearchParams(params).toString()}`;

  router.get('/authorize', async (req, res) => {
    const params = authorizeParams((name) => query(req, name));
    const checked = await checkedRequest(req, res, params);
    if (!checked) return;
    // OpenID Connect's prompt=none: answer the client at once, never show a page
    const prompts = (query(req, 'prompt') ?? '').split(' ').filter(Boolean);
    const silent = prompts.includes('none');
    const backToClient = (code: 'login_required' | 'consent_required' | 'invalid_request', message: string) =>
      res.redirect(302, protocolErrorRedirect({ code, message }, checked.redirectUri, params.state));
    if (silent && prompts.length > 1) return backToClient('invalid_request', 'prompt=none cannot be combined with other prompt values');
    const user = await service.signedIn(req.cookies?.[SESSION_COOKIE]);
    if (!user || mustSignInAgain(req, user)) {
      if (silent) return backToClient('login_required', 'The user is not signed in');
      return res.redirect(303, `/v2/web/login?next=${encodeURIComponent(authorizeUrl(params))}`);
    }
    const pending = await authorizationServer.authorizationCode.scopesToConsent(user, checked.client, checked.scopes);
    if (pending.length === 0) return sendProtocolResult(res, await protocol.authorize(params, user, true));
    if (silent) return backToClient('consent_required', 'The user has not consented to every scope asked for');
    allowFormRedirectTo(res, checked.redirectUri);
    const context = {
      title: 'Allow access',
      user,
      tree: await authorizationServer.authorizationCode.scopeTree(pending),
      params,
      csrfToken: csrfTokenFor(req, res),
      redirectHost: new URL(checked.redirectUri).host,
    };
    await page(req, res, 'authorize.njk', context, false);
  });

  router.post('/authorize', express.urlencoded({ extended: false, limit: '16kb' }), doubleCsrfProtection, async (req, res) => {
    const fields = formFields(req);
    const params = authorizeParams((name) => fields[name]);
    const checked = await checkedRequest(req, res, params);
    if (!checked) return;
    const user = await service.signedIn(req.cookies?.[SESSION_COOKIE]);
    if (!user) return res.redirect(303, `/v2/web/login?next=${encodeURIComponent(authorizeUrl(params))}`);
    const allowed = fields.decision === 'allow';
    if (allowed) await authorizationServer.authorizationCode.recordConsents(user, checked.client, checked.scopes);
    sendProtocolResult(res, await protocol.authorize(params, user, allowed));
  });

  const renderSignIn = async (req: Request, res: Response, status: number, extra: { next: string } & Record<string, unknown>) => {
    // signing in may end at the client (already consented): let the form's redirects go there
    const next = new URL(extra.next, 'http://localhost');
    let client: ClientState | null = null;
    if (next.pathname === '/v2/web/authorize') {
      const checked = await authorizationServer.authorizationCode.checkAuthorizationRequest(authorizeParams((name) => next.searchParams.get(name) ?? undefined), ownAuthCodePage(req)).catch(() => null);
      if (checked) allowFormRedirectTo(res, checked.redirectUri);
      client = checked?.client ?? null;
    }
    const csrfToken = csrfTokenFor(req, res);
    // the client that asks, named and in its colours, as on the consent page
    res.status(status).type('html').send(views.render('login.njk', { title: 'Sign in', csrfToken, client, brandingCss: brandingCssOf(client), ...extra }));
  };

  router.get('/login', (req, res) => renderSignIn(req, res, 200, { next: safeNext(query(req, 'next')) }));

  // The throttle is in signIn, after the CSRF check: only real failed sign-ins count, so a forged
  // form on another site cannot lock anyone out.
  router.post(
    '/login',
    express.urlencoded({ extended: false, limit: '8kb' }),
    doubleCsrfProtection,
    async (req, res) => {
      const body = req.body as Record<string, unknown>;
      const username = typeof body.username === 'string' ? body.username.trim() : '';
      const password = typeof body.password === 'string' ? body.password : '';
      const next = safeNext(body.next);
      try {
        const { secret, expiresAt } = await service.signIn(username, password, { address: req.ip, previousSecret: req.cookies?.[SESSION_COOKIE] });
        res.cookie(SESSION_COOKIE, secret, { ...cookieOptions(req), expires: expiresAt });
        res.redirect(303, next);
      } catch (error) {
        if (!(error instanceof AuthenticationFailedError)) throw error;
        await renderSignIn(req, res, 401, { error: error.message, username, next });
      }
    },
  );

  // the redirect URI of native apps (as on the hosted service): the user copies the code from here
  router.get('/auth-code', (req, res) => {
    const code = query(req, 'code');
    const error = query(req, 'error');
    const errorDescription = query(req, 'error_description');
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
    res.type('html').send(views.render('auth-code.njk', { title: 'Authorization code', code: code?.slice(0, 256), error: error?.slice(0, 64), errorDescription: errorDescription?.slice(0, 300) }));
  });

  router.get('/branding/:clientId.css', async (req, res) => {
    const client: ClientState | null = await service.client(req.params.clientId);
    const { primary_color, background_color } = client?.branding ?? {};
    const rules = [primary_color && `--brand-primary: ${primary_color};`, background_color && `--brand-background: ${background_color};`].filter(Boolean);
    res.type('text/css').set('Cache-Control', 'public, max-age=300').send(`:root { ${rules.join(' ')} }\n`);
  });

  return router;
}
