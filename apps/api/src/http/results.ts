import type { Request, Response } from 'express';
import { requestId, resourceOf } from './requestContext';

/** Sends a result document of compat-notes: the operation's fields plus request_id and resource. */
export function sendResult(
  req: Request,
  res: Response,
  status: number,
  document: { DATA_TYPE: string; code: string; message: string; [field: string]: unknown },
): void {
  res.status(status).json({ ...document, request_id: requestId(res), resource: resourceOf(req) });
}
