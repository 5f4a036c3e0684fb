import type { Clock } from '../shared/ports';
import { newMaintenance, type Maintenance } from '../shared/ServiceSettings';

import type { RepositoriesOf } from '../shared/UnitOfWork';

/** The repositories MaintenanceAdministration uses. */
export type MaintenanceAdminRepositories = RepositoriesOf<'settings'>;

/** Maintenance mode of the whole service. */
export class MaintenanceAdministration {
  constructor(
    private readonly uow: MaintenanceAdminRepositories,
    private readonly clock: Clock,
  ) {}

  async set(on: boolean, options: { message?: string; retryAfterSeconds?: number } = {}): Promise<Maintenance | null> {
    const maintenance = on ? newMaintenance(options.message, options.retryAfterSeconds, this.clock.now()) : null;
    await this.uow.transaction((repos) => repos.settings.setMaintenance(maintenance));
    return maintenance;
  }
  async current(): Promise<Maintenance | null> {
    return this.uow.repositories.settings.maintenance();
  }
}
