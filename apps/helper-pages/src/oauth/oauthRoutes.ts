import type { AuthorizationServerService, ClientState, IdTokenService } from '@xfer/core';
import { bearerToken, firstValue, logRequestError } from '@xfer/server-kit';
import basicAuth from 'basic-auth';
import express, { Router, type Request, type Response } from 'express';
import { protocolErrorHandler } from '../http/errors';
import { DEPENDENT_TOKEN_GRANT, discoveryDocument, JWKS_PATH } from './discovery';
import { tokenDocument } from './OAuthModel';
import type { OAuthProtocol, ProtocolResult } from './OAuthProtocol';

const form = express.urlencoded({ extended: false, limit: '16kb' });

/** The form fields of a request body as strings (a repeated field counts once, RFC 6749 3.1). */
export function formFields(req: Request): Record<string, string | undefined> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const fields: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(body)) {
    const first = firstValue(value);
    if (first !== undefined) fields[key] = first;
  }
  return fields;
}

export function sendProtocolResult(res: Response, result: ProtocolResult): void {
  if (result.failure) logRequestError(res, result.failure);
  res.set(result.headers);
  if (result.location) {
    res.redirect(302, result.location);
    return;
  }
  res.status(result.status).set('Cache-Control', 'no-store').json(result.body);
}

function invalidClient(res: Response): void {
  res.status(401).set('WWW-Authenticate', 'Basic realm="xfer"').set('Cache-Control', 'no-store').json({ error: 'invalid_client', error_description: 'Client authentication failed' });
}

/**
 * The OAuth 2.0 endpoints at the hosted service's paths. The authorization endpoint hands over to
 * the browser pages (/v2/web/authorize), where the session cookie lives.
 */
export function oauthRoutes(service: AuthorizationServerService, protocol: OAuthProtocol): Router {
  const router = Router();

  router.get('/authorize', (req, res) => {
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    res.redirect(302, `/v2/web/authorize${query}`);
  });

  router.post('/token', form, async (req, res) => {
    const fields = formFields(req);
    if (fields.grant_type === DEPENDENT_TOKEN_GRANT) return dependentTokens(req, res, fields);
    sendProtocolResult(res, await protocol.token(req.headers, fields));
  });

  /** The hosted service's dependent-token grant: a resource server trades a user's token for the tokens it depends on; the answer is a list. */
  async function dependentTokens(req: Request, res: Response, fields: Record<string, string | undefined>) {
    const client = await callingClient(req, fields);
    if (!client || client.public_client) return invalidClient(res);
    if (!fields.token) {
      res.status(400).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: 'Missing parameter: token' });
      return;
    }
    const tokens = await service.dependentToken.issueDependentTokens(client, fields.token, fields.access_type === 'offline');
    res.set('Cache-Control', 'no-store').json(tokens.map((t) => tokenDocument(t)));
  }

  /** Client authentication for introspection and revocation: HTTP Basic, or client_id/client_secret in the body. */
  async function callingClient(req: Request, fields: Record<string, string | undefined>): Promise<ClientState | null> {
    const basic = basicAuth(req);
    if (basic) return service.registry.authenticateClient(basic.name, basic.pass);
    return fields.client_id ? service.registry.authenticateClient(fields.client_id, fields.client_secret) : null;
  }

  /**
   * An endpoint about one token, for an authenticated client (`confidentialOnly`: not a public
   * one), in the protocol's JSON: the answer of `answer`, or why there is none.
   */
  const aboutToken = (confidentialOnly: boolean, answer: (client: ClientState, token: string, fields: Record<string, string | undefined>) => Promise<unknown>) =>
    async (req: Request, res: Response) => {
      const fields = formFields(req);
      const client = await callingClient(req, fields);
      if (!client || (confidentialOnly && client.public_client)) return invalidClient(res);
      if (!fields.token) {
        res.status(400).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: 'Missing parameter: token' });
        return;
      }
      res.set('Cache-Control', 'no-store').json(await answer(client, fields.token, fields));
    };

  // RFC 7662 2.1: only authenticated (confidential) clients may ask
  router.post(
    '/token/introspect',
    form,
    aboutToken(true, (client, token, fields) => service.inspection.introspect(client, token, (fields.include ?? '').split(',').map((s) => s.trim()))),
  );

  /** The hosted service's token validation: is this access or refresh token, issued to the calling client, live? */
  router.post('/token/validate', form, aboutToken(false, (client, token) => service.inspection.validateToken(client, token)));

  // RFC 7009 2.2: the same answer whether or not the token was known
  router.post(
    '/token/revoke',
    form,
    aboutToken(false, async (client, token) => {
      await service.inspection.revokeToken(client, token);
      return {};
    }),
  );

  /** OpenID Connect userinfo (GET or POST with the bearer token), as the hosted service's SDK calls it. */
  const userInfo = async (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store').json(await service.inspection.userInfo(bearerToken(req.get('authorization'))));
  };
  router.get('/userinfo', userInfo);
  router.post('/userinfo', userInfo);

  // refusals and unreadable bodies are answered in the protocol's JSON, not the pages' HTML
  router.use(protocolErrorHandler);

  return router;
}

/** OpenID Connect discovery and the published signing keys, at the hosted service's paths. */
export function openIdRoutes(service: AuthorizationServerService, idTokens: IdTokenService, issuer: string): Router {
  const router = Router();
  router.get('/.well-known/openid-configuration', async (_req, res) => {
    const key = await idTokens.signingKey();
    res.set('Cache-Control', 'public, max-age=300').json(discoveryDocument(issuer, await service.registry.scopeNames(), key.algorithm));
  });
  // short-lived in caches: a rotated key must reach verifiers before the tokens it signs do
  router.get(JWKS_PATH, async (_req, res) => {
    res.set('Cache-Control', 'public, max-age=60').json(await idTokens.jwks());
  });
  return router;
}
