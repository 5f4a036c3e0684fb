import { Router } from 'express';
import type { DataSource } from 'typeorm';

/** `GET /healthz`: the process answers. `GET /readyz`: the database answers and every migration is applied. */
export function healthRoutes(dataSource: DataSource): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await dataSource.query('SELECT 1');
      if (await dataSource.showMigrations()) {
        res.status(503).json({ status: 'not ready', reason: 'database migrations are pending: run `xfer migrate`' });
        return;
      }
      res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'not ready', reason: 'the database does not answer' });
    }
  });
  return router;
}
