import 'reflect-metadata';
import { openEngine } from '@xfer/persistence';
import { TOKENS } from '@xfer/server-kit';
import { bothApps } from '../bothApps';

/** `xfer serve` (what `npm start` runs): both apps in one process, on one SQLite database. */
describe('xfer serve, both apps on one SQLite database', () => {
  it("runs the two apps' transactions one after another, even where one waits between its statements", async () => {
    const engine = await openEngine('sqlite::memory:');
    try {
      const { apiContainer, pagesContainer } = bothApps(engine, {}, {});
      const api = apiContainer.get(TOKENS.UnitOfWork);
      const pages = pagesContainer.get(TOKENS.UnitOfWork);
      // a transaction that waits between its statements (as one that signs or hashes asynchronously does)
      const work = (uow: typeof api, n: number) =>
        uow.transaction(async (repos) => {
          await repos.identities.findById('x');
          await new Promise((resolve) => setTimeout(resolve, 5));
          await repos.identities.findById('y');
          return n;
        });
      expect(await Promise.all([work(api, 1), work(pages, 2), work(api, 3), work(pages, 4)])).toEqual([1, 2, 3, 4]);
    } finally {
      await engine.close();
    }
  });
});
