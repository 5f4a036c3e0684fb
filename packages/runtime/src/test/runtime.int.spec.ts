import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@xfer/config';
import express from 'express';
import { Runtime } from '../Runtime';

/** The process's one runtime: what it opens, in which order it closes it, and what a failed start leaves behind. */
describe('the runtime of a process', () => {
  let dir: string;
  let databaseUrl: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-runtime-'));
    databaseUrl = `sqlite:${join(dir, 'xfer.sqlite')}`;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Whether the database still answers through the runtime's services. */
  const answers = async (runtime: Runtime) => {
    try {
      await runtime.services.admin.identities.listIdentities();
      return true;
    } catch {
      return false;
    }
  };

  it('stops what was added in reverse order, each while the database still answers, then closes the engine; once', async () => {
    const runtime = await Runtime.open({ kind: 'server', databaseUrl });
    const stopped: string[] = [];
    for (const name of ['server', 'housekeeping', 'workers']) {
      runtime.onClose(name, async () => {
        stopped.push(`${name}: ${(await answers(runtime)) ? 'database open' : 'database closed'}`);
      });
    }
    await Promise.all([runtime.close(), runtime.close()]);
    await runtime.close();
    expect(stopped).toEqual(['workers: database open', 'housekeeping: database open', 'server: database open']);
    expect(await answers(runtime)).toBe(false);
    expect(() => runtime.onClose('late', () => undefined)).toThrow('the runtime is closing: cannot add late');
  });

  it('closes what was already open when starting fails, and says why', async () => {
    let opened: Runtime | null = null;
    const stopped: string[] = [];
    await expect(
      Runtime.start({ kind: 'server', databaseUrl }, async (runtime) => {
        opened = runtime;
        runtime.onClose('first server', () => void stopped.push('first server'));
        throw new ConfigError('AUTH_PORT is wrong');
      }),
    ).rejects.toThrow('AUTH_PORT is wrong');
    expect(stopped).toEqual(['first server']);
    expect(await answers(opened!)).toBe(false);
  });

  it('refuses a port in use naming its setting, and closes the servers it started before', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    const port = (taken.address() as { port: number }).port;
    let first: { listening: boolean } | null = null;
    try {
      await expect(
        Runtime.start({ kind: 'server', databaseUrl }, async (runtime) => {
          first = await runtime.listen(express(), 0, '127.0.0.1', 'API_PORT');
          await runtime.listen(express(), port, '127.0.0.1', 'AUTH_PORT');
        }),
      ).rejects.toThrow(`AUTH_PORT ${port} is already in use on 127.0.0.1: set AUTH_PORT`);
      expect(first!.listening).toBe(false);
    } finally {
      taken.close();
    }
  });

  it("gives every app of the process one set of services over one unit of work: their transactions run one after another", async () => {
    await Runtime.run({ databaseUrl }, async (runtime) => {
      const work = (n: number) =>
        runtime.uow.transaction(async (repos) => {
          await repos.identities.findById('x');
          // a transaction that waits between its statements (as one that signs or hashes does)
          await new Promise((resolve) => setTimeout(resolve, 5));
          await repos.identities.findById('y');
          return n;
        });
      expect(await Promise.all([work(1), work(2), work(3), work(4)])).toEqual([1, 2, 3, 4]);
      expect(runtime.appServices.endpoints).toBe(runtime.services.endpoints);
    });
  });

  it('runs a one-shot command and closes its engine even when the command fails', async () => {
    let used: Runtime | null = null;
    await expect(
      Runtime.run({ databaseUrl }, async (runtime) => {
        used = runtime;
        await runtime.services.admin.identities.addIdentity({ username: 'ada' });
        throw new Error('the command failed');
      }),
    ).rejects.toThrow('the command failed');
    expect(used!.kind).toBe('command');
    expect(await answers(used!)).toBe(false);
    // what it wrote before failing was its own transaction: kept
    expect(await Runtime.run({ databaseUrl }, async (runtime) => (await runtime.services.admin.identities.listIdentities()).map((i) => i.username))).toEqual(['ada']);
  });

  it('snapshots and restores only a stand-in\'s database', async () => {
    const standIn = await Runtime.open({ kind: 'standIn' });
    try {
      const seeded = await standIn.snapshot();
      await standIn.services.admin.identities.addIdentity({ username: 'later' });
      await standIn.restore(seeded);
      expect(await standIn.services.admin.identities.listIdentities()).toEqual([]);
    } finally {
      await standIn.close();
    }
    await Runtime.run({ databaseUrl }, async (runtime) => {
      await expect(runtime.snapshot()).rejects.toThrow('only the stand-in snapshots its tables');
    });
  });
});
