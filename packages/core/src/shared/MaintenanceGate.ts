import { ServiceUnavailableError } from './errors';
import type { Clock } from './ports';
import type { UnitOfWork } from './UnitOfWork';

/**
 * Refuses requests while maintenance mode is on. The setting lives in the database, so every
 * instance follows it; each instance reads it at most once per `refreshMs` (default 1 s), which
 * bounds how late a switch takes effect.
 */
export class MaintenanceGate {
  private checkedAt = -Infinity;
  private current: { message: string; retry_after_seconds: number } | null = null;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly refreshMs = 1000,
  ) {}

  async check(): Promise<void> {
    const now = this.clock.now().getTime();
    if (now - this.checkedAt >= this.refreshMs) {
      this.current = await this.uow.repositories.settings.maintenance();
      this.checkedAt = now;
    }
    if (this.current) throw new ServiceUnavailableError(this.current.message, this.current.retry_after_seconds);
  }
}
