'use strict';
/**
 * After the TypeScript build (`npm run build`): the `xfer` command as one file with esbuild, then
 * V8's code cache of a stand-in's start and first requests (bin/bundle.js runs them). esbuild
 * because it bundles 1,600 CommonJS modules in about a second and keeps class names (TypeORM,
 * errors); the code cache because compiling the bundle is most of what remains of loading it.
 */
const { spawn } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { dirname, join, relative } = require('node:path');
const esbuild = require('esbuild');
const { MODULE_WRAPPER, WRITE_CACHE, command } = require('../bin/bundle');

const ROOT = join(__dirname, '..', '..', '..');
const DIST = join(__dirname, '..', 'dist');

/**
 * Each module keeps its own __dirname and __filename (its views, public files and thread scripts
 * are found beside it, as without the bundle): declared at its top, they shadow the bundle's.
 */
const ownPaths = {
  name: 'own-paths',
  setup(build) {
    build.onLoad({ filter: /\.c?js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('__dirname') && !source.includes('__filename')) return undefined;
      return { contents: `var __dirname = ${JSON.stringify(dirname(args.path))}, __filename = ${JSON.stringify(args.path)};\n${source}`, loader: 'js' };
    });
  },
};

/** Every project's build file (tsconfig.build.json's references), relative to DIST. */
function projectBuilds() {
  const { references } = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8'));
  return references.map(({ path }) => relative(DIST, join(ROOT, dirname(path), 'dist', '.tsbuildinfo')));
}

/** A stand-in started from the bundle, asked what a test asks first, then stopped: its exit writes the cache. */
async function writeCodeCache() {
  const work = mkdtempSync(join(tmpdir(), 'xfer-bundle-'));
  const seed = join(work, 'seed.json');
  writeFileSync(
    seed,
    JSON.stringify({
      identities: [{ username: 'cache@example.org', password: 'cache-password' }],
      tokens: [{ identity: 'cache@example.org', value: 'cache-token' }],
      endpoints: [{ owner: 'cache@example.org', display_name: 'Cache endpoint', public: true }],
    }),
  );
  const child = spawn(process.execPath, [join(__dirname, '..', 'bin', 'xfer.js'), 'serve', '--ephemeral', '--port', '0', '--seed', seed], {
    env: { ...process.env, [WRITE_CACHE]: '1', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // its log is shown only when it fails
  let log = '';
  child.stderr.on('data', (chunk) => (log += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      child.once('exit', (code) => reject(new Error(`the bundle's stand-in exited (${code}) before it answered:\n${log}`)));
    });
    const headers = { authorization: 'Bearer cache-token', 'content-type': 'application/json' };
    for (const [path, init] of [
      ['/_xfer/health', {}],
      ['/v0.10/endpoint_search?filter_fulltext=cache', { headers }],
      ['/v0.10/endpoint', { method: 'POST', headers, body: JSON.stringify({ display_name: 'Cached' }) }],
      ['/v2/web/login', {}],
    ]) {
      const res = await fetch(`${url}${path}`, init);
      if (res.status >= 300) throw new Error(`the bundle's stand-in answered ${path} with ${res.status}:\n${log}`);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(work, { recursive: true, force: true });
  }
  if (child.exitCode !== 0) throw new Error(`the bundle's stand-in stopped with ${child.exitCode ?? child.signalCode}:\n${log}`);
}

async function main() {
  rmSync(command.cache, { force: true });
  await esbuild.build({
    entryPoints: [join(DIST, 'main.js')],
    outfile: command.bundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    keepNames: true,
    // a smaller file to read (names kept: stack traces stay readable)
    minifyWhitespace: true,
    minifySyntax: true,
    // the TypeScript build's JavaScript (decorator metadata and all), never the sources the repository's tsconfig paths name
    tsconfigRaw: {},
    // native (better-sqlite3), loaded only where used (pg-boss: Postgres task workers; undici: a
    // data node reached; selfsigned: the stand-in's nodes' CA), or for TypeScript sources in tests:
    // what a start never runs is not read and compiled with it either (they were 1.1 MB of 7.3)
    external: ['better-sqlite3', 'pg-native', 'pg-boss', 'undici', 'selfsigned', 'ts-node', 'tsconfig-paths'],
    // the module wrapper in the file itself: read whole, its text stays one string outside V8's
    // heap (Module.wrap's concatenation was copied onto it, 5.8 MB that brought a full garbage
    // collection into the first request)
    banner: { js: MODULE_WRAPPER[0] },
    footer: { js: MODULE_WRAPPER[1] },
    plugins: [ownPaths],
    logLevel: 'error',
  });
  writeFileSync(command.manifest, JSON.stringify({ builds: projectBuilds() }));
  await writeCodeCache();
  if (!command.isFresh()) throw new Error('the bundle is older than a build it was made from');
  if (command.compile(readFileSync(command.cache)).cachedDataRejected) throw new Error('V8 refuses the code cache it has just written');
}

main().catch((error) => {
  // a bundle that does not start is not left to be used
  rmSync(command.bundle, { force: true });
  rmSync(command.cache, { force: true });
  console.error(`bundle: ${error.message}`);
  process.exitCode = 1;
});
