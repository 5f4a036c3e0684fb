export * from './EndpointStorages';
export * from './FsStorage';
export type { FsApi, FsHandle, FsStats } from './fsApi';
export * from './memory';
export * from './posix';
export * from './faults';
export { CopyThreads } from './CopyThreads';
