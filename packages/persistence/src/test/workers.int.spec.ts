import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorker } from '../engine/workers';

/** Threads start, or start-up says which one could not and why. */
describe('starting a worker thread', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'xfer-workers-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const script = (name: string, source: string) => {
    const file = join(dir, name);
    writeFileSync(file, source);
    return file;
  };

  it('resolves once the thread reports ready', async () => {
    const worker = await startWorker('echo thread', script('ready.js', "const { parentPort } = require('node:worker_threads'); parentPort.postMessage('ready'); parentPort.on('message', (m) => parentPort.postMessage(m));"), {});
    const echoed = new Promise((resolve) => worker.once('message', resolve));
    worker.postMessage('ping');
    expect(await echoed).toBe('ping');
    await worker.terminate();
  });

  it.each([
    ['its module fails to load', 'throw new Error("no such database driver");', /^The search thread could not start: no such database driver$/],
    ['it reports why it failed', "require('node:worker_threads').parentPort.postMessage({ failed: 'unable to open database file' });", /^The search thread could not start: unable to open database file$/],
    ['it exits before it is ready', 'process.exit(3);', /^The search thread could not start: exited with code 3$/],
  ])('rejects, naming the thread, when %s', async (_case, source, message) => {
    await expect(startWorker('search thread', script(`${source.length}.js`, source), {})).rejects.toThrow(message);
  });

  it('runs a TypeScript source through the same transpiler as the process, with the workspace paths', async () => {
    // the workspace root is found above the script: it lives beside this test, for the duration
    const inWorkspace = join(__dirname, `.worker-probe-${process.pid}.ts`);
    // a module of this workspace, by its package name, and a type annotation: only a TypeScript loader with the paths runs it
    writeFileSync(inWorkspace, "import { parentPort } from 'node:worker_threads';\nimport { SEARCHED_FIELDS } from '@xfer/core';\nconst fields: string[] = SEARCHED_FIELDS.map(([f]) => f);\nparentPort!.postMessage('ready');\nparentPort!.on('message', () => parentPort!.postMessage(fields[0]));\n");
    try {
      const worker = await startWorker('probe thread', inWorkspace, {});
      // asked once the answer has a listener: a message sent right after 'ready' may come before it has one
      const answered = new Promise((resolve) => worker.once('message', resolve));
      worker.postMessage('which field?');
      expect(await answered).toBe('display_name');
      await worker.terminate();
    } finally {
      rmSync(inWorkspace, { force: true });
    }
  });
});
