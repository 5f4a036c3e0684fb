import { checkInteger, checkText } from './text';

/** Maintenance mode: while on, the API answers 503 ServiceUnavailable with Retry-After. */
export interface Maintenance {
  message: string;
  retry_after_seconds: number;
  since: Date;
}

export function newMaintenance(message: string | undefined, retryAfterSeconds: number | undefined, now: Date): Maintenance {
  return {
    message: checkText('message', message ?? 'The service is down for maintenance.', { max: 1024, singleLine: true }),
    retry_after_seconds: checkInteger('retry-after', retryAfterSeconds ?? 300, 1, 86400),
    since: now,
  };
}

export interface ServiceSettingsRepository {
  maintenance(): Promise<Maintenance | null>;
  setMaintenance(maintenance: Maintenance | null): Promise<void>;
  /** The version of the standard catalogue this database installed; 0 when none. */
  catalogueVersion(): Promise<number>;
  setCatalogueVersion(version: number): Promise<void>;
}
