import type { DataSource } from 'typeorm';
import { readCacheOf } from './readCache';
import { searchIndexUpkeepOf } from './searchIndexUpkeep';
import { walCheckpointsOf } from './walCheckpoints';

/**
 * A write of this process ended (a transaction committed or rolled back, or a statement outside
 * one): the read cache starts a new generation, and on SQLite the search index's upkeep looks for
 * segments to merge and the checkpoint thread copies the WAL into the database file.
 */
export function afterWrite(dataSource: DataSource): void {
  readCacheOf(dataSource)?.changed();
  searchIndexUpkeepOf(dataSource)?.written();
  walCheckpointsOf(dataSource)?.written();
}
