export { describeRepositoryContracts, type ContractSubject } from './repositoryContracts';
export { describeStorageContract, type StorageSubject } from './storageContract';
