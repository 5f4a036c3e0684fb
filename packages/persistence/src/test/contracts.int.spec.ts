import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeRepositoryContracts } from '@xfer/core/contracts';
import { openEngine } from '../engine/openEngine';
import { testBackends, type TestBackend } from '../testing';
import { TypeormUnitOfWork } from '../TypeormUnitOfWork';

// An SQLite file as well: only there do searches of many matches run on the search thread.
const sqliteFile: TestBackend & { label: string } = {
  name: 'sqlite',
  label: 'an SQLite file',
  create: async () => {
    const directory = mkdtempSync(join(tmpdir(), 'xfer-contracts-'));
    return { url: `sqlite:${join(directory, 'xfer.sqlite')}`, drop: async () => rmSync(directory, { recursive: true, force: true }) };
  },
};

for (const backend of [...testBackends().map((b) => ({ ...b, label: b.name })), sqliteFile]) {
  describeRepositoryContracts(`TypeORM on ${backend.label}`, async () => {
    const database = await backend.create();
    const engine = await openEngine(database.url);
    return {
      uow: new TypeormUnitOfWork(engine),
      close: async () => {
        await engine.close();
        await database.drop();
      },
    };
  });
}
