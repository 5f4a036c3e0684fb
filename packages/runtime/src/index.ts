export { TaskWorkers, type TaskWorkerOptions, type TaskWorkerPool } from './TaskWorkers';
// the shared workers (pg-boss) load only where a Postgres runtime starts them
export { taskLockKey } from './taskLock';
export { closeServer, Runtime, type ProcessKind, type RuntimeOptions, type StandInSnapshot } from './Runtime';
export { TOKENS, processContainer, resolveCoreServices, type Adapters, type CoreSettings } from './composition';
export { databaseConfig, DatabaseUrlError, DEFAULT_DATABASE_URL, type SeedOptions, type SeedResult, type TableSnapshot } from '@xfer/persistence';
export { checkMemoryFiles, EndpointStorages, STORAGE_FAULTS, type MemoryFiles, type StorageFault, type StorageFaultError } from '@xfer/storage';
