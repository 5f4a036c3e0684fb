import { describeRepositoryContracts } from '@xfer/core/contracts';
import { openDatabase } from '../dataSource';
import { TypeormUnitOfWork } from '../TypeormUnitOfWork';

describeRepositoryContracts('TypeORM on SQLite', async () => {
  const dataSource = await openDatabase('sqlite::memory:');
  return { uow: new TypeormUnitOfWork(dataSource), close: () => dataSource.destroy() };
});
