import { grantTypesOf, OWN_AUTH_CODE_PAGE, type AuthorizationServerService, type ClientRegistrationService, type ClientState } from '@xfer/core';
import basicAuth from 'basic-auth';
import express, { Router, type Request, type Response } from 'express';

/** A client as the hosted service's Auth API shows it; this service's own auth-code page at the address it was reached at. */
function clientDocument(req: Request, client: ClientState) {
  const origin = `${req.protocol}://${req.get('host')}`;
  return {
    id: client.id,
    name: client.display_name,
    public_client: client.public_client,
    redirect_uris: client.redirect_uris.map((uri) => (uri === OWN_AUTH_CODE_PAGE ? `${origin}${uri}` : uri)),
    grant_types: grantTypesOf(client),
    parent_client: client.template_id,
    fqdns: [],
    visibility: 'private',
    scopes: [],
    required_idp: null,
    preselect_idp: null,
    project: null,
    userinfo_from_effective_identity: true,
    prompt_for_named_grant: false,
    links: { privacy_policy: null, terms_and_conditions: null },
  };
}

/**
 * The Auth API's clients as the hosted service's CLI uses them: `globus login` makes a client of
 * its own from the CLI's built-in one (no credentials), and `logout --delete-client` deletes it
 * (that client's own credentials).
 */
export function clientsApiRoutes(registration: ClientRegistrationService, authorizationServer: AuthorizationServerService): Router {
  const router = Router();

  router.post('/clients', express.json({ limit: '16kb' }), async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as { client?: { template_id?: unknown; name?: unknown } };
    const { client, secret } = await registration.createFromTemplate(body.client ?? {}, req.ip);
    res.set('Cache-Control', 'no-store').json({
      client: clientDocument(req, client),
      included: { client_credential: { id: client.id, name: 'Auto-created at client creation', created: client.created_at.toISOString(), client: client.id, secret } },
    });
  });

  router.delete('/clients/:id', async (req: Request, res: Response) => {
    const credentials = basicAuth(req);
    const caller = credentials ? await authorizationServer.registry.authenticateClient(credentials.name, credentials.pass) : null;
    if (!caller || caller.public_client) {
      res.status(401).set('WWW-Authenticate', 'Basic realm="xfer"').set('Cache-Control', 'no-store').json({ code: 'UNAUTHORIZED', message: 'Client authentication failed' });
      return;
    }
    res.set('Cache-Control', 'no-store').json({ client: clientDocument(req, await registration.deleteOwn(caller, req.params.id as string)) });
  });

  return router;
}
