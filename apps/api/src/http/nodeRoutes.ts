import { AuthenticationFailedError, type NodeAdministration } from '@xfer/core';
import basicAuth from 'basic-auth';
import type { Express } from 'express';

/** Where a running data node asks the API about itself: outside the version prefix, authenticated by the node's id and secret (HTTP Basic), never a user's token. */
export const NODE_SELF_PATH = '/_xfer/node';

/** The node's own document, its contact recorded; 401 for anything but its id and its current secret. */
export function nodeRoutes(app: Express, nodes: Pick<NodeAdministration, 'authenticate'>): void {
  app.get(NODE_SELF_PATH, async (req, res) => {
    const credentials = basicAuth(req);
    const node = credentials ? await nodes.authenticate(credentials.name, credentials.pass) : null;
    if (!node) throw new AuthenticationFailedError('A data node authenticates with its id and its secret (HTTP Basic)');
    res.set('Cache-Control', 'no-store').json({ DATA_TYPE: 'node', id: node.id, name: node.name, url: node.url });
  });
}
