import 'reflect-metadata';
import { freshPostgresDatabase } from '@xfer/persistence/testing';
import { TaskDispatch } from '@xfer/core';
import { Client } from 'pg';
import { Runtime } from '../Runtime';
import { PgBossTaskQueue } from '../PgBossTaskQueue';

const ROUNDS = 20;
const PROCESSES = 3;

/**
 * Several processes whose task workers start at the same moment on a database that has no task
 * queue yet (a deployment's first start, every instance at once): each one starts. pg-boss makes a
 * queue's tables under no lock of its own; together they deadlocked, and Postgres ended one
 * process's start with "deadlock detected" (2 of 10 rounds of three `xfer worker` processes).
 */
describe('task workers of several processes starting at once on Postgres', () => {
  it('all start, the queue made once, round after round on a new queue', async () => {
    const { url, drop } = await freshPostgresDatabase(process.env.XFER_TEST_POSTGRES_URL!);
    const runtime = await Runtime.open({ kind: 'command', databaseUrl: url });
    const admin = new Client({ connectionString: url });
    await admin.connect();
    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        // each its own pg-boss and lock connection, as each process has
        const started = await Promise.allSettled(Array.from({ length: PROCESSES }, () => PgBossTaskQueue.open(new TaskDispatch(runtime.uow, runtime.services.taskRunner), url, { concurrency: 1 })));
        await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.close() : null)));
        expect(started.map((result) => (result.status === 'fulfilled' ? 'started' : String(result.reason)))).toEqual(Array.from({ length: PROCESSES }, () => 'started'));
        expect((await admin.query("SELECT name FROM pgboss.queue WHERE name = 'xfer-tasks'")).rowCount).toBe(1);
        // the next round starts where no queue was made yet
        await admin.query('DROP SCHEMA pgboss CASCADE');
      }
    } finally {
      await admin.end();
      await runtime.close();
      await drop();
    }
  });
});
