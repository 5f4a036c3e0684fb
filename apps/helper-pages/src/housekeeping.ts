import type { Housekeeping } from '@xfer/core';

export const HOUSEKEEPING_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Purges expired sessions, codes, tokens and old failed sign-ins now and then every interval
 * (each run bounded); returns what stops it (the runtime calls it before the engine closes).
 * Several instances may run it: deletes are idempotent.
 */
export function startHousekeeping(housekeeping: Housekeeping, options: { intervalMs?: number; log?: (line: string) => void } = {}): () => void {
  const run = () =>
    housekeeping.purgeExpired().catch((error: unknown) => options.log?.(`housekeeping failed: ${error instanceof Error ? error.message : String(error)}`));
  void run();
  const timer = setInterval(run, options.intervalMs ?? HOUSEKEEPING_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
