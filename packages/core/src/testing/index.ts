export { InMemoryUnitOfWork } from './InMemoryUnitOfWork';
export { FakeKeyCrypto, FixedClock, SequentialIdGenerator } from './fakes';
export { TestWorld } from './TestWorld';
export { InMemoryTaskStore } from './InMemoryTaskStore';
export { MemoryStorage } from './MemoryStorage';
