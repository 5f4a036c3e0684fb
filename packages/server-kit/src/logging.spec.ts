import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const built = join(__dirname, '..', 'dist', 'index.js');

/** A process that logs with createLogger's own stdout destination, as the servers do: its stdout as lines. */
async function linesOf(script: string): Promise<{ msg: string; name: string; level: number; n?: number }[]> {
  const { stdout } = await run(process.execPath, ['-e', `const { createLogger } = require(${JSON.stringify(built)});\n${script}`]);
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { msg: string; name: string; level: number; n?: number });
}

describe('createLogger on stdout', () => {
  it('writes every line, each logger\'s in order, across turns of the event loop', async () => {
    const lines = await linesOf(`
      const api = createLogger({ name: 'api' }), auth = createLogger({ name: 'auth' });
      for (let n = 0; n < 500; n++) (n % 2 ? auth : api).info({ n }, 'first turn');
      setImmediate(() => { api.warn({ n: 500 }, 'second turn'); setTimeout(() => auth.info({ n: 501 }, 'later'), 20); });
    `);
    expect(lines).toHaveLength(502);
    const of = (name: string) => lines.filter((line) => line.name === name).map((line) => line.n);
    expect(of('api')).toEqual([...[...Array(250).keys()].map((n) => 2 * n), 500]);
    expect(of('auth')).toEqual([...[...Array(250).keys()].map((n) => 2 * n + 1), 501]);
    expect(lines.find((line) => line.n === 1)).toMatchObject({ name: 'auth', level: 30, msg: 'first turn' });
    expect(lines.find((line) => line.n === 500)).toMatchObject({ name: 'api', level: 40, msg: 'second turn' });
  });

  it('writes the lines of the turn the process exits in', async () => {
    const lines = await linesOf(`
      const log = createLogger({ name: 'cli' });
      setTimeout(() => { log.info('before'); log.error('stopping'); process.exit(2); }, 10);
    `).catch((error: { code: number; stdout: string }) => {
      expect(error.code).toBe(2);
      return error.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { msg: string; name: string; level: number });
    });
    expect(lines.map((line) => line.msg)).toEqual(['before', 'stopping']);
  });

  it('logs nothing below its level', async () => {
    expect(await linesOf(`const log = createLogger({ name: 'quiet', level: 'warn' }); log.info('no'); log.warn('yes');`)).toEqual([expect.objectContaining({ msg: 'yes' })]);
  });
});
