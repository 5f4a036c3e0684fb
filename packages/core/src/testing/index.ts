export { InMemoryUnitOfWork } from './InMemoryUnitOfWork';
export { FixedClock, SequentialIdGenerator } from './fakes';
export { TestWorld } from './TestWorld';
