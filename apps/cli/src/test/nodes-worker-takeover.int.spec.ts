import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '@xfer/api';
import type { Principal } from '@xfer/core';
import { transferRequest } from '@xfer/core/testing';
import { NodeServer } from '@xfer/node';
import { freshPostgresDatabase } from '@xfer/persistence/testing';
import { Runtime, taskLockKey } from '@xfer/runtime';
import { createLogger, freePort, listen } from '@xfer/server-kit';
import { makeTestCertificates } from '@xfer/server-kit/testing';
import { Client } from 'pg';

/** A file's md5, read as a stream (the file is large). */
async function digestOf(path: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const ROOT = join(__dirname, '..', '..', '..', '..');
const SIZE = 768 * 2 ** 20;
const PART = '.xfer-part-';

/**
 * Two `xfer worker` processes on one Postgres database; the one copying a file between two data
 * nodes is killed (SIGKILL) mid-file. The destination node drops the copy it had been asked for
 * (its connection closed), the other worker takes the task up and copies the file again: never
 * left running, never at its final name twice.
 */
describe('a worker killed mid-copy between nodes, on Postgres', () => {
  let dir: string;
  let drop: () => Promise<void>;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once('exit', resolve)) : null)));
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is taken over: the copy it asked for stops, the other worker copies the file whole', async () => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-node-takeover-'));
    const certificates = makeTestCertificates(dir);
    const ca = readFileSync(certificates.ca, 'utf8');
    let databaseUrl: string;
    ({ url: databaseUrl, drop } = await freshPostgresDatabase(process.env.XFER_TEST_POSTGRES_URL!));
    const runtime = await Runtime.open({ kind: 'server', databaseUrl, nodeCa: ca });
    const server: Server = await listen(createApp(runtime.appServices, { logger: createLogger({ level: 'silent' }) }), 0, '127.0.0.1');
    const apiUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const nodes: NodeServer[] = [];
    const locks = new Client({ connectionString: databaseUrl });
    await locks.connect();
    try {
      const roots: string[] = [];
      for (const name of ['node-one', 'node-two']) {
        const port = await freePort();
        const { node, secret } = await runtime.services.admin.nodes.addNode({ name, url: `https://localhost:${port}` });
        writeFileSync(join(dir, `${name}.secret`), secret);
        roots.push(join(dir, name));
        mkdirSync(join(dir, name));
        nodes.push(await NodeServer.start({ apiUrl, authUrl: apiUrl, nodeId: node.id, secretFile: join(dir, `${name}.secret`), port, host: '127.0.0.1', tlsCert: certificates.cert, tlsKey: certificates.key, peerCa: ca, logger: createLogger({ level: 'silent' }) }));
      }
      const [source, destination] = roots as [string, string];
      writeFileSync(join(source, 'huge.bin'), '');
      truncateSync(join(source, 'huge.bin'), SIZE);
      await runtime.services.admin.identities.addIdentity({ username: 'alice' });
      const alice: Principal = await runtime.services.authentication.principalOf((await runtime.services.admin.identities.listIdentities())[0]!.id);
      const endpoints: string[] = [];
      for (const [i, root] of roots.entries()) {
        const id = (await runtime.services.endpoints.createEndpoint(alice, { display_name: `On node ${i}`, personal: false })).id;
        await runtime.services.admin.endpoints.setStorage(id, { type: 'node', node: `node-${i === 0 ? 'one' : 'two'}`, root });
        endpoints.push(id);
      }

      let output = '';
      for (let i = 0; i < 2; i += 1) {
        const worker = spawn(process.execPath, [join(ROOT, 'apps/cli/bin/xfer.js'), 'worker'], { env: { ...process.env, DATABASE_URL: databaseUrl, API_TASK_WORKERS: '1', LOG_LEVEL: 'silent', NODE_EXTRA_CA_CERTS: certificates.ca } });
        worker.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        children.push(worker);
      }
      const { task } = await runtime.services.tasks.submit(alice, transferRequest({ submission_id: runtime.services.tasks.submissionId(), source_endpoint: endpoints[0]!, destination_endpoint: endpoints[1]!, items: [{ source_path: '/huge.bin', destination_path: '/huge.bin' }] }));

      // the copy under way at the destination, and the worker holding the task
      const parts = () => readdirSync(destination).filter((name) => name.startsWith(PART));
      let holder: number | null = null;
      let first: string | undefined;
      for (const deadline = Date.now() + 30_000; (first = parts()[0]) === undefined || holder === null; await new Promise((resolve) => setTimeout(resolve, 5))) {
        if (Date.now() > deadline) throw new Error(`no copy began: ${output}`);
        const rows = (await locks.query<{ application_name: string; classid: string; objid: string }>("SELECT a.application_name, l.classid, l.objid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted")).rows;
        const row = rows.find((r) => BigInt.asIntN(64, (BigInt(r.classid) << 32n) | BigInt(r.objid)) === taskLockKey(task.id));
        holder = row ? Number(/(\d+)$/.exec(row.application_name)?.[1]) : null;
      }
      expect(children.map((child) => child.pid)).toContain(holder);
      process.kill(holder!, 'SIGKILL');

      // the copy it had asked for stops: its temporary file goes, never renamed to the final name
      for (const deadline = Date.now() + 10_000; parts().includes(first!); await new Promise((resolve) => setTimeout(resolve, 10))) {
        expect(existsSync(join(destination, 'huge.bin'))).toBe(false);
        expect(Date.now()).toBeLessThan(deadline);
      }
      for (let i = 0; ; i += 1) {
        const now = await runtime.services.tasks.get(alice, task.id);
        if (now.status !== 'ACTIVE') {
          expect(now.status).toBe('SUCCEEDED');
          break;
        }
        if (i > 900) throw new Error(`the task did not finish: ${JSON.stringify(now)}\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(readdirSync(destination)).toEqual(['huge.bin']);
      expect(await digestOf(join(destination, 'huge.bin'))).toBe(await digestOf(join(source, 'huge.bin')));
    } finally {
      await locks.end();
      for (const node of nodes) await node.close();
      await new Promise((resolve) => server.close(resolve));
      await runtime.close();
    }
  });
});
