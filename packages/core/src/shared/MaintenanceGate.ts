import { ServiceUnavailableError } from './errors';
import type { Clock } from './ports';
import type { RepositoriesOf } from './UnitOfWork';

/** The repository the maintenance switch lives in. */
export type MaintenanceRepositories = RepositoriesOf<'settings'>;

/**
 * Refuses requests while maintenance mode is on. The setting lives in the database, so every
 * instance follows it; each instance reads it at most once per `refreshMs` (default 1 s), which
 * bounds how late a switch takes effect.
 */
export class MaintenanceGate {
  private checkedAt = -Infinity;
  private current: { message: string; retry_after_seconds: number } | null = null;

  constructor(
    private readonly uow: MaintenanceRepositories,
    private readonly clock: Clock,
    private readonly refreshMs = 1000,
  ) {}

  /** Throws ServiceUnavailableError while maintenance is on; no await at all while the last reading is fresh. */
  check(): void | Promise<void> {
    const now = this.clock.now().getTime();
    if (now - this.checkedAt < this.refreshMs) return this.refuseIfOn();
    return this.uow.repositories.settings.maintenance().then((current) => {
      this.current = current;
      this.checkedAt = now;
      this.refuseIfOn();
    });
  }

  private refuseIfOn(): void {
    if (this.current) throw new ServiceUnavailableError(this.current.message, this.current.retry_after_seconds);
  }
}
