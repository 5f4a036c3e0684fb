import type { IdentityDirectory } from '@xfer/core';
import { bearerToken, firstValue } from '@xfer/server-kit';
import { Router, type Request } from 'express';

/** A comma-joined query parameter as a list (repeated parameters count once); undefined when absent. */
function listParam(req: Request, name: string): string[] | undefined {
  return firstValue(req.query[name])?.split(',').map((s) => s.trim()).filter(Boolean);
}

/** The identities API at the hosted service's paths (`AuthClient.get_identities`, the CLI's `--identity`). */
export function identitiesApiRoutes(directory: IdentityDirectory): Router {
  const router = Router();

  router.get('/identities', async (req, res) => {
    const caller = await directory.caller(bearerToken(req.get('authorization')));
    const provision = ['true', '1'].includes(String(req.query.provision ?? '').toLowerCase());
    const identities = await directory.lookup(caller, { usernames: listParam(req, 'usernames'), ids: listParam(req, 'ids'), provision });
    res.set('Cache-Control', 'no-store').json({ identities });
  });

  router.get('/identities/:id/consents', async (req, res) => {
    const caller = await directory.caller(bearerToken(req.get('authorization')));
    const consents = await directory.consentsOf(caller, req.params.id);
    res.set('Cache-Control', 'no-store').json({
      consents: consents.map((c) => ({
        id: c.id,
        client: c.client_id,
        scope: c.scope_id,
        scope_name: c.scope_name,
        effective_identity: c.identity_id,
        dependency_path: c.dependency_path,
        created: c.created.toISOString(),
        updated: c.updated.toISOString(),
        // the hosted SDK parses it as a date: a consent never used yet says when it was given
        last_used: (c.last_used ?? c.created).toISOString(),
        status: c.status,
        allows_refresh: true,
        auto_approved: false,
        atomically_revocable: false,
      })),
    });
  });

  router.get('/identity_providers', async (req, res) => {
    await directory.caller(bearerToken(req.get('authorization')));
    res.set('Cache-Control', 'no-store').json({ identity_providers: directory.identityProviders({ domains: listParam(req, 'domains'), ids: listParam(req, 'ids') }) });
  });

  router.get('/identities/:id', async (req, res) => {
    const caller = await directory.caller(bearerToken(req.get('authorization')));
    res.set('Cache-Control', 'no-store').json({ identity: await directory.get(caller, req.params.id) });
  });

  return router;
}
