import { describeRepositoryContracts } from './contracts';
import { InMemoryUnitOfWork } from './InMemoryUnitOfWork';

describeRepositoryContracts('in-memory', async () => ({ uow: new InMemoryUnitOfWork(), close: async () => undefined }));
