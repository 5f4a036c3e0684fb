import { BadRequestError, NodeAuthenticationFailedError, type HttpsAccess, type NodeAccess, type NodeAdministration, type NodeView } from '@xfer/core';
import basicAuth from 'basic-auth';
import type { Express, Request, Response } from 'express';

/** Where a running data node asks the API about itself: outside the version prefix, authenticated by the node's id and secret (HTTP Basic), never a user's token. */
export const NODE_SELF_PATH = '/_xfer/node';
/** Where a node asks whether a client's token may open a file of an endpoint it serves. */
export const NODE_ACCESS_PATH = '/_xfer/node/access';

const ACCESSES: ReadonlySet<string> = new Set<HttpsAccess>(['read', 'write', 'delete']);

export interface NodeRouteServices {
  nodes: Pick<NodeAdministration, 'authenticate' | 'briefing'>;
  nodeAccess: Pick<NodeAccess, 'decide'>;
}

/** The node that presents its id and current secret (its id in the request's log line); 401 for anything else. */
async function callingNode(req: Request, res: Response, nodes: NodeRouteServices['nodes']): Promise<NodeView> {
  const credentials = basicAuth(req);
  const node = credentials ? await nodes.authenticate(credentials.name, credentials.pass) : null;
  if (!node) throw new NodeAuthenticationFailedError('A data node authenticates with its id and its secret (HTTP Basic)');
  res.locals.nodeId = node.id;
  return node;
}

const text = (value: unknown, field: string, optional = false): string | undefined => {
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string') throw new BadRequestError(`Invalid ${field}: a string`);
  return value;
};

/**
 * The node's own document, its contact recorded, with what it serves (its endpoints' directories:
 * it refuses others) and the public keys the API's calls to it are signed with (asked every few
 * seconds: a node removed, or given a new secret, stops within them); and the access decisions of its HTTPS access,
 * made here by the file operations' rules: 200 with the node's directory and the path, or the
 * refusal a client is told (401, 403, 404) with its code.
 */
export function nodeRoutes(app: Express, services: NodeRouteServices): void {
  app.get(NODE_SELF_PATH, async (req, res) => {
    const node = await callingNode(req, res, services.nodes);
    const { roots, callKeys } = await services.nodes.briefing(node.id);
    res.set('Cache-Control', 'no-store').json({
      DATA_TYPE: 'node',
      id: node.id,
      name: node.name,
      url: node.url,
      roots: roots.map((served) => ({ endpoint: served.endpointId, root: served.root, mapped: served.mapped })),
      call_keys: callKeys.map((key) => JSON.parse(key.publicJwk) as unknown),
    });
  });
  app.post(NODE_ACCESS_PATH, async (req, res) => {
    const node = await callingNode(req, res, services.nodes);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const access = text(body.access, 'access')!;
    if (!ACCESSES.has(access)) throw new BadRequestError('Invalid access: read, write or delete');
    const decision = await services.nodeAccess.decide(node.id, text(body.token, 'token', true), text(body.endpoint, 'endpoint')!, text(body.path, 'path')!, access as HttpsAccess);
    res.set('Cache-Control', 'no-store').json({ DATA_TYPE: 'node_access', identity_id: decision.identityId, root: decision.root, base: decision.base, path: decision.path, local_user: decision.actingAs?.account ?? null, policy: decision.actingAs?.policy ?? null });
  });
}
