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

/** Sends a JSON document already encoded (a remembered read): its bytes as they are, with the headers res.json would set. */
export function sendJsonBytes(res: Response, bytes: Buffer): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
}
