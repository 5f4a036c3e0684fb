export { InMemoryUnitOfWork } from './InMemoryUnitOfWork';
export { FakeKeyCrypto, FixedClock, SequentialIdGenerator } from './fakes';
export { TestWorld } from './TestWorld';
export { InMemoryTaskRepository } from './InMemoryTaskRepository';
export { MemoryStorage } from './MemoryStorage';
export { deleteRequest, transferRequest } from './taskRequests';
export { recordClientRevocations } from './revocations';
export { directoryOf, rootedAt } from './rootedAt';
export { gatheredCopies } from './gathered';
