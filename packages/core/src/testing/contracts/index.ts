export { describeRepositoryContracts, type ContractSubject } from './repositoryContracts';
export { describeStorageContract, type StorageSubject } from './storageContract';
export { describeTaskQueueContract, type TaskQueueSubject } from './taskQueueContract';
