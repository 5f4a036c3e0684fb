import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canceled, TaskDispatch, type Principal } from '@xfer/core';
import { CONTRACT_CONCURRENCY, describeTaskQueueContract } from '@xfer/core/contracts';
import { deleteRequest, transferRequest } from '@xfer/core/testing';
import { freshPostgresDatabase } from '@xfer/persistence/testing';
import { InProcessTaskQueue } from '../InProcessTaskQueue';
import { PgBossTaskQueue } from '../PgBossTaskQueue';
import { Runtime } from '../Runtime';

/** A runtime with an owner and an endpoint whose tasks the queue under test offers (no workers run them). */
async function world(databaseUrl: string, drop: () => Promise<void>) {
  const runtime = await Runtime.open({ kind: 'command', databaseUrl });
  const principal = async (username: string): Promise<Principal> => {
    await runtime.services.admin.identities.addIdentity({ username });
    const identity = (await runtime.services.admin.identities.listIdentities()).find((found) => found.username.startsWith(username))!;
    return runtime.services.authentication.principalOf(identity.id);
  };
  const owners = { alice: await principal('alice'), bob: await principal('bob') };
  const lab = (await runtime.services.endpoints.createEndpoint(owners.alice, { display_name: 'Lab', personal: false, public: true })).id;
  const dispatch = new TaskDispatch(runtime.uow, runtime.services.taskRunner);
  return {
    runtime,
    dispatch,
    // each to a place of its own: the same paths twice while unfinished are refused
    submit: async (owner: 'alice' | 'bob' = 'alice', type: 'TRANSFER' | 'DELETE' = 'TRANSFER') => {
      const submission = runtime.services.tasks.submissionId();
      const request = type === 'TRANSFER' ? transferRequest({ submission_id: submission, source_endpoint: lab, destination_endpoint: lab, items: [{ source_path: '/a', destination_path: `/b/${submission}` }] }) : deleteRequest({ submission_id: submission, endpoint: lab, paths: [`/d/${submission}`] });
      return (await runtime.services.tasks.submit(owners[owner], request)).task.id;
    },
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
  const queue = new InProcessTaskQueue(dispatch, CONTRACT_CONCURRENCY);
  return { queue, submit, finish, nudge: () => undefined, handBack: () => queue.handBack(), close: async () => (await queue.close(), await close()) };
});

describeTaskQueueContract('pg-boss and advisory locks (Postgres)', async () => {
  const { url, drop } = await freshPostgresDatabase(process.env.XFER_TEST_POSTGRES_URL!);
  const { dispatch, submit, finish, close } = await world(url, drop);
  const queue = await PgBossTaskQueue.open(dispatch, url, { concurrency: CONTRACT_CONCURRENCY, sweepMs: 60_000 });
  return { queue, submit, finish, nudge: () => queue.nudge(), handBack: () => queue.handBack(), close: async () => (await queue.close(), await close()) };
});
