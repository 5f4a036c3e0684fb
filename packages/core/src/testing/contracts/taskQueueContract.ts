import { ownerShare, PER_USER } from '../../task/scheduling';
import type { TaskClaim, TaskQueue } from '../../task/TaskQueue';

/** The workers of the process whose queue is under test. */
export const CONTRACT_CONCURRENCY = 4;

export interface TaskQueueSubject {
  queue: TaskQueue;
  /** A new ACTIVE task of `owner` (by default alice; bob is another), a transfer unless asked for a delete: its id. */
  submit(owner?: 'alice' | 'bob', type?: 'TRANSFER' | 'DELETE'): Promise<string>;
  /** Ends a task (as its runner would): it is offered no more. */
  finish(taskId: string): Promise<void>;
  /** Has the adapter look for work now, where it has its own way to (a sweep). */
  nudge(): void;
  /** Aborts the claims' signal (the process stops). */
  handBack(): void;
  close(): Promise<void>;
}

/**
 * What every adapter of the TaskQueue port does (the in-process queue, pg-boss with advisory
 * locks), for a process of CONTRACT_CONCURRENCY workers: a task is claimed by one holder at a
 * time, offered again only when released and its time has come, never once finished; at most
 * PER_USER of an owner's tasks of a type are held, and one owner's never hold the workers kept for
 * others; a claim's signal aborts when the process hands back.
 */
export function describeTaskQueueContract(adapter: string, open: () => Promise<TaskQueueSubject>): void {
  describe(`task queue contract: ${adapter}`, () => {
    let subject: TaskQueueSubject;

    beforeEach(async () => {
      subject = await open();
    });
    afterEach(() => subject.close());

    /** The claims of `count` tasks at most, asked again for a few seconds until `enough` are there (a queue may need a sweep first). */
    const claims = async (count: number, enough = 1): Promise<TaskClaim[]> => {
      const found: TaskClaim[] = [];
      for (let i = 0; i < 100 && found.length < enough; i += 1) {
        subject.nudge();
        found.push(...(await subject.queue.claim(count - found.length)));
        if (found.length < enough) await new Promise((resolve) => setTimeout(resolve, 30));
      }
      return found;
    };
    /** Nothing is claimed over a while of asking. */
    const noneFor = async (ms: number): Promise<TaskClaim[]> => {
      const found: TaskClaim[] = [];
      for (const end = Date.now() + ms; Date.now() < end; ) {
        subject.nudge();
        found.push(...(await subject.queue.claim(5)));
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      return found;
    };

    it('hands a task to one holder at a time, and again once released', async () => {
      const id = await subject.submit();
      const [claim] = await claims(5);
      expect(claim?.taskId).toBe(id);
      expect(claim?.signal.aborted).toBe(false);
      expect(await noneFor(300)).toEqual([]);
      await subject.queue.release(claim!, 0);
      expect((await claims(5)).map((again) => again.taskId)).toEqual([id]);
    });

    it('offers a task released for later not before its time, and a finished one never', async () => {
      const [later, done] = [await subject.submit(), await subject.submit()];
      const held = await claims(5, 2);
      expect(held.map((claim) => claim.taskId).sort()).toEqual([later, done].sort());
      await subject.queue.release(held.find((claim) => claim.taskId === later)!, 60_000);
      await subject.finish(done);
      await subject.queue.release(held.find((claim) => claim.taskId === done)!, null);
      expect(await noneFor(300)).toEqual([]);
    });

    it("aborts its claims' signal when the process hands back", async () => {
      await subject.submit();
      const [claim] = await claims(5);
      subject.handBack();
      expect(claim?.signal.aborted).toBe(true);
      await subject.queue.release(claim!, 0);
    });

    it(`claims at most ${PER_USER} of one owner's transfers at once: a fourth is not claimed while three are held, and is once one is released`, async () => {
      const ids = [await subject.submit(), await subject.submit(), await subject.submit(), await subject.submit()];
      const held = await claims(5, PER_USER);
      expect(held).toHaveLength(PER_USER);
      expect(await noneFor(300)).toEqual([]);
      const [done, ...running] = held;
      await subject.finish(done!.taskId);
      await subject.queue.release(done!, null);
      const next = await claims(5);
      expect(next.map((claim) => claim.taskId)).toEqual(ids.filter((id) => !held.some((claim) => claim.taskId === id)));
      for (const claim of [...running, ...next]) await subject.queue.release(claim, 60_000);
    });

    it(`keeps a worker for other owners (F11): one owner's tasks of any type hold ${ownerShare(CONTRACT_CONCURRENCY)} of ${CONTRACT_CONCURRENCY} at most, another owner's is claimed beside them`, async () => {
      for (const type of ['TRANSFER', 'TRANSFER', 'TRANSFER', 'DELETE'] as const) await subject.submit('alice', type);
      const held = await claims(5, ownerShare(CONTRACT_CONCURRENCY));
      expect(held).toHaveLength(ownerShare(CONTRACT_CONCURRENCY));
      expect(await noneFor(300)).toEqual([]);
      const bobs = await subject.submit('bob');
      expect((await claims(5)).map((claim) => claim.taskId)).toEqual([bobs]);
    });
  });
}
