import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testPostgresUrl } from '@xfer/persistence/testing';
import { freePort } from '@xfer/server-kit';

/** `xfer serve` (what `npm start` runs) refusing to start: exit code 2 and a message naming the cause and the setting. */
const BIN = join(__dirname, '..', '..', 'bin', 'xfer.js');

function serve(env: Record<string, string>): Promise<{ code: number; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'serve'], { env: { ...process.env, HOST: '127.0.0.1', AUTH_SIGNING_KEY_SECRET: 'x'.repeat(32), ...env }, timeout: 30_000 }, (error, _stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, err: stderr.trim() }),
    );
  });
}

describe('xfer serve start-up errors', () => {
  let dir: string;
  let sqlite: string;
  let ports: { api: string; auth: string; console: string };
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'xfer-start-'));
    sqlite = `sqlite:${join(dir, 'xfer.sqlite')}`;
    // free ports asked one after the other may be the same one: each must differ
    const taken: number[] = [];
    while (taken.length < 3) {
      const port = await freePort();
      if (!taken.includes(port)) taken.push(port);
    }
    ports = { api: String(taken[0]), auth: String(taken[1]), console: String(taken[2]) };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function occupied(): Promise<{ port: string; server: Server }> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: String((server.address() as { port: number }).port), server };
  }

  it.each([['API_PORT'], ['AUTH_PORT'], ['CONSOLE_PORT']])('names %s when its port is in use', async (setting) => {
    const { port, server } = await occupied();
    try {
      const env = { DATABASE_URL: sqlite, API_PORT: ports.api, AUTH_PORT: ports.auth, CONSOLE_PORT: ports.console, [setting]: port };
      expect(await serve(env)).toEqual({ code: 2, err: `xfer: ${setting} ${port} is already in use on 127.0.0.1: set ${setting}` });
    } finally {
      server.close();
    }
  });

  it('refuses the same port for two apps', async () => {
    const res = await serve({ DATABASE_URL: sqlite, API_PORT: ports.api, AUTH_PORT: ports.api, CONSOLE_PORT: ports.console });
    expect(res).toEqual({ code: 2, err: `xfer: API_PORT and AUTH_PORT are both ${ports.api}: the apps need a port each; set one of them` });
    const console = await serve({ DATABASE_URL: sqlite, API_PORT: ports.api, AUTH_PORT: ports.auth, CONSOLE_PORT: ports.auth });
    expect(console).toEqual({ code: 2, err: `xfer: AUTH_PORT and CONSOLE_PORT are both ${ports.auth}: the apps need a port each; set one of them` });
  });

  it('names a host that is not this machine', async () => {
    const res = await serve({ DATABASE_URL: sqlite, API_PORT: ports.api, AUTH_PORT: ports.auth, CONSOLE_PORT: ports.console, HOST: 'no-such-host.invalid' });
    expect(res.code).toBe(2);
    expect(res.err).toMatch(/^xfer: HOST no-such-host\.invalid is not an address of this machine \(\w+\): set HOST$/);
  });

  it('says what is wrong with DATABASE_URL, naming it once', async () => {
    const res = await serve({ DATABASE_URL: 'nonsense' });
    expect(res).toEqual({ code: 2, err: "xfer: DATABASE_URL 'nonsense' is not supported: use sqlite:<path> or postgres://..." });
  });

  it('says which SQLite file it cannot create', async () => {
    // a file where the folder should be: unwritable for root too
    writeFileSync(join(dir, 'blocker'), '');
    const path = join(dir, 'blocker', 'xfer.sqlite');
    const res = await serve({ DATABASE_URL: `sqlite:${path}`, API_PORT: ports.api, AUTH_PORT: ports.auth, CONSOLE_PORT: ports.console });
    expect(res.code).toBe(2);
    expect(res.err).toMatch(new RegExp(`^xfer: cannot create or open ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .+: check DATABASE_URL$`));
  });

  it('says it cannot reach Postgres, and where', async () => {
    const port = await freePort();
    const res = await serve({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/xfer`, API_PORT: ports.api, AUTH_PORT: ports.auth, CONSOLE_PORT: ports.console });
    expect(res).toEqual({ code: 2, err: `xfer: cannot reach Postgres at 127.0.0.1:${port} (ECONNREFUSED): check DATABASE_URL` });
  });

  // the global setup provides a Postgres server unless the run was told to skip Postgres
  (testPostgresUrl() ? it : it.skip)('says a Postgres database does not exist, and how to make it', async () => {
    const url = new URL(testPostgresUrl()!);
    url.pathname = '/xfer_missing_here';
    const res = await serve({ DATABASE_URL: url.toString(), API_PORT: ports.api, AUTH_PORT: ports.auth, CONSOLE_PORT: ports.console });
    expect(res).toEqual({ code: 2, err: 'xfer: database xfer_missing_here does not exist: createdb xfer_missing_here or check DATABASE_URL' });
  });
});
