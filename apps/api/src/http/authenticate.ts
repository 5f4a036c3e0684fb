import type { AuthenticationService, Principal } from '@xfer/core';
import type { NextFunction, Request, Response } from 'express';

function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/** Resolves `Authorization: Bearer <token>` to the caller; every API route needs one. */
export function authenticate(authentication: AuthenticationService) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const principal = await authentication.authenticate(bearerToken(req));
    res.locals.principal = principal;
    res.locals.identityId = principal.primary.id;
    next();
  };
}

export function principalOf(res: Response): Principal {
  return res.locals.principal as Principal;
}
