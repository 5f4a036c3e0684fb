import type { Clock } from './ports';
import type { RepositoriesOf } from './UnitOfWork';

export type HousekeepingRepositories = RepositoriesOf<'accessTokens' | 'authorizationCodes' | 'sessions' | 'signInFailures'>;

export interface PurgeReport {
  sessions: number;
  authorizationCodes: number;
  accessTokens: number;
  signInFailures: number;
}

/** Rows deleted per kind in one run: a run stays short however much has piled up. */
export const PURGE_BATCH = 500;

/**
 * Deletes what can no longer be used: expired sessions, codes and access tokens, and failed
 * sign-ins older than the throttle's window. The apps run it at start and then periodically.
 */
export class Housekeeping {
  constructor(
    private readonly uow: HousekeepingRepositories,
    private readonly clock: Clock,
    private readonly options: { signInWindowSeconds: number },
  ) {}

  async purgeExpired(limit = PURGE_BATCH): Promise<PurgeReport> {
    const now = this.clock.now();
    const { sessions, authorizationCodes, accessTokens, signInFailures } = this.uow.repositories;
    return {
      sessions: await sessions.purgeExpired(now, limit),
      authorizationCodes: await authorizationCodes.purgeExpired(now, limit),
      accessTokens: await accessTokens.purgeExpired(now, limit),
      signInFailures: await signInFailures.purgeBefore(new Date(now.getTime() - this.options.signInWindowSeconds * 1000), limit),
    };
  }
}
