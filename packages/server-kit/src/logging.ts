import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import onExit from 'on-exit-leak-free';
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * The lines logged in one turn of the event loop, handed to the destination as one string: a busy
 * server writes (and the destination scans and copies its buffer) once a turn, not once a line (a
 * line each read cost a read's tenth). What is not handed over yet when the process exits is
 * written then, synchronously, as pino does with its own destination (on-exit-leak-free, pino's).
 */
class LinesOfATurn implements DestinationStream {
  private pending: string[] = [];

  constructor(private readonly target: SonicBoom) {
    onExit.register(this, (lines: LinesOfATurn) => lines.flushSync());
  }

  write(line: string): void {
    if (this.pending.length === 0) setImmediate(this.handOver);
    this.pending.push(line);
  }

  private readonly handOver = (): void => {
    if (this.pending.length === 0) return;
    const lines = this.pending.join('');
    this.pending = [];
    this.target.write(lines);
  };

  flush(done?: (error?: Error) => void): void {
    this.handOver();
    this.target.flush(done);
  }

  flushSync(): void {
    this.handOver();
    try {
      this.target.flushSync();
    } catch {
      // not open yet, or closed: nothing that can be written
    }
  }
}

/**
 * JSON lines on stdout (or `destination`), level from LOG_LEVEL. Stdout is written asynchronously
 * (the lines of a turn together, and lines written while one write is under way go out with the
 * next), so a slow log reader does not hold up requests.
 */
export function createLogger(options: { level?: string; destination?: DestinationStream; name?: string } = {}): Logger {
  const destination = options.destination ?? new LinesOfATurn(pino.destination({ dest: 1, sync: false }));
  return pino({ level: options.level ?? process.env.LOG_LEVEL ?? 'info', name: options.name, base: { pid: process.pid } }, destination);
}

interface Locals {
  requestId?: string;
  identityId?: string;
  /** A data node's calls: the node's id. */
  nodeId?: string;
  error?: Error;
}

/**
 * One line per request: method, path, status, duration, request id and the caller's identity id
 * (and a data node's id, for its calls).
 * Headers and bodies are never logged, so no token or cookie reaches the log. (A few lines of our
 * own rather than pino-http: its per-request child logger cost a tenth of a GET.)
 */
export function requestLogger(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const locals = res.locals as Locals;
      const status = res.statusCode;
      const line = {
        req: { method: req.method, path: req.originalUrl.split('?')[0] },
        res: { status },
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        request_id: locals.requestId,
        identity_id: locals.identityId ?? null,
        ...(locals.nodeId ? { node_id: locals.nodeId } : {}),
        ...(locals.error ? { err: pino.stdSerializers.err(locals.error) } : {}),
      };
      if (status >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request completed');
    });
    next();
  };
}

/** Hands an unexpected error to the request log line (with its stack), instead of to the client. */
export function logRequestError(res: ServerResponse, error: unknown): void {
  ((res as unknown as { locals: Locals }).locals ??= {}).error = error instanceof Error ? error : new Error(String(error));
}
