export { openDatabase, dataSourceOptions, DEFAULT_DATABASE_URL, DatabaseUrlError } from './dataSource';
export { TypeormUnitOfWork, typeormRepositories } from './TypeormUnitOfWork';
export { MIGRATIONS } from './migrations';
export { TOKENS, persistenceModule, coreModule, coreServicesOf, coreContainer } from './container';
export { databaseConfig } from './config';
export { seedDatabase, type SeedOptions, type SeedResult } from './seed';
export { snapshotTables, restoreTables, type TableSnapshot } from './tableSnapshot';
