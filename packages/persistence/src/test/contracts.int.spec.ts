import { describeRepositoryContracts } from '@xfer/core/contracts';
import { openDatabase } from '../dataSource';
import { testBackends } from '../testing';
import { TypeormUnitOfWork } from '../TypeormUnitOfWork';

for (const backend of testBackends()) {
  describeRepositoryContracts(`TypeORM on ${backend.name}`, async () => {
    const database = await backend.create();
    const dataSource = await openDatabase(database.url);
    return {
      uow: new TypeormUnitOfWork(dataSource),
      close: async () => {
        await dataSource.destroy();
        await database.drop();
      },
    };
  });
}
