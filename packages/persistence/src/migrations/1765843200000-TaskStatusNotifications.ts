import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Postgres: the read cache now remembers which endpoints a caller's active tasks use (an endpoint's
 * `in_use`, read on every endpoint read and search), so a task added, deleted or changing status or
 * endpoints notifies the read caches of every instance. Only those: a running task saves its
 * progress many times a second, and every notification empties every instance's cache. SQLite needs
 * nothing: `data_version` tells. Frozen once released.
 */
export class TaskStatusNotifications1765843200000 implements MigrationInterface {
  name = 'TaskStatusNotifications1765843200000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query('CREATE TRIGGER tasks_notify_change AFTER INSERT OR DELETE OR TRUNCATE ON tasks FOR EACH STATEMENT EXECUTE FUNCTION xfer_notify_change()');
    await q.query(`CREATE TRIGGER tasks_status_notify_change AFTER UPDATE ON tasks FOR EACH ROW
      WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.owner_id IS DISTINCT FROM NEW.owner_id
        OR OLD.source_endpoint_id IS DISTINCT FROM NEW.source_endpoint_id OR OLD.destination_endpoint_id IS DISTINCT FROM NEW.destination_endpoint_id)
      EXECUTE FUNCTION xfer_notify_change()`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type !== 'postgres') return;
    await q.query('DROP TRIGGER tasks_status_notify_change ON tasks');
    await q.query('DROP TRIGGER tasks_notify_change ON tasks');
  }
}
