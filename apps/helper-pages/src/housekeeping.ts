import { TOKENS } from '@xfer/server-kit';
import type { Container } from 'inversify';

export const HOUSEKEEPING_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Purges expired sessions, codes, tokens and old failed sign-ins now and then every interval
 * (each run bounded); returns what stops it. Several instances may run it: deletes are idempotent.
 */
export function startHousekeeping(container: Container, options: { intervalMs?: number; log?: (line: string) => void } = {}): () => void {
  const housekeeping = container.get(TOKENS.housekeeping);
  const run = () =>
    housekeeping.purgeExpired().catch((error: unknown) => options.log?.(`housekeeping failed: ${error instanceof Error ? error.message : String(error)}`));
  void run();
  const timer = setInterval(run, options.intervalMs ?? HOUSEKEEPING_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
