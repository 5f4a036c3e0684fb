import type { Express } from 'express';

/** What the readiness check asks of the database (the persistence engine answers it). */
export interface HealthOfDatabase {
  ping(): Promise<void>;
  migrationsPending(): Promise<boolean>;
}

/**
 * `GET /healthz`: the process answers. `GET /readyz`: the database answers and every migration is
 * applied. Added to the app itself: a mounted router would be entered by every request.
 */
export function addHealthRoutes(app: Express, database: HealthOfDatabase): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await database.ping();
      if (await database.migrationsPending()) {
        res.status(503).json({ status: 'not ready', reason: 'database migrations are pending: run `xfer migrate`' });
        return;
      }
      res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'not ready', reason: 'the database does not answer' });
    }
  });
}
