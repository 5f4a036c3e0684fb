// Jest global setup/teardown: a throwaway Postgres cluster for the Postgres test suites.
// XFER_TEST_POSTGRES_URL (an admin URL of a server whose databases tests may create) wins; otherwise,
// when Debian's server binaries are installed, a cluster is started in a temp directory on a free
// loopback port and stopped afterwards. Without either, the Postgres suites are not registered.
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, readdirSync, rmSync, chownSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir, userInfo } = require('node:os');
const { join } = require('node:path');

function serverBinaries() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs a server binary as the postgres user when we are root (initdb refuses root). */
function asServerUser(bin, args) {
  const root = userInfo().uid === 0;
  const [cmd, argv] = root ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const result = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${bin} failed: ${result.stderr || result.stdout}`);
}

module.exports = async function setup() {
  if (process.env.XFER_TEST_POSTGRES_URL || process.env.XFER_TEST_NO_POSTGRES) return;
  const bin = serverBinaries();
  if (!bin) {
    console.warn('\n[xfer] No Postgres server binaries: the Postgres suites are not run. Install postgresql or set XFER_TEST_POSTGRES_URL.');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'xfer-pg-'));
  if (userInfo().uid === 0) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  asServerUser(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  asServerUser(join(bin, 'pg_ctl'), [
    '-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60',
    '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
    'start',
  ]);
  process.env.XFER_TEST_POSTGRES_URL = `postgres://postgres@127.0.0.1:${port}/postgres`;
  globalThis.__XFER_PG__ = { bin, dir, data };
};

module.exports.teardown = async function teardown() {
  const pg = globalThis.__XFER_PG__;
  if (!pg) return;
  try {
    asServerUser(join(pg.bin, 'pg_ctl'), ['-D', pg.data, '-m', 'immediate', '-w', 'stop']);
  } finally {
    rmSync(pg.dir, { recursive: true, force: true });
  }
};
