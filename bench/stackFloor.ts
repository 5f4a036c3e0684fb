/**
 * Reads beside the stack's floor (issue 58): the authenticated read the clients make most,
 * `GET /v0.10/endpoint/<id>` with a bearer token, against xfer run as `npm start` runs it (one
 * process: the API on an SQLite file, the authorization service, the console and the task workers;
 * one endpoint with two servers, one identity with a token), beside two references each in a
 * process of its own: bare Express 5 answering a small JSON document (bench/baseline.js) and the
 * stack's floor, Express 5 with one prepared better-sqlite3 read of exactly the document xfer
 * answered from an in-memory table (bench/memoryFloor.js). 50 connections, 8 s a measurement,
 * rounds alternated (baseline, floor, then each xfer), and the median of each round's ratios.
 * Also the token introspection route (RFC 7662) measured the same way, beside Ory Hydra's
 * published 5,109 req/s on 2 CPUs.
 *
 * `--compare <dir>`: another checkout of xfer (built), measured in the same rounds (today's main
 * beside a branch's head, in one sitting).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { freePort } from '@xfer/server-kit';
import { start, stop, waitFor } from './processes';

const run = promisify(execFile);

export const STACK_FLOOR = { connections: 50, seconds: 8, rounds: 3, warmupSeconds: 3 };

/** Ory Hydra's published introspection rate on 2 CPUs (its benchmark page), to stand beside ours. */
export const HYDRA_INTROSPECTION_RPS = 5109;

export interface StackFloorRow {
  scenario: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  ratio_to_floor: number | null;
  ratio_to_baseline: number | null;
  /** Each round's ratio to the floor (or rate, for the references), in order. */
  rounds: number[];
}

interface Target {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** An xfer checkout serving as `npm start` does, set up with an identity, a token, an endpoint of two servers and a resource server's client. */
interface Xfer {
  name: string;
  child: ChildProcess;
  read: Target;
  introspect: Target;
}

async function load(target: Target, seconds: number): Promise<{ rps: number; p50: number; p99: number; non2xx: number }> {
  const result = await autocannon({ url: target.url, method: target.method ?? 'GET', headers: target.headers, body: target.body, connections: STACK_FLOOR.connections, duration: seconds });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors + result.timeouts };
}

async function startXfer(name: string, root: string, work: string): Promise<Xfer> {
  const bin = join(root, 'apps/cli/bin/xfer.js');
  // the environment npm start has: no LOG_LEVEL of the bench's
  const { LOG_LEVEL: _unused, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = { ...inherited, DATABASE_URL: `sqlite:${join(work, `${name}.sqlite`)}`, HOST: '127.0.0.1' };
  const xfer = async (...args: string[]) => (await run(process.execPath, [bin, ...args], { env })).stdout.trim();
  await xfer('migrate');
  await xfer('identity', 'add', 'bench@example.org');
  const token = (await xfer('token', 'issue', 'bench@example.org')).split('\n').pop()!.trim();
  const client = JSON.parse(await xfer('--json', 'client', 'add', 'bench resource server', '--confidential', '--resource-server', 'transfer.api.globus.org')) as { id: string; secret: string };
  const ports: number[] = [];
  while (ports.length < 3) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const [api, auth, console_] = ports as [number, number, number];
  // as `npm start` runs it: the servers and the task workers in one process
  const child = spawn(process.execPath, [bin, 'serve'], { env: { ...env, API_PORT: String(api), AUTH_PORT: String(auth), CONSOLE_PORT: String(console_) }, stdio: ['ignore', 'ignore', 'inherit'] });
  await waitFor(`http://127.0.0.1:${api}/healthz`, child);
  await waitFor(`http://127.0.0.1:${auth}/healthz`, child);
  const bearer = { authorization: `Bearer ${token}` };
  const made = await fetch(`http://127.0.0.1:${api}/v0.10/endpoint`, {
    method: 'POST',
    headers: { ...bearer, 'content-type': 'application/json' },
    body: JSON.stringify({ display_name: 'Lab DTN', description: 'The lab data transfer node', DATA: [{ hostname: 'dtn1.example.org' }, { hostname: 'dtn2.example.org' }] }),
  });
  if (made.status !== 201) throw new Error(`${name}: the endpoint was not made (${made.status} ${await made.text()})`);
  const { id } = (await made.json()) as { id: string };
  return {
    name,
    child,
    read: { name: `xfer ${name}`, url: `http://127.0.0.1:${api}/v0.10/endpoint/${id}`, headers: bearer },
    introspect: {
      name: `introspect ${name}`,
      url: `http://127.0.0.1:${auth}/v2/oauth2/token/introspect`,
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${encodeURIComponent(token)}`,
    },
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
};
const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * The rounds: in each, the baseline, the floor, then each xfer's read and introspection, every
 * measurement after a warm-up of its own process in the first round only.
 */
export async function measureStackFloor(work: string, roots: { name: string; dir: string }[], log: (line: string) => void): Promise<StackFloorRow[]> {
  const xfers: Xfer[] = [];
  const references: { name: string; child: ChildProcess; target: Target }[] = [];
  try {
    for (const root of roots) xfers.push(await startXfer(root.name, root.dir, work));
    // the floor holds exactly the document the first xfer answered
    const document = await (await fetch(xfers[0]!.read.url, { headers: xfers[0]!.read.headers })).text();
    const baseline = await start(join(__dirname, 'baseline.js'), {}, (port) => `http://127.0.0.1:${port}/healthz`);
    references.push({ name: 'baseline', child: baseline.child, target: { name: 'baseline', url: `http://127.0.0.1:${baseline.port}/baseline` } });
    const floor = await start(join(__dirname, 'memoryFloor.js'), { DOCUMENT: document }, (port) => `http://127.0.0.1:${port}/healthz`);
    references.push({ name: 'floor', child: floor.child, target: { name: 'floor', url: `http://127.0.0.1:${floor.port}/e/endpoint-1` } });
    const targets = [...references.map((r) => r.target), ...xfers.flatMap((x) => [x.read, x.introspect])];
    for (const target of targets) {
      const warm = await load(target, STACK_FLOOR.warmupSeconds);
      if (warm.non2xx > 0) throw new Error(`${target.name}: ${warm.non2xx} failed requests while warming up`);
    }
    const measured = new Map<string, { rps: number; p50: number; p99: number }[]>();
    for (let round = 1; round <= STACK_FLOOR.rounds; round++) {
      for (const target of targets) {
        const result = await load(target, STACK_FLOOR.seconds);
        if (result.non2xx > 0) throw new Error(`${target.name}: ${result.non2xx} failed requests`);
        measured.set(target.name, [...(measured.get(target.name) ?? []), result]);
        log(`stack floor round ${round}: ${target.name} ${Math.round(result.rps)} req/s (p99 ${result.p99} ms)`);
      }
    }
    const of = (name: string) => measured.get(name)!;
    const row = (scenario: string, name: string, ratios: boolean): StackFloorRow => {
      const results = of(name);
      const perRound = (reference: string) => results.map((r, i) => r.rps / of(reference)[i]!.rps);
      return {
        scenario,
        requests_per_second: Math.round(median(results.map((r) => r.rps))),
        p50_ms: median(results.map((r) => r.p50)),
        p99_ms: median(results.map((r) => r.p99)),
        ratio_to_floor: ratios ? round2(median(perRound('floor'))) : null,
        ratio_to_baseline: ratios ? round2(median(perRound('baseline'))) : null,
        rounds: ratios ? perRound('floor').map(round2) : results.map((r) => Math.round(r.rps)),
      };
    };
    return [
      row('stack floor: bare Express 5 JSON route (rounds: req/s)', 'baseline', false),
      row("stack floor: Express 5 + one prepared better-sqlite3 read of the document (rounds: req/s)", 'floor', false),
      ...xfers.flatMap((x) => [
        row(`stack floor: GET endpoint by id with a bearer token, xfer ${x.name} as npm start runs it (rounds: ratio to the floor)`, x.read.name, true),
        row(`stack floor: POST /v2/oauth2/token/introspect, xfer ${x.name} (Hydra publishes ${HYDRA_INTROSPECTION_RPS.toLocaleString('en')} req/s on 2 CPUs; rounds: ratio to the floor)`, x.introspect.name, true),
      ]),
    ];
  } finally {
    for (const process_ of [...references, ...xfers]) await stop(process_.child);
  }
}
