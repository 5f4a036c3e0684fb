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

  router.get('/identities/:id', async (req, res) => {
    const caller = await directory.caller(bearerToken(req.get('authorization')));
    res.set('Cache-Control', 'no-store').json({ identity: await directory.get(caller, req.params.id) });
  });

  return router;
}
