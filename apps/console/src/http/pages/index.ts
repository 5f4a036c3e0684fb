import { Router, type RequestHandler } from 'express';
import { activityPages } from './activity';
import { createPages } from './create';
import { endpointPages } from './endpoint';
import { filePages } from './files';
import { nodePages } from './nodes';
import { PATH_IDS, pageKit, type PageKit } from './kit';
import { permissionPages } from './permissions';
import { rolePages } from './roles';
import { searchPages } from './search';
import { serverPages } from './servers';
import { sharePages } from './shares';

export type { PageContext } from './kit';

/** Every page of the console, a group of routes per page (one module each), over one kit. */
export function consolePages(signedIn: PageKit['signedIn'], form: RequestHandler[]): Router {
  const router = Router();
  // ids in the path are checked before any handler runs: a mismatch is the console's 404 page
  for (const [name, pattern] of Object.entries(PATH_IDS)) router.param(name, (_req, _res, next, value) => next(pattern.test(String(value)) ? undefined : 'router'));
  const kit = pageKit(signedIn, form);
  for (const pages of [activityPages, searchPages, createPages, endpointPages, filePages, serverPages, rolePages, sharePages, permissionPages, nodePages]) pages(router, kit);
  return router;
}
