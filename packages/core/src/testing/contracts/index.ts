export { describeRepositoryContracts, type ContractSubject } from './repositoryContracts';
export { describeStorageContract, type StorageSubject } from './storageContract';
export { CONTRACT_CONCURRENCY, describeTaskQueueContract, type TaskQueueSubject } from './taskQueueContract';
