import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type DestinationStream, type Logger } from 'pino';
import { pinoHttp } from 'pino-http';

export type { Logger } from 'pino';

/** JSON lines on stdout (or `destination`), level from LOG_LEVEL. */
export function createLogger(options: { level?: string; destination?: DestinationStream; name?: string } = {}): Logger {
  return pino({ level: options.level ?? process.env.LOG_LEVEL ?? 'info', name: options.name, base: { pid: process.pid } }, options.destination);
}

/**
 * One line per request: method, path, status, duration, request id and the caller's identity id.
 * Headers and bodies are never logged, so no token or cookie reaches the log.
 */
export function requestLogger(logger: Logger) {
  return pinoHttp({
    logger,
    quietReqLogger: true,
    genReqId: (_req: IncomingMessage, res: ServerResponse) => (res as unknown as { locals: { requestId: string } }).locals.requestId,
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, path: req.url.split('?')[0] }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      err: pino.stdSerializers.err,
    },
    customProps: (_req: IncomingMessage, res: ServerResponse) => {
      const locals = (res as unknown as { locals?: { requestId?: string; identityId?: string } }).locals ?? {};
      return { request_id: locals.requestId, identity_id: locals.identityId ?? null };
    },
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
      error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : 'info',
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
    customAttributeKeys: { responseTime: 'duration_ms' },
  });
}

/** Hands an unexpected error to the request log line (with its stack), instead of to the client. */
export function logRequestError(res: ServerResponse, error: unknown): void {
  (res as ServerResponse & { err?: Error }).err = error instanceof Error ? error : new Error(String(error));
}
