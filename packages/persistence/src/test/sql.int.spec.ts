import { openDatabase } from '../dataSource';
import { Sql } from '../sql';
import { testBackends } from '../testing';

describe.each(testBackends())('Sql reads on $name', (backend) => {
  it('keep answering when a table gains a column after its reads were prepared (a migration by a newer instance)', async () => {
    const database = await backend.create();
    const dataSource = await openDatabase(database.url, { readCache: false });
    try {
      const sql = new Sql(dataSource.manager);
      await dataSource.query("INSERT INTO settings (key, value) VALUES ('probe', 'one')");
      const read = () => sql.rows<Record<string, unknown>>('SELECT * FROM settings WHERE key = ?', ['probe']);
      // several at once, so that several pooled connections prepare the read
      for (const rows of await Promise.all([read(), read(), read(), read()])) expect(rows).toEqual([expect.objectContaining({ key: 'probe', value: 'one' })]);
      await dataSource.query('ALTER TABLE settings ADD COLUMN note varchar(20)');
      for (const rows of await Promise.all([read(), read(), read(), read()])) expect(rows).toEqual([{ key: 'probe', value: 'one', note: null }]);
    } finally {
      await dataSource.destroy();
      await database.drop();
    }
  });
});
