import type { DataSource } from 'typeorm';
import { readCacheOf } from './readCache';
import { searchIndexUpkeepOf } from './searchIndexUpkeep';

/**
 * A write of this process ended (a transaction committed or rolled back, or a statement outside
 * one): the read cache starts a new generation, and on SQLite the search index's upkeep looks for
 * segments to merge.
 */
export function afterWrite(dataSource: DataSource): void {
  readCacheOf(dataSource)?.changed();
  searchIndexUpkeepOf(dataSource)?.written();
}
