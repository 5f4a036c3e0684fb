import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import express, { type Request, type Response, type Router } from 'express';
import { describeError } from '../describeError';

/** How the node forwards a request of its GCS Manager API to the API (ApiLink.forwardManager). */
export type ForwardManager = (request: { method: string; path: string; headers: Record<string, string | undefined>; body: Readable | null }) => Promise<Dispatcher.ResponseData>;

/** The headers of a Manager request that travel to the API, and of its answer that come back. */
const REQUEST_HEADERS = ['authorization', 'content-type', 'content-length'] as const;
const ANSWER_HEADERS = ['content-type', 'www-authenticate', 'retry-after'] as const;

/**
 * The node's GCS Manager API (`<node URL>/api/...`, as GCSClient and the CLI's `globus gcs`
 * commands reach it): every request forwarded to the API, which decides it for this node; the
 * answer sent back as it came. A node that cannot reach the API answers 503 in GCS's envelope.
 */
export function managerApi(forward: ForwardManager): Router {
  const router = express.Router();
  router.use(async (req: Request, res: Response) => {
    const bodied = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE';
    let answer: Dispatcher.ResponseData;
    try {
      answer = await forward({ method: req.method, path: req.url, headers: Object.fromEntries(REQUEST_HEADERS.map((name) => [name, req.headers[name]])), body: bodied ? req : null });
    } catch (error) {
      res.status(503).json({ DATA_TYPE: 'result#1.0.0', code: 'service_unavailable', http_response_code: 503, detail: null, message: `This node cannot reach the API (${describeError(error)}); try again later`, data: [], has_next_page: false });
      return;
    }
    res.status(answer.statusCode);
    for (const name of ANSWER_HEADERS) {
      const value = answer.headers[name];
      if (value !== undefined) res.setHeader(name, value);
    }
    res.setHeader('Cache-Control', 'no-store');
    res.end(Buffer.from(await answer.body.arrayBuffer()));
  });
  return router;
}
