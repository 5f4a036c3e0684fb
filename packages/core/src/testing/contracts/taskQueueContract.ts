import type { TaskClaim, TaskQueue } from '../../task/TaskQueue';

export interface TaskQueueSubject {
  queue: TaskQueue;
  /** A new ACTIVE task of one owner: its id. */
  submit(): Promise<string>;
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
 * locks): a task is claimed by one holder at a time, offered again only when released and its
 * time has come, never once finished; a claim's signal aborts when the process hands back.
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
  });
}
