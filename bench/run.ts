/**
 * `npm run bench`: seeds fresh databases, starts the servers on loopback, drives each scenario with
 * autocannon for a bounded time, prints a report and writes bench-results/; `--write-report` also
 * rewrites the committed BENCHMARKS.md (do that from a full default run only).
 *
 *   npm run bench                    SQLite at 1,000 / 100,000 / 1,000,000 and Postgres at 1,000 / 100,000 endpoints
 *   npm run bench -- --quick         short run: 1,000 and 100,000 endpoints, 2 s per scenario (1 s warm-up)
 *   npm run bench -- --sizes 1000,100000,1000000 --backends postgres
 *   npm run bench -- --sizes 1000,1000000 --backends sqlite --duration 10 --warmup 5
 *   npm run bench -- --sizes 1000000 --backends sqlite --scenarios search   one scenario (never --write-report)
 *   npm run bench -- --backends none --scenarios "transfer tasks"           the tasks beside cp alone
 *   npm run bench -- --backends none --scenarios "data nodes"               a node's HTTPS GET beside a bare https server
 *   npm run bench -- --backends none --scenarios "node copies"              node to node: 1 GiB beside curl, 10,000 small files
 *   npm run bench -- --backends none --scenarios "stack floor" --compare ../main   GET by id beside the stack's floor, this checkout and another
 *   npm run bench -- --backends none --scenarios stand-in --compare ../release       the stand-in's start beside another checkout's (its last release, built)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon, { type Request as AutocannonRequest } from 'autocannon';
import { createCoreServices, randomIdGenerator, systemClock } from '@xfer/core';
import { openEngine, seedDatabase, TypeormUnitOfWork, type Engine, type SeedResult } from '@xfer/persistence';
import { freshPostgresDatabase } from '@xfer/persistence/testing';
import { peakRssMb, standInUrl, start, stop } from './processes';
import { measureStackFloor } from './stackFloor';
import { measureNodeCopies } from './nodeCopies';
import { measureNodes } from './nodes';
import { measureTasks } from './tasks';
import { SingleBar, Presets } from 'cli-progress';

const ROOT = join(__dirname, '..');
/** Profiles and reading notes, kept by hand, included in the report. */
const NOTES = join(ROOT, 'bench', 'NOTES.md');
// the test suites' throwaway Postgres cluster (a plain JS module shared with jest)
type Cluster = { url: string; cluster: unknown };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pg = require(join(ROOT, 'jest.global-setup.js')) as { startPostgres(settings?: string[]): Promise<Cluster | null>; stopPostgres(cluster: unknown): void };
let postgresCluster: Cluster | null = null;
/**
 * The throwaway cluster as a deployment would run it: shared_buffers a quarter of the machine's
 * memory, Postgres's own advice for a dedicated server. Its default, 128 MB, holds a twentieth of a
 * 1,000,000-endpoint catalogue (3 GB): a fifth of Postgres's CPU under the search load went to
 * reading pages from the kernel's page cache, which this machine hands back to its host while
 * pages are idle, so that many of those reads waited for the disk.
 */
const POSTGRES_SETTINGS = [`shared_buffers=${Math.floor(totalmem() / 4 / 2 ** 20)}MB`];

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    sizes: { type: 'string' },
    backends: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '32' },
    shares: { type: 'string', default: '10000' },
    scenarios: { type: 'string' },
    'report-only': { type: 'boolean', default: false },
    'write-report': { type: 'boolean', default: false },
    /** Another built checkout of xfer, measured beside this one in the stack-floor rounds and the stand-in's starts (today's main beside a branch; its last release). */
    compare: { type: 'string' },
  },
});
const quick = flags.quick ?? false;
/** Catalogue sizes per backend: 1,000,000 on Postgres only when asked (its seeding alone takes minutes). */
function sizesFor(backend: string): number[] {
  if (flags.sizes) return flags.sizes.split(',').map(Number);
  if (quick) return [1000, 100000];
  return backend === 'sqlite' ? [1000, 100000, 1000000] : [1000, 100000];
}
const DURATION = Number(flags.duration ?? (quick ? 2 : 5));
/**
 * Seconds of each round of warm-up: the same load before each measurement, not counted, until a
 * round's rate is within SETTLED of the round's before (at most WARMUP_ROUNDS rounds). A server's
 * first requests pay for V8's compiling and the first reads of its pages, and this machine gives
 * the page cache back to its host while pages are idle: a search at 1,000,000 endpoints started at
 * 575 req/s and settled at 1,700-2,300 once its pages were read in again, 30 s later.
 */
const WARMUP = Number(flags.warmup ?? (quick ? 1 : 2));
const WARMUP_ROUNDS = 10;
const SETTLED = 0.1;
const CONNECTIONS = Number(flags.connections);
const SHARES = Number(flags.shares);
/** `--scenarios search,access_list`: only the scenarios whose names hold one of these (the floor always runs). */
const ONLY = flags.scenarios?.split(',').filter(Boolean);
if (ONLY && flags['write-report']) throw new Error('--write-report writes BENCHMARKS.md from every scenario: not with --scenarios');

interface Row {
  backend: string;
  size: number;
  scenario: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non_2xx: number;
  ratio_to_baseline: number | null;
  /** requests/s over those of the floor (bench/floor.js) on the same database. */
  ratio_to_floor?: number | null;
  /** Seconds of warm-up before the measurement (warmUp). */
  warmup_s?: number;
  /** Tasks: xfer's rate over cp's on the same files, in the same run. */
  ratio_to_cp?: number | null;
  peak_rss_mb: number | null;
}

interface Scenario {
  name: string;
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  /** Builds each request (rotating ids, unique names). */
  request?: () => Partial<AutocannonRequest>;
  body?: string;
  /** Concurrent connections, when not the run's (`--connections`). */
  connections?: number;
}

/** Rounds of `load` until a round's rate is within SETTLED of the round's before; the seconds they took. */
async function warmUp(load: (seconds: number) => Promise<autocannon.Result>): Promise<number> {
  if (WARMUP <= 0) return 0;
  let previous = 0;
  for (let round = 1; round <= WARMUP_ROUNDS; round++) {
    const rate = (await load(WARMUP)).requests.average;
    if (round > 1 && Math.abs(rate - previous) <= SETTLED * previous) return round * WARMUP;
    previous = rate;
  }
  return WARMUP_ROUNDS * WARMUP;
}

async function measure(scenario: Scenario): Promise<Omit<Row, 'backend' | 'size' | 'scenario' | 'ratio_to_baseline' | 'peak_rss_mb'>> {
  const load = (duration: number) =>
    autocannon({
      url: scenario.url,
      method: scenario.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...scenario.headers },
      body: scenario.body,
      connections: scenario.connections ?? CONNECTIONS,
      duration,
      requests: scenario.request
        ? [
            {
              method: scenario.method ?? 'GET',
              headers: { 'content-type': 'application/json', ...scenario.headers },
              setupRequest: (req: AutocannonRequest) => ({ ...req, ...scenario.request!() }),
            },
          ]
        : undefined,
    });
  const warmup = await warmUp(load);
  const result = await load(DURATION);
  if (result.non2xx > 0) console.error(`  ${scenario.name}: status codes ${JSON.stringify(result.statusCodeStats)}`);
  return {
    requests_per_second: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non_2xx: result.non2xx,
    warmup_s: warmup,
  };
}

async function signIn(authUrl: string, username: string, password: string): Promise<string> {
  const form = await fetch(`${authUrl}/v2/web/login`);
  const cookies = form.headers.getSetCookie().map((c) => c.split(';')[0]);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const res = await fetch(`${authUrl}/v2/web/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: cookies.join('; '), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, username, password }).toString(),
  });
  const session = res.headers.getSetCookie().find((c) => c.startsWith('xfer_session='));
  if (!session) throw new Error(`sign-in for the benchmark failed: ${res.status}`);
  return session.split(';')[0];
}

/**
 * Signs in to the web console as a browser would, with the authorization service's session cookie
 * already set (sign-in page skipped; the consent screen allowed); returns the console's session cookie.
 */
async function consoleSignIn(consoleUrl: string, authSession: string): Promise<string> {
  const jar = new Map<string, string>([authSession.split('=', 2) as [string, string]]);
  const visit = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  };
  let url = `${consoleUrl}/console/login`;
  let res = await visit(url);
  while (res.status === 302 || res.status === 303) {
    url = new URL(res.headers.get('location')!, url).href;
    if (res.status === 303 && url.startsWith(`${consoleUrl}/console/search`)) break;
    res = await visit(url);
    if (res.status === 200 && url.includes('/v2/web/authorize')) {
      const fields = new URLSearchParams({ decision: 'allow' });
      for (const [, name, value] of (await res.text()).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(name, value.replace(/&amp;/g, '&'));
      res = await visit(new URL('/v2/web/authorize', url).href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields.toString() });
    }
  }
  const session = jar.get('xfer_console');
  if (!session) throw new Error(`console sign-in for the benchmark failed at ${url}: ${res.status}`);
  return `xfer_console=${session}`;
}

/** The bench's one way into a database before its servers start (seeding, setting up scenarios): opened for `work`, closed after. */
async function withEngine<T>(databaseUrl: string, work: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await openEngine(databaseUrl);
  try {
    return await work(engine);
  } finally {
    await engine.close();
  }
}

async function seed(databaseUrl: string, size: number): Promise<SeedResult> {
  const bar = process.stderr.isTTY
    ? new SingleBar({ format: `seeding ${size} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`, stream: process.stderr }, Presets.shades_classic)
    : null;
  bar?.start(size, 0);
  const started = Date.now();
  try {
    return await withEngine(databaseUrl, (engine) => seedDatabase(engine, { endpoints: size, sharesOnFirstHost: Math.min(SHARES, Math.floor(size / 2)), onProgress: (done) => bar?.update(done) }));
  } finally {
    bar?.stop();
    console.error(`seeded ${size} endpoints in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

/** A share of the host with `count` access rules, made through the API as the benchmark user. */
async function shareWithRules(apiUrl: string, auth: Record<string, string>, hostId: string, count: number): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${apiUrl}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answer = (await res.json()) as Record<string, string>;
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const share = (await post('/shared_endpoint', { display_name: `Rules ${process.pid}`, host_endpoint: hostId, host_path: '/rules/' })).id;
  for (let i = 0; i < count; i++) await post(`/endpoint/${share}/access`, { principal_type: 'all_authenticated_users', principal: '', path: `/folder-${i}/`, permissions: 'r' });
  return share;
}

/** Endpoints the costly caller of the scoped-search measurement owns, and the words of their descriptions. */
const HEAVY_ENDPOINTS = 1000;
const HEAVY_WORDS = 'storage archive imaging genomics climate ocean tape lab data physics chemistry biology cluster compute transfer network project results analysis model survey sensor telescope instrument'.split(' ');

/**
 * A caller who owns HEAVY_ENDPOINTS endpoints with descriptions of about 3 KB (security review two,
 * finding 1), made on the database directly: its token for the API.
 */
async function heavyCaller(databaseUrl: string): Promise<string> {
  return withEngine(databaseUrl, async (engine) => {
    const services = createCoreServices(new TypeormUnitOfWork(engine), systemClock, randomIdGenerator);
    const username = `heavy-${process.pid}-${Date.now()}@example.org`;
    await services.admin.identities.addIdentity({ username });
    const { token } = await services.admin.tokens.issueToken(username);
    const caller = await services.authentication.authenticate(token);
    for (let i = 0; i < HEAVY_ENDPOINTS; i++) {
      const words = Array.from({ length: 400 }, (_, w) => `${HEAVY_WORDS[(i * 7 + w * 13) % HEAVY_WORDS.length]}${(i * w) % 97}`);
      await services.endpoints.createEndpoint(caller, { display_name: `Heavy ${i}`, description: words.join(' '), personal: false, public: i % 2 === 0 });
    }
    return token;
  });
}

/**
 * The costliest scoped searches a caller may send (finding 1: two one-letter terms, the most the
 * API takes, in each narrow scope), one after another for the measurement's length, while the
 * others' two-term search runs at full load beside them: the costly ones' latencies, and the
 * others' as autocannon saw them.
 */
async function worstScopedSearch(backend: string, size: number, apiUrl: string, token: string, others: Scenario): Promise<Row[]> {
  const queries = ['my-endpoints', 'administered-by-me', 'hide-no-permissions'].flatMap((scope) => ['a b storage', 'a 1 archive imaging'].map((text) => `filter_scope=${scope}&filter_fulltext=${encodeURIComponent(text)}`));
  const latencies: number[] = [];
  let failures = 0;
  let stopped = false;
  const costly = (async () => {
    for (let i = 0; !stopped; i++) {
      const started = performance.now();
      const res = await fetch(`${apiUrl}/endpoint_search?${queries[i % queries.length]}`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (res.status !== 200) failures++;
      latencies.push(performance.now() - started);
    }
  })();
  const beside = await measure(others).finally(() => (stopped = true));
  await costly;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]);
  const seconds = DURATION + (beside.warmup_s ?? 0);
  return [
    {
      backend, size, scenario: `worst scoped search (${HEAVY_ENDPOINTS.toLocaleString('en')} owned endpoints, 3 KB text each), one at a time`,
      requests_per_second: Number((latencies.length / seconds).toFixed(1)), p50_ms: at(0.5), p99_ms: at(0.99), errors: 0, non_2xx: failures, ratio_to_baseline: null, peak_rss_mb: null,
    },
    { backend, size, scenario: `${others.name}, beside the worst scoped search`, ...beside, ratio_to_baseline: null, peak_rss_mb: null },
  ];
}

/**
 * The stand-in for tests (`xfer serve --ephemeral`) with a seed of 100 objects: from the command's
 * start to the first answer (its URL line, then GET /_xfer/health), and the reset back to the seed
 * as the stand-in times it, over rounds after some writes.
 */
async function measureStandIn(work: string, roots: { name: string; dir: string }[]): Promise<Row[]> {
  const seed = {
    identities: Array.from({ length: 20 }, (_, i) => ({ username: `user${i}@example.org`, password: `password-${i}` })),
    tokens: Array.from({ length: 20 }, (_, i) => ({ identity: `user${i}@example.org`, value: `token-of-user-${i}` })),
    endpoints: Array.from({ length: 60 }, (_, i) => ({ owner: `user${i % 20}@example.org`, display_name: `Endpoint ${i}`, public: i % 2 === 0, servers: [{ hostname: `dtn${i}.example.org` }] })),
  };
  const file = join(work, 'stand-in-seed.json');
  writeFileSync(file, JSON.stringify(seed));
  const rounds = 5;
  const starts: number[] = [];
  const resets: number[] = [];
  // the floor of any start: a Node.js process that does nothing, measured in the same run
  const bare: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    await new Promise((resolve) => spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).once('exit', resolve));
    bare.push(performance.now() - started);
  }
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    const child = spawn(process.execPath, [join(ROOT, 'apps/cli/bin/xfer.js'), 'serve', '--ephemeral', '--port', '0', '--seed', file], { env: { ...process.env, HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'ignore'] });
    const url = await standInUrl(child);
    await fetch(`${url}/_xfer/health`);
    starts.push(performance.now() - started);
    for (let i = 0; i < 10; i++) {
      await fetch(`${url}/v0.10/endpoint`, { method: 'POST', headers: { authorization: 'Bearer token-of-user-1', 'content-type': 'application/json' }, body: JSON.stringify({ display_name: `after ${i}` }) });
      resets.push(((await (await fetch(`${url}/_xfer/reset`, { method: 'POST' })).json()) as { duration_ms: number }).duration_ms);
    }
    child.kill('SIGTERM');
  }
  // to its URL line without a seed, as a test suite's stand-in starts, each checkout in turn in
  // every round (this machine's speed drifts over minutes: turns keep the comparison fair)
  const bareStarts = new Map(roots.map((root) => [root.name, [] as number[]]));
  for (let round = 0; round < 15; round++) {
    for (const root of round % 2 === 0 ? roots : [...roots].reverse()) {
      const started = performance.now();
      const child = spawn(process.execPath, [join(root.dir, 'apps/cli/bin/xfer.js'), 'serve', '--ephemeral', '--port', '0'], { env: { ...process.env, HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'ignore'] });
      await standInUrl(child);
      bareStarts.get(root.name)!.push(performance.now() - started);
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
  const row = (scenario: string, values: number[]): Row => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] * 10) / 10;
    return { backend: 'sqlite (in memory)', size: 100, scenario, requests_per_second: 0, p50_ms: at(0.5), p99_ms: at(0.99), errors: 0, non_2xx: 0, ratio_to_baseline: null, peak_rss_mb: null };
  };
  return [
    row(`stand-in: node -e 0, the floor of a process start (${rounds} starts)`, bare),
    row(`stand-in: cold start to first answer (seed of 100 objects, ${rounds} starts)`, starts),
    ...roots.map((root) => row(`stand-in: start to its URL line, no seed (${root.name}, 15 starts in turns)`, bareStarts.get(root.name)!)),
    row(`stand-in: POST /_xfer/reset (seed of 100 objects, ${resets.length} resets)`, resets),
  ];
}

/** Public endpoints whose names are rare among the seeded ones: "Zephyrine bathymetry <n>". */
const RARE_ENDPOINTS = 50;

async function rareEndpoints(apiUrl: string, auth: Record<string, string>): Promise<void> {
  for (let n = 1; n <= RARE_ENDPOINTS; n++) {
    const res = await fetch(`${apiUrl}/endpoint`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ display_name: `Zephyrine bathymetry ${n}`, public: true }) });
    if (res.status !== 201) throw new Error(`could not create the rare endpoints: ${res.status} ${await res.text()}`);
  }
}

/** The floor (bench/floor.js) on this database, answering the host's document as the API renders it. */
async function measureFloor(backend: string, size: number, databaseUrl: string, apiUrl: string, auth: Record<string, string>, hostId: string): Promise<Row> {
  const document = await (await fetch(`${apiUrl}/endpoint/${hostId}`, { headers: auth })).text();
  const floor = await start(join(ROOT, 'bench/floor.js'), { DATABASE_URL: databaseUrl, DOCUMENT: document }, (port) => `http://127.0.0.1:${port}/healthz`);
  try {
    const measured = await measure({ name: 'floor', url: `http://127.0.0.1:${floor.port}/floor/${hostId}` });
    return { backend, size, scenario: 'floor: Express + one prepared read + the same document', ...measured, ratio_to_baseline: null, peak_rss_mb: peakRssMb(floor.child) };
  } finally {
    await stop(floor.child);
  }
}

/** Entries of the directory the `ls` scenarios list (issue 47), on posix and on memory storage. */
const LISTED_ENTRIES = 10_000;
/** Entries of the memory tree whose memory the bench reports. */
const TREE_ENTRIES = 100_000;

/** The names and sizes of the listed directory's files: varied sizes, as a folder of results has. */
const listedFile = (i: number) => ({ name: `result-${String(i).padStart(5, '0')}.dat`, size: (i * 37) % 4096 });

/** A directory of LISTED_ENTRIES files under `root`/big, attached as the posix storage of `hostId`. */
async function posixStorage(databaseUrl: string, root: string, hostId: string): Promise<void> {
  mkdirSync(join(root, 'big'), { recursive: true });
  for (let i = 0; i < LISTED_ENTRIES; i++) {
    const { name, size } = listedFile(i);
    writeFileSync(join(root, 'big', name), Buffer.alloc(size, 120));
  }
  await withEngine(databaseUrl, (engine) => createCoreServices(new TypeormUnitOfWork(engine), systemClock, randomIdGenerator).admin.endpoints.setStorage(hostId, { type: 'posix', root }));
}

/**
 * The listings of a 10,000-entry directory: a page of 100 (the console's) under the run's 32
 * connections, and all of it in one answer (the CLI's `globus ls`, 3 MB) one request at a time:
 * 32 of those at once queue for seconds behind each other, which measures the queue, not a listing.
 */
function listingScenarios(kind: string, apiUrl: string, endpointId: string, headers: Record<string, string>): Scenario[] {
  const ls = `${apiUrl}/operation/endpoint/${endpointId}/ls?path=/big/`;
  return [
    { name: `GET ls, ${LISTED_ENTRIES.toLocaleString('en')}-entry directory (${kind}), first 100`, url: `${ls}&limit=100`, headers },
    { name: `GET ls, ${LISTED_ENTRIES.toLocaleString('en')}-entry directory (${kind}), all in one answer, one connection`, url: ls, headers, connections: 1 },
  ];
}

/**
 * The stand-in (memory storage, its default) serving a seeded tree of LISTED_ENTRIES files: the
 * same listings as on posix storage, measured against the floor of the same run.
 */
async function measureMemoryListing(work: string, withFloor: (row: Row) => Row): Promise<Row[]> {
  const endpointId = '5b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3';
  const files = Object.fromEntries(Array.from({ length: LISTED_ENTRIES }, (_, i) => listedFile(i)).map(({ name, size }) => [`/big/${name}`, 'x'.repeat(size)]));
  const seedFile = join(work, 'memory-listing-seed.json');
  writeFileSync(
    seedFile,
    JSON.stringify({
      identities: [{ username: 'lister@example.org', password: 'lister' }],
      tokens: [{ identity: 'lister@example.org', value: 'lister-token' }],
      endpoints: [{ id: endpointId, owner: 'lister@example.org', display_name: 'Memory listing', servers: [{ hostname: 'memory.example.org' }], storage: { type: 'memory', files } }],
    }),
  );
  const child = spawn(process.execPath, [join(ROOT, 'apps/cli/bin/xfer.js'), 'serve', '--ephemeral', '--port', '0', '--seed', seedFile], { env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await standInUrl(child);
    const rows: Row[] = [];
    for (const scenario of listingScenarios('memory, the stand-in', `${url}/v0.10`, endpointId, { authorization: 'Bearer lister-token' })) {
      rows.push(withFloor({ backend: 'sqlite (in memory)', size: 1, scenario: scenario.name, ...(await measure(scenario)), ratio_to_baseline: null, peak_rss_mb: null }));
    }
    const rss = peakRssMb(child);
    for (const row of rows) row.peak_rss_mb = rss;
    return rows;
  } finally {
    await stop(child);
  }
}

/**
 * What a memory tree of TREE_ENTRIES entries (files of 100 bytes in folders of 1,000) holds of a
 * process's memory: heap and external bytes after a full collection, before and after, in a
 * process of its own.
 */
async function memoryTreeFootprint(): Promise<Row> {
  const script = `
    const { MemoryTree } = require(${JSON.stringify(join(ROOT, 'packages/storage/dist'))});
    (async () => {
      const used = () => { global.gc(); const m = process.memoryUsage(); return m.heapUsed + m.external + m.arrayBuffers; };
      const before = used();
      const started = performance.now();
      // written through the storage port, as files arrive in a tree (a seed holds at most 10,000)
      const tree = new MemoryTree({});
      const body = Buffer.alloc(100, 120);
      for (let d = 0; d < ${TREE_ENTRIES / 1000}; d++) {
        await tree.storage.mkdir('/d' + d);
        for (let i = 0; i < 1000; i += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => tree.storage.write('/d' + d + '/file-' + (i + k) + '.dat', (async function* () { yield body; })())));
      }
      const ms = performance.now() - started;
      const after = used();
      process.stdout.write(JSON.stringify({ mb: (after - before) / 2 ** 20, ms, rss: process.memoryUsage().rss / 2 ** 20, kept: !!tree }));
    })();
  `;
  const child = spawn(process.execPath, ['--expose-gc', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  const { mb, ms, rss } = JSON.parse(out) as { mb: number; ms: number; rss: number };
  return {
    backend: 'memory storage',
    size: 0,
    scenario: `memory tree of ${TREE_ENTRIES.toLocaleString('en')} files (100 B each, 1,000 a folder): written through the storage port: holds ${Math.round(mb)} MB (heap + external after a full GC); p50 = p99 = the time to write it; peak RSS of its process`,
    requests_per_second: 0,
    p50_ms: Math.round(ms),
    p99_ms: Math.round(ms),
    errors: 0,
    non_2xx: 0,
    ratio_to_baseline: null,
    peak_rss_mb: Math.round(rss),
  };
}

async function runSize(backend: string, databaseUrl: string, size: number, baseline: number, smallest: boolean, work: string): Promise<Row[]> {
  const data = await seed(databaseUrl, size);
  // files on endpoints: listed at the smallest size only (a catalogue's size does not change a directory's)
  const listing = smallest && (!ONLY || ONLY.some((o) => 'GET ls'.includes(o)));
  if (listing) await posixStorage(databaseUrl, join(work, `files-${backend}`), data.host_endpoint_id);
  const api = await start(join(ROOT, 'apps/api/dist/main.js'), { DATABASE_URL: databaseUrl }, (port) => `http://127.0.0.1:${port}/healthz`);
  const pages = await start(join(ROOT, 'apps/helper-pages/dist/main.js'), { DATABASE_URL: databaseUrl }, (port) => `http://127.0.0.1:${port}/healthz`);
  const apiUrl = `http://127.0.0.1:${api.port}/v0.10`;
  const authUrl = `http://127.0.0.1:${pages.port}`;
  const auth = { authorization: `Bearer ${data.token}` };
  const own = data.own_server_endpoint_ids;
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
  let counter = 0;
  const session = await signIn(authUrl, data.username, data.password);
  // the web console, a client of the two above like any other
  const console_ = await start(join(ROOT, 'apps/console/dist/main.js'), { DATABASE_URL: databaseUrl, CONSOLE_API_URL: `http://127.0.0.1:${api.port}`, AUTH_PUBLIC_URL: authUrl }, (port) => `http://127.0.0.1:${port}/console/`);
  const consoleUrl = `http://127.0.0.1:${console_.port}`;
  const consoleSession = await consoleSignIn(consoleUrl, session);
  const ruledShare = await shareWithRules(apiUrl, auth, data.host_endpoint_id, 1000);
  await rareEndpoints(apiUrl, auth);
  const scenarios: Scenario[] = [
    { name: 'GET endpoint (2 servers)', url: `${apiUrl}/endpoint/${data.host_endpoint_id}`, headers: auth },
    { name: 'GET endpoint ?fields=id,display_name', url: `${apiUrl}/endpoint/${data.host_endpoint_id}?fields=id,display_name`, headers: auth },
    { name: 'GET endpoint, random ids', url: apiUrl, headers: auth, request: () => ({ path: `/v0.10/endpoint/${pick(data.sample_endpoint_ids)}` }) },
    {
      name: 'POST endpoint',
      url: `${apiUrl}/endpoint`,
      method: 'POST',
      headers: auth,
      request: () => ({ body: JSON.stringify({ display_name: `bench create ${process.pid}-${counter++}`, DATA: [{ hostname: 'gridftp.example.org' }] }) }),
    },
    {
      name: 'PUT endpoint',
      url: apiUrl,
      method: 'PUT',
      headers: auth,
      request: () => ({ path: `/v0.10/endpoint/${pick(own)}`, body: JSON.stringify({ description: `bench update ${counter++}` }) }),
    },
    {
      name: 'POST server',
      url: apiUrl,
      method: 'POST',
      headers: auth,
      request: () => ({ path: `/v0.10/endpoint/${pick(own)}/server`, body: JSON.stringify({ hostname: `s${counter++ % 1000}.example.org` }) }),
    },
    { name: 'GET server_list', url: `${apiUrl}/endpoint/${data.host_endpoint_id}/server_list`, headers: auth },
    { name: `GET my_shared_endpoint_list (${data.managed_shares} of ${data.shares} shares)`, url: `${apiUrl}/endpoint/${data.host_endpoint_id}/my_shared_endpoint_list`, headers: auth },
    {
      // a name and a number, as a user looks for an endpoint they know: one common term, one rare one
      name: 'GET endpoint_search, two terms',
      url: apiUrl,
      headers: auth,
      request: () => ({ path: `/v0.10/endpoint_search?filter_fulltext=storage%20${Math.floor(Math.random() * size)}` }),
    },
    {
      // two rare prefix terms among every common row, the default scope, one user's token: what users hit (issue 50)
      name: `GET endpoint_search, rare terms (zephyr bathym, ${RARE_ENDPOINTS} matches)`,
      url: `${apiUrl}/endpoint_search?filter_fulltext=zephyr%20bathym&limit=25`,
      headers: auth,
    },
    {
      // the same search as a person runs it in the console: its page, rendered from the API's answer
      name: 'GET console search page, two terms',
      url: consoleUrl,
      headers: { cookie: consoleSession },
      request: () => ({ path: `/console/search?scope=all&q=storage%20${Math.floor(Math.random() * size)}` }),
    },
    { name: 'GET access_list (1,000 rules)', url: `${apiUrl}/endpoint/${ruledShare}/access_list`, headers: auth },
    // how long one listing takes, one request after another (the target): 32 connections above measure queueing behind 300 KB answers
    { name: 'GET access_list (1,000 rules), one connection', url: `${apiUrl}/endpoint/${ruledShare}/access_list`, headers: auth, connections: 1 },
    { name: 'GET /v2/web/identities (signed in)', url: `${authUrl}/v2/web/identities`, headers: { cookie: session } },
    { name: '401 with a bad token', url: `${apiUrl}/endpoint/${data.host_endpoint_id}`, headers: { authorization: 'Bearer xfer_not_a_real_token' } },
    ...(listing ? listingScenarios('posix', apiUrl, data.host_endpoint_id, auth) : []),
  ];
  const rows: Row[] = [];
  const heavyToken = !ONLY || ONLY.some((o) => 'worst scoped search'.includes(o)) ? await heavyCaller(databaseUrl) : null;
  const floor = await measureFloor(backend, size, databaseUrl, apiUrl, auth, data.host_endpoint_id);
  floor.ratio_to_baseline = baseline ? Number((floor.requests_per_second / baseline).toFixed(2)) : null;
  rows.push(floor);
  const withFloor = (row: Row): Row => ({ ...row, ratio_to_floor: Number((row.requests_per_second / floor.requests_per_second).toFixed(2)) });
  try {
    for (const scenario of scenarios.filter((s) => !ONLY || ONLY.some((o) => s.name.includes(o)))) {
      const measured = await measure(scenario);
      const row: Row = withFloor({ backend, size, scenario: scenario.name, ...measured, ratio_to_baseline: baseline ? Number((measured.requests_per_second / baseline).toFixed(2)) : null, peak_rss_mb: null });
      console.error(`${backend} ${size} ${scenario.name}: ${row.requests_per_second} req/s, p50 ${row.p50_ms} ms, p99 ${row.p99_ms} ms, ratio ${row.ratio_to_baseline}${row.non_2xx ? `, ${row.non_2xx} non-2xx` : ''}`);
      rows.push(row);
    }
    if (heavyToken) {
      const others = scenarios.find((sc) => sc.name === 'GET endpoint_search, two terms')!;
      for (const row of await worstScopedSearch(backend, size, apiUrl, heavyToken, others)) {
        console.error(`${backend} ${size} ${row.scenario}: ${row.requests_per_second} req/s, p50 ${row.p50_ms} ms, p99 ${row.p99_ms} ms`);
        rows.push(row);
      }
    }
  } finally {
    const rss = peakRssMb(api.child);
    for (const row of rows) if (!['GET /v2/web/identities (signed in)', 'GET console search page, two terms'].includes(row.scenario)) row.peak_rss_mb = rss;
    const pagesRow = rows.find((r) => r.scenario === 'GET /v2/web/identities (signed in)');
    if (pagesRow) pagesRow.peak_rss_mb = peakRssMb(pages.child);
    const consoleRow = rows.find((r) => r.scenario === 'GET console search page, two terms');
    if (consoleRow) consoleRow.peak_rss_mb = peakRssMb(console_.child);
    await stop(console_.child);
    await stop(api.child);
    await stop(pages.child);
  }
  if (listing && backend === 'sqlite') {
    for (const row of await measureMemoryListing(work, withFloor)) {
      console.error(`${row.scenario}: ${row.requests_per_second} req/s, p50 ${row.p50_ms} ms, p99 ${row.p99_ms} ms`);
      rows.push(row);
    }
    const tree = await memoryTreeFootprint();
    console.error(tree.scenario);
    rows.push(tree);
  }
  if (smallest && !ONLY) {
    // the same read with the API on two processes (API_WORKERS=2)
    const workers = await start(join(ROOT, 'apps/api/dist/main.js'), { DATABASE_URL: databaseUrl, API_WORKERS: '2' }, (port) => `http://127.0.0.1:${port}/healthz`);
    try {
      const measured = await measure({ name: 'workers', url: `http://127.0.0.1:${workers.port}/v0.10/endpoint/${data.host_endpoint_id}`, headers: auth });
      rows.push(withFloor({ backend, size, scenario: 'GET endpoint (2 servers), API_WORKERS=2', ...measured, ratio_to_baseline: baseline ? Number((measured.requests_per_second / baseline).toFixed(2)) : null, peak_rss_mb: null }));
    } finally {
      await stop(workers.child);
    }
  }
  return rows;
}

function targets(rows: Row[]): string[] {
  const find = (backend: string, size: number, scenario: string) => rows.find((r) => r.backend === backend && r.size === size && r.scenario.startsWith(scenario));
  const lines: string[] = [];
  const check = (ok: boolean, text: string) => lines.push(`- ${ok ? 'met' : '**missed**'}: ${text}`);
  const pct = (ratio: number) => `${Math.round(ratio * 100)}%`;
  for (const backend of [...new Set(rows.map((r) => r.backend))]) {
    const sizes = [...new Set(rows.filter((r) => r.backend === backend && r.size > 0).map((r) => r.size))].sort((a, b) => a - b);
    const baseline = find(backend, 0, 'baseline');
    const small = find(backend, sizes[0], 'GET endpoint (2 servers)');
    if (small?.ratio_to_baseline != null) {
      const target = backend === 'sqlite' ? 0.8 : 0.6;
      check(small.ratio_to_baseline >= target, `${backend}: authenticated GET by id at ${pct(small.ratio_to_baseline)} of the baseline (target ${pct(target)})`);
      if (baseline) check(small.p99_ms <= 2 * baseline.p99_ms, `${backend}: GET by id p99 ${small.p99_ms} ms, baseline p99 ${baseline.p99_ms} ms (target at most twice)`);
    }
    const creates = find(backend, sizes[0], 'POST endpoint');
    if (creates?.ratio_to_baseline != null) {
      const target = backend === 'sqlite' ? 0.3 : 0.2;
      check(creates.ratio_to_baseline >= target, `${backend}: POST endpoint at ${pct(creates.ratio_to_baseline)} of the baseline (target ${pct(target)})`);
    }
    const pages = find(backend, sizes[0], 'GET /v2/web/identities');
    if (pages?.ratio_to_baseline != null) check(pages.ratio_to_baseline >= 0.4, `${backend}: identities page at ${pct(pages.ratio_to_baseline)} of the baseline (target 40%)`);
    const largest = sizes[sizes.length - 1];
    const large = find(backend, largest, 'GET endpoint (2 servers)');
    if (small && large && largest > sizes[0]) {
      const ratio = large.requests_per_second / small.requests_per_second;
      check(ratio >= 0.9, `${backend}: GET by id at ${largest.toLocaleString('en')} endpoints is ${pct(ratio)} of the rate at ${sizes[0].toLocaleString('en')} (target 90%)`);
      if (large.peak_rss_mb != null) check(large.peak_rss_mb <= 300, `${backend}: API peak RSS ${large.peak_rss_mb} MB at ${largest.toLocaleString('en')} endpoints (target 300 MB)`);
    }
    const search = find(backend, largest, 'GET endpoint_search, two terms');
    if (search) check(search.p99_ms < 50, `${backend} at ${largest.toLocaleString('en')}: two-term search p99 ${search.p99_ms} ms (target < 50 ms at 1,000,000)`);
    const rare = find(backend, largest, 'GET endpoint_search, rare terms');
    if (rare) check(rare.p99_ms < 50, `${backend} at ${largest.toLocaleString('en')}: rare-term search p99 ${rare.p99_ms} ms (target < 50 ms at 1,000,000; floor ${find(backend, largest, 'floor')?.requests_per_second ?? '?'} req/s in the same run)`);
    for (const size of sizes) {
      const worst = find(backend, size, 'worst scoped search');
      const beside = rows.find((r) => r.backend === backend && r.size === size && r.scenario.endsWith('beside the worst scoped search'));
      if (worst) check(worst.p99_ms < 3000, `${backend} at ${size.toLocaleString('en')}: the worst scoped search of a caller owning ${HEAVY_ENDPOINTS.toLocaleString('en')} endpoints p99 ${worst.p99_ms} ms (target < 3 s)`);
      if (beside) check(beside.p99_ms < 1000, `${backend} at ${size.toLocaleString('en')}: other users' two-term search beside it p99 ${beside.p99_ms} ms (target < 1 s)`);
    }
    for (const read of rows.filter((r) => r.backend === backend && r.scenario.startsWith('stack floor: GET endpoint by id') && r.scenario.includes('this checkout'))) {
      if (read.ratio_to_floor != null) check(read.ratio_to_floor >= 0.9, `GET by id with a bearer token as npm start serves it at ${pct(read.ratio_to_floor)} of the stack's floor, the median of the rounds' ratios (target 90%, goal 95%)`);
    }
    const rules = find(backend, largest, 'GET access_list (1,000 rules), one connection');
    const coldStart = find(backend, 100, 'stand-in: cold start');
    const bareStart = find(backend, 100, 'stand-in: node -e 0');
    if (coldStart) check(coldStart.p50_ms < 300, `the stand-in's cold start to first answer p50 ${coldStart.p50_ms} ms (target < 300 ms; node -e 0 in the same run: ${bareStart?.p50_ms ?? '?'} ms)`);
    const reset = find(backend, 100, 'stand-in: POST /_xfer/reset');
    if (reset) check(reset.p99_ms < 50, `the stand-in's reset of a 100-object seed p99 ${reset.p99_ms} ms (target: well under 50 ms)`);
    const oneFile = find(backend, 0, 'transfer: one 1 GiB file');
    if (oneFile?.ratio_to_cp != null) check(oneFile.ratio_to_cp >= 0.8, `one 1 GiB file posix to posix at ${pct(oneFile.ratio_to_cp)} of cp's rate (target 80%)`);
    if (oneFile?.peak_rss_mb != null) check(oneFile.peak_rss_mb < 200, `the API's peak RSS while copying the 1 GiB file ${oneFile.peak_rss_mb} MB (target < 200 MB)`);
    const smallFiles = find(backend, 0, 'transfer: 10,000 files of 4 KiB, recursive');
    if (smallFiles?.ratio_to_cp != null) check(smallFiles.ratio_to_cp >= 0.5, `10,000 files of 4 KiB at ${pct(smallFiles.ratio_to_cp)} of cp -r's rate (target 50%)`);
    const summed = find(backend, 0, 'transfer: 10,000 files of 4 KiB, verify_checksum');
    if (summed?.ratio_to_cp != null) check(summed.ratio_to_cp >= 0.5, `10,000 files of 4 KiB with verify_checksum at ${pct(summed.ratio_to_cp)} of cp -r + sha256sum (target 50%, as without)`);
    if (rules) check(rules.p99_ms < 20, `${backend}: access_list of 1,000 rules, one request at a time, p99 ${rules.p99_ms} ms (target: lists in < 20 ms)`);
    for (const size of sizes) {
      const shares = find(backend, size, 'GET my_shared_endpoint_list');
      const get = find(backend, size, 'GET endpoint (2 servers)');
      if (shares) check(shares.p99_ms < 50, `${backend} at ${size.toLocaleString('en')}: ${shares.scenario} p99 ${shares.p99_ms} ms (target < 50 ms)`);
      if (shares && get) {
        const ratio = shares.requests_per_second / get.requests_per_second;
        check(ratio >= 0.5, `${backend} at ${size.toLocaleString('en')}: my_shared_endpoint_list at ${pct(ratio)} of the GET rate (target 50%)`);
      }
    }
  }
  return lines;
}

function markdown(rows: Row[], baselines: Record<string, number>, startedAt: Date): string {
  const header = '| backend | endpoints | scenario | req/s | p50 ms | p99 ms | vs baseline | vs floor | peak RSS MB | errors | warm-up s |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|';
  const body = rows
    .map((r) => `| ${r.backend} | ${r.size.toLocaleString('en')} | ${r.scenario} | ${r.requests_per_second} | ${r.p50_ms} | ${r.p99_ms} | ${r.ratio_to_baseline ?? '-'} | ${r.ratio_to_floor ?? '-'} | ${r.peak_rss_mb ?? '-'} | ${r.errors + r.non_2xx} | ${r.warmup_s ?? '-'} |`)
    .join('\n');
  return `# Benchmarks

Measured by \`npm run bench\` on ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC: ${DURATION} s per scenario after rounds of ${WARMUP} s of the same load until one
ran within ${SETTLED * 100}% of the rate of the one before (at most ${WARMUP_ROUNDS}; "warm-up s"), ${CONNECTIONS} connections, autocannon and the servers on one machine (${cpus().length} cores), loopback only.
"vs baseline" divides a scenario's requests/s by those of a bare Express 5 route answering a small
JSON document in the same run (${Object.entries(baselines).map(([b, v]) => `${b}: ${v} req/s`).join(', ')}).
"vs floor" divides it by the floor's at the same size: bare Express, one prepared read of the
endpoint row and the same endpoint document (bench/floor.js), what this stack needs for one read.
${existsSync(NOTES) ? `\n${readFileSync(NOTES, 'utf8').trim()}\n` : ''}
## Targets

${targets(rows).join('\n')}

## Results

${header}
${body}
`;
}

/** `--report-only`: the report again from the last results.json, no measuring (with --write-report, into BENCHMARKS.md). */
function reportOnly(): void {
  const saved = JSON.parse(readFileSync(join(ROOT, 'bench-results', 'results.json'), 'utf8')) as { started_at: string; baselines: Record<string, number>; rows: Row[] };
  const report = markdown(saved.rows, saved.baselines, new Date(saved.started_at));
  writeFileSync(join(ROOT, 'bench-results', 'report.md'), report);
  if (flags['write-report']) writeFileSync(join(ROOT, 'BENCHMARKS.md'), report);
  console.log(report);
}

async function main(): Promise<void> {
  if (flags['report-only']) return reportOnly();
  const startedAt = new Date();
  const backends = (flags.backends ?? 'sqlite,postgres').split(',');
  const work = mkdtempSync(join(tmpdir(), 'xfer-bench-'));
  const rows: Row[] = [];
  const baselines: Record<string, number> = {};
  const stopPostgres = () => {
    if (postgresCluster) pg.stopPostgres(postgresCluster.cluster);
    postgresCluster = null;
  };
  // an interrupted run still stops the throwaway Postgres cluster
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopPostgres();
      process.exit(130);
    });
  }
  try {
    if (backends.includes('postgres') && !process.env.XFER_TEST_POSTGRES_URL) {
      postgresCluster = await pg.startPostgres(POSTGRES_SETTINGS);
      if (postgresCluster) process.env.XFER_TEST_POSTGRES_URL = postgresCluster.url;
    }
    for (const backend of backends) {
      // `--backends none`: no catalogue at all (the stand-in's and the tasks' scenarios only)
      if (backend === 'none') continue;
      if (backend === 'postgres' && !process.env.XFER_TEST_POSTGRES_URL) {
        console.error('no Postgres server binaries: skipping the postgres backend');
        continue;
      }
      const baselineServer = await start(join(ROOT, 'bench/baseline.js'), {}, (port) => `http://127.0.0.1:${port}/healthz`);
      const baseline = await measure({ name: 'baseline', url: `http://127.0.0.1:${baselineServer.port}/baseline` });
      await stop(baselineServer.child);
      baselines[backend] = baseline.requests_per_second;
      rows.push({ backend, size: 0, scenario: 'baseline: bare Express 5 JSON route', ...baseline, ratio_to_baseline: 1, peak_rss_mb: peakRssMb(baselineServer.child) });
      console.error(`${backend} baseline: ${baseline.requests_per_second} req/s`);
      for (const [index, size] of sizesFor(backend).entries()) {
        let databaseUrl: string;
        let drop = async () => undefined as void;
        if (backend === 'sqlite') {
          databaseUrl = `sqlite:${join(work, `bench-${size}.sqlite`)}`;
        } else {
          const db = await freshPostgresDatabase(process.env.XFER_TEST_POSTGRES_URL!);
          databaseUrl = db.url;
          drop = db.drop;
        }
        try {
          rows.push(...(await runSize(backend, databaseUrl, size, baseline.requests_per_second, index === 0, work)));
        } finally {
          await drop();
        }
      }
    }
  } finally {
    stopPostgres();
    rmSync(work, { recursive: true, force: true });
  }
  if (!ONLY || ONLY.some((o) => 'stack floor'.includes(o))) {
    const work1 = mkdtempSync(join(tmpdir(), 'xfer-bench-stack-floor-'));
    try {
      const roots = [...(flags.compare ? [{ name: 'compared', dir: flags.compare }] : []), { name: 'this checkout', dir: ROOT }];
      for (const row of await measureStackFloor(work1, roots, (line) => console.error(line))) {
        rows.push({ backend: 'sqlite (npm start)', size: 1, ...row, scenario: `${row.scenario}: ${row.rounds.join(' / ')}`, errors: 0, non_2xx: 0, peak_rss_mb: null });
      }
    } finally {
      rmSync(work1, { recursive: true, force: true });
    }
  }
  if (!ONLY || ONLY.some((o) => 'stand-in'.includes(o))) {
    const work2 = mkdtempSync(join(tmpdir(), 'xfer-bench-stand-in-'));
    try {
      const roots = [...(flags.compare ? [{ name: 'compared', dir: flags.compare }] : []), { name: 'this checkout', dir: ROOT }];
      for (const row of await measureStandIn(work2, roots)) {
        console.error(`${row.scenario}: p50 ${row.p50_ms} ms, p99 ${row.p99_ms} ms`);
        rows.push(row);
      }
    } finally {
      rmSync(work2, { recursive: true, force: true });
    }
  }
  if (!ONLY || ONLY.some((o) => 'transfer tasks'.includes(o))) {
    const work3 = mkdtempSync(join(tmpdir(), 'xfer-bench-tasks-'));
    try {
      for (const task of await measureTasks(work3, (line) => console.error(line))) {
        const ofCp = task.ratio_to_cp === null ? '' : `: ${task.ratio_to_cp} of cp`;
        rows.push({ backend: 'tasks', size: 0, ...task, scenario: `${task.scenario}${ofCp}`, errors: 0, non_2xx: 0, ratio_to_baseline: null });
      }
    } finally {
      rmSync(work3, { recursive: true, force: true });
    }
  }
  if (!ONLY || ONLY.some((o) => 'data nodes'.includes(o))) {
    const work4 = mkdtempSync(join(tmpdir(), 'xfer-bench-nodes-'));
    try {
      for (const row of await measureNodes(work4, (line) => console.error(line))) {
        rows.push({ backend: 'nodes', size: 0, ...row, scenario: `${row.scenario}: ${row.ratio_to_cp} of the bare server`, errors: 0, non_2xx: 0, ratio_to_baseline: null });
      }
    } finally {
      rmSync(work4, { recursive: true, force: true });
    }
  }
  if (!ONLY || ONLY.some((o) => 'node copies'.includes(o))) {
    const work5 = mkdtempSync(join(tmpdir(), 'xfer-bench-node-copies-'));
    try {
      for (const row of await measureNodeCopies(work5, (line) => console.error(line))) {
        const mapped = row.scenario.includes('mapped collections');
        const rate = row.requests_per_second > 0 ? `: ${row.requests_per_second} files/s` : '';
        const ofCurl = row.ratio_to_cp === null ? rate : mapped ? `${rate || ':'} ${row.ratio_to_cp} of the same copy without a mapping` : `: ${row.ratio_to_cp} of curl`;
        rows.push({ backend: 'nodes', size: 0, ...row, scenario: `${row.scenario}${ofCurl}`, errors: 0, non_2xx: 0, ratio_to_baseline: null });
      }
    } finally {
      rmSync(work5, { recursive: true, force: true });
    }
  }
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench-results', 'results.json'), JSON.stringify({ started_at: startedAt, duration_s: DURATION, warmup_s: WARMUP, connections: CONNECTIONS, baselines, rows }, null, 2));
  const report = markdown(rows, baselines, startedAt);
  writeFileSync(join(ROOT, 'bench-results', 'report.md'), report);
  // the committed report comes from full default runs only, on purpose
  if (flags['write-report']) writeFileSync(join(ROOT, 'BENCHMARKS.md'), report);
  console.log(report);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
