import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canceled, TaskDispatch, type Principal } from '@xfer/core';
import { describeTaskQueueContract } from '@xfer/core/contracts';
import { transferRequest } from '@xfer/core/testing';
import { freshPostgresDatabase } from '@xfer/persistence/testing';
import { InProcessTaskQueue } from '../InProcessTaskQueue';
import { PgBossTaskQueue } from '../PgBossTaskQueue';
import { Runtime } from '../Runtime';

/** A runtime with an owner and an endpoint whose tasks the queue under test offers (no workers run them). */
async function world(databaseUrl: string, drop: () => Promise<void>) {
  const runtime = await Runtime.open({ kind: 'command', databaseUrl });
  await runtime.services.admin.identities.addIdentity({ username: 'alice' });
  const alice: Principal = await runtime.services.authentication.principalOf((await runtime.services.admin.identities.listIdentities())[0]!.id);
  const lab = (await runtime.services.endpoints.createEndpoint(alice, { display_name: 'Lab', personal: false })).id;
  const dispatch = new TaskDispatch(runtime.uow, runtime.services.taskRunner);
  return {
    runtime,
    dispatch,
    submit: async () => (await runtime.services.tasks.submit(alice, transferRequest({ submission_id: runtime.services.tasks.submissionId(), source_endpoint: lab, destination_endpoint: lab, items: [{ source_path: '/a', destination_path: '/b' }] }))).task.id,
    finish: async (taskId: string) => {
      const task = (await runtime.uow.repositories.tasks.findById(taskId))!;
      await runtime.uow.repositories.tasks.saveProgress(canceled(task, new Date()));
    },
    close: async () => {
      await runtime.close();
      await drop();
    },
  };
}

describeTaskQueueContract('in the process (SQLite)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xfer-queue-'));
  const { dispatch, submit, finish, close } = await world(`sqlite:${join(dir, 'xfer.sqlite')}`, async () => rmSync(dir, { recursive: true, force: true }));
  const queue = new InProcessTaskQueue(dispatch);
  return { queue, submit, finish, nudge: () => undefined, handBack: () => queue.handBack(), close: async () => (await queue.close(), await close()) };
});

describeTaskQueueContract('pg-boss and advisory locks (Postgres)', async () => {
  const { url, drop } = await freshPostgresDatabase(process.env.XFER_TEST_POSTGRES_URL!);
  const { dispatch, submit, finish, close } = await world(url, drop);
  const queue = await PgBossTaskQueue.open(dispatch, url, { concurrency: 1, sweepMs: 60_000 });
  return { queue, submit, finish, nudge: () => queue.nudge(), handBack: () => queue.handBack(), close: async () => (await queue.close(), await close()) };
});
