import type { AuthenticationService, Principal } from '@xfer/core';
import { bearerToken } from '@xfer/server-kit';
import type { NextFunction, Request, Response } from 'express';

/** Resolves `Authorization: Bearer <token>` to the caller; every API route needs one. */
export function authenticate(authentication: AuthenticationService) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const principal = await authentication.authenticate(bearerToken(req.headers.authorization));
    res.locals.principal = principal;
    res.locals.identityId = principal.primary.id;
    next();
  };
}

export function principalOf(res: Response): Principal {
  return res.locals.principal as Principal;
}
