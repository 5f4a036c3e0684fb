import { createHash, randomBytes } from 'node:crypto';
import { httpsScopeOf, isUuid, NODE_SIGN_IN_PATH, nodeSignInUri, resolveStoragePath } from '@xfer/core';
import { parse as parseCookies, serialize as cookie } from 'cookie';
import express, { type Request, type Response, type Router } from 'express';
import { request } from 'undici';

/** The cookie that carries a browser's token for one endpoint's files (its path: the endpoint's). */
const TOKEN_COOKIE = 'xfer_https';
/** The cookie that carries a sign-in under way: its state, its PKCE verifier, the file to go back to. */
const SIGN_IN_COOKIE = 'xfer_sign_in';
/** A sign-in not finished within this is begun again. */
const SIGN_IN_SECONDS = 600;
/** How long the node waits for the authorization service's answer to a code. */
const EXCHANGE_MS = 10_000;

export interface BrowserSignInOptions {
  /** The authorization service. */
  authUrl: string;
  /** The node's URL as the API registered it (with the port it listens on): where a sign-in comes back to, whatever Host a request named. */
  publicUrl: () => string;
  /** The path prefix of the node's URL ('' for none). */
  prefix: string;
}

/**
 * How a person reaches a node's files in a browser, as at a Globus Connect Server collection: a
 * GET without credentials is sent to the authorization service to sign in and consent to the
 * endpoint's `https` scope (the endpoint's own public client, PKCE), comes back to the node's
 * sign-in path, whose code the node exchanges for a token kept in a cookie of the endpoint's path;
 * then on to the file.
 */
export class BrowserSignIn {
  constructor(private readonly options: BrowserSignInOptions) {}

  /** The token a browser holds for the endpoint's files (its cookie), or null. */
  tokenOf(req: Request): string | null {
    return parseCookies(req.headers.cookie ?? '')[TOKEN_COOKIE] ?? null;
  }

  /** Sends the browser to sign in for `path` of the endpoint (the client_id of the redirect is the endpoint's id: what GCSDownloader reads). */
  redirect(res: Response, endpointId: string, path: string): void {
    const state = randomBytes(16).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    res.append('Set-Cookie', cookie(SIGN_IN_COOKIE, JSON.stringify({ state, verifier, path }), { httpOnly: true, secure: true, sameSite: 'lax', path: this.signInPath(endpointId), maxAge: SIGN_IN_SECONDS }));
    const query = new URLSearchParams({
      client_id: endpointId,
      scope: httpsScopeOf(endpointId),
      response_type: 'code',
      redirect_uri: this.redirectUri(endpointId),
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    res.redirect(302, `${this.options.authUrl}/v2/oauth2/authorize?${query}`);
  }

  /** Forgets the browser's token for the endpoint (the API refused it: expired, revoked). */
  forget(res: Response, endpointId: string): void {
    res.append('Set-Cookie', cookie(TOKEN_COOKIE, '', { httpOnly: true, secure: true, sameSite: 'lax', path: this.endpointPath(endpointId), maxAge: 0 }));
  }

  /** Where a sign-in comes back: the code exchanged, the token kept in the endpoint's cookie, and on to the file. */
  routes(): Router {
    const router = express.Router();
    router.get(`${NODE_SIGN_IN_PATH}/:endpointId`, async (req: Request, res: Response) => {
      const endpointId = String(req.params.endpointId).toLowerCase();
      const refuse = (status: number, why: string) => void res.status(status).type('text/plain').send(`Signing in to reach these files did not succeed: ${why}`);
      if (!isUuid(endpointId)) return refuse(404, 'no such endpoint');
      const pending = pendingOf(parseCookies(req.headers.cookie ?? '')[SIGN_IN_COOKIE]);
      if (typeof req.query.error === 'string') return refuse(403, `the authorization service answered ${req.query.error.slice(0, 100)}`);
      if (pending === null || req.query.state !== pending.state || typeof req.query.code !== 'string') return refuse(400, 'this sign-in was not begun here, or took too long: open the file again');
      let answer;
      try {
        answer = await request(`${this.options.authUrl}/v2/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'authorization_code', code: req.query.code, redirect_uri: this.redirectUri(endpointId), client_id: endpointId, code_verifier: pending.verifier }).toString(),
          headersTimeout: EXCHANGE_MS,
          bodyTimeout: EXCHANGE_MS,
        });
      } catch {
        return refuse(502, 'the authorization service does not answer this node');
      }
      const tokens = (await answer.body.json().catch(() => null)) as { access_token?: unknown; expires_in?: unknown } | null;
      if (answer.statusCode !== 200 || typeof tokens?.access_token !== 'string') return refuse(502, `the authorization service refused the code (${answer.statusCode})`);
      const maxAge = typeof tokens.expires_in === 'number' ? tokens.expires_in : 3600;
      res.append('Set-Cookie', cookie(TOKEN_COOKIE, tokens.access_token, { httpOnly: true, secure: true, sameSite: 'lax', path: this.endpointPath(endpointId), maxAge }));
      res.append('Set-Cookie', cookie(SIGN_IN_COOKIE, '', { httpOnly: true, secure: true, sameSite: 'lax', path: this.signInPath(endpointId), maxAge: 0 }));
      res.redirect(303, `${this.endpointPath(endpointId)}${pending.path.split('/').map(encodeURIComponent).join('/')}`);
    });
    return router;
  }

  private redirectUri(endpointId: string): string {
    return nodeSignInUri(endpointId, `${this.options.publicUrl()}/${endpointId}`);
  }

  private signInPath(endpointId: string): string {
    return `${this.options.prefix}${NODE_SIGN_IN_PATH}/${endpointId}`;
  }

  private endpointPath(endpointId: string): string {
    return `${this.options.prefix}/${endpointId}`;
  }
}

/** The sign-in under way as its cookie holds it; null for none, or one that is not this node's. */
function pendingOf(value: string | undefined): { state: string; verifier: string; path: string } | null {
  try {
    const pending = JSON.parse(value ?? '') as { state?: unknown; verifier?: unknown; path?: unknown };
    if (typeof pending.state !== 'string' || typeof pending.verifier !== 'string' || typeof pending.path !== 'string') return null;
    // the file to go back to: a path of the endpoint, never anything else
    return { state: pending.state, verifier: pending.verifier, path: resolveStoragePath(pending.path, '/') };
  } catch {
    return null;
  }
}
