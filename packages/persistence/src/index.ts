import { openEngine as openEngineWithInternals } from './engine/openEngine';
import type { Engine, EngineOptions } from './engine/Engine';

/** Opens the database of `url` as its engine (see engine/openEngine.ts): outside this package, only its public surface. */
export function openEngine(url: string, options: EngineOptions = {}): Promise<Engine> {
  return openEngineWithInternals(url, options);
}
export { openMemoryEngine, writeMemoryTemplate, dataSourceOptions, DEFAULT_DATABASE_URL, DatabaseUrlError } from './engine/openEngine';
export { MEMORY_TEMPLATE, type MemoryTemplate } from './engine/sqlite/memoryTemplate';
export type { Engine, EngineOptions, EndpointSearcher } from './engine/Engine';
export type { SqliteEngine } from './engine/sqlite/SqliteEngine';
export type { TableSnapshot } from './engine/sqlite/tableSnapshot';
export { TypeormUnitOfWork, typeormRepositories } from './TypeormUnitOfWork';
export { MIGRATIONS } from './migrations';
export { databaseConfig } from './config';
export { seedDatabase, type SeedOptions, type SeedResult } from './seed';
