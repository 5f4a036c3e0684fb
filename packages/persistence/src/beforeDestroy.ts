import type { DataSource } from 'typeorm';

/**
 * Runs `close` when the DataSource is destroyed, before its connections go: TypeORM has no close
 * hook, so what holds a connection of its own beside the pool (the read cache's listener, the
 * search thread) closes here.
 */
export function beforeDestroy(dataSource: DataSource, close: () => Promise<void>): void {
  const destroy = dataSource.destroy.bind(dataSource);
  dataSource.destroy = async () => {
    await close();
    return destroy();
  };
}
