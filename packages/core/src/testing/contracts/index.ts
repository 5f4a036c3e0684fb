export { describeRepositoryContracts, type ContractSubject } from './repositoryContracts';
