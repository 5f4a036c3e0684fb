/**
 * Transfers between data nodes (issue 61), each beside its limit in the same run: one 1 GiB file
 * node to node beside curl fetching the same file from the source node over HTTPS into the
 * destination's storage (rounds in turns, the ratio the median of the rounds' ratios); 10,000
 * files of 4 KiB node to node (files/s), in one folder and as a tree of 100 folders of 100 (as
 * users' data are), in turns; the nodes' peak RSS while they copy. The API (task workers, SQLite
 * file) only orchestrates: both nodes are processes of their own. XFER_BENCH_SMALL_ONLY=1 leaves
 * out the 1 GiB copies (a quicker look at the small files). Run as root, the same copies between
 * two mapped collections (issue 71: the nodes act as a local account the bench makes, through its
 * helpers) in turns with the others: their rate beside the same copy without a mapping.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createCoreServices, httpsScopeOf, randomIdGenerator, systemClock } from '@xfer/core';
import { openEngine, TypeormUnitOfWork } from '@xfer/persistence';
import { freePort } from '@xfer/server-kit';
import { makeTestCertificates } from '../packages/server-kit/src/testing/certificates';
import { curl } from './nodes';
import { cpuSeconds, firstLine, peakRssMb, start, stop } from './processes';
import type { TaskRow } from './tasks';

const GIB = 2 ** 30;
const SMALL_FILES = 10_000;
/** The tree of small files: this many folders of SMALL_FILES / TREE_FOLDERS files each. */
const TREE_FOLDERS = 100;
const SMALL_ONLY = process.env.XFER_BENCH_SMALL_ONLY === '1';
const ROUNDS = 5;
const BIN = join(__dirname, '..', 'apps/cli/bin/xfer.js');

/**
 * Writes back every dirty page first (`sync`): the disk here takes about 420 MB/s, the page cache
 * more, so a copy measured right after another's gigabyte would be throttled by the kernel while
 * that one is written back; each copy starts from the same clean state. Then the copy's own file
 * of the round before is removed, right before it starts: on this machine (a VM whose balloon
 * takes back memory left free for seconds) a file written in large pieces into memory freed
 * seconds before costs the kernel 4-10 times as much as into memory freed a moment ago (dd, 1 MiB
 * writes: 1.2-2.9 s a GiB against 0.2-0.3 s), so each copy gets the same. Curl always right after
 * both files' removal and xfer after curl's sync (the first protocol) made curl 1.2-1.6 times as
 * fast as it is the other way round.
 */
function writtenBack(): Promise<void> {
  const child = spawn('sync', [], { stdio: 'ignore' });
  return new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`sync exited ${code}`)))));
}

type Api = { url: string; headers: Record<string, string> };

/** A task timed from its submit (its submission id fetched first) to the first GET /task showing SUCCEEDED, polled every 20 ms; with its files_transferred. */
async function timedTask(api: Api, body: Record<string, unknown>): Promise<{ ms: number; files: number }> {
  const submissionId = ((await (await fetch(`${api.url}/submission_id`, { headers: api.headers })).json()) as { value: string }).value;
  const started = performance.now();
  const answer = await fetch(`${api.url}/transfer`, { method: 'POST', headers: { ...api.headers, 'content-type': 'application/json' }, body: JSON.stringify({ DATA_TYPE: 'transfer', ...body, submission_id: submissionId }) });
  if (answer.status !== 202) throw new Error(`the transfer was refused: ${answer.status} ${await answer.text()}`);
  const { task_id: taskId } = (await answer.json()) as { task_id: string };
  for (;;) {
    const task = (await (await fetch(`${api.url}/task/${taskId}`, { headers: api.headers })).json()) as { status: string; files_transferred: number; faults: number };
    if (task.status === 'SUCCEEDED') return { ms: performance.now() - started, files: task.files_transferred };
    if (task.status !== 'ACTIVE' || task.faults > 0) {
      const events = (await (await fetch(`${api.url}/task/${taskId}/event_list`, { headers: api.headers })).json()) as { DATA: { code: string; details: string }[] };
      throw new Error(`task ${taskId}: ${task.status}, ${task.faults} fault(s): ${events.DATA.map((event) => `${event.code} ${event.details}`).join('; ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A local account for the mapped copies (made with useradd; `remove` deletes it), when this runs as root. */
function benchAccount(): { name: string; uid: number; gid: number; remove: () => void } | null {
  if (process.getuid?.() !== 0) return null;
  const name = `xfbench${randomBytes(3).toString('hex')}`;
  execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', name]);
  const id = (flag: string) => Number(execFileSync('id', [flag, name]).toString().trim());
  return { name, uid: id('-u'), gid: id('-g'), remove: () => execFileSync('userdel', [name], { stdio: 'ignore' }) };
}

export async function measureNodeCopies(work: string, log: (line: string) => void): Promise<TaskRow[]> {
  const certificates = makeTestCertificates(work);
  const [source, destination] = [join(work, 'source'), join(work, 'destination')];
  mkdirSync(join(source, 'small'), { recursive: true });
  mkdirSync(destination);
  const chunk = randomBytes(2 ** 20);
  const fd = openSync(join(source, 'big.bin'), 'w');
  for (let i = 0; i < (SMALL_ONLY ? 0 : GIB / chunk.length); i += 1) writeSync(fd, chunk);
  closeSync(fd);
  for (let i = 0; i < SMALL_FILES; i += 1) writeFileSync(join(source, 'small', `f${i}.bin`), chunk.subarray(i % 256, (i % 256) + 4096));
  const perFolder = SMALL_FILES / TREE_FOLDERS;
  for (let d = 0; d < TREE_FOLDERS; d += 1) {
    mkdirSync(join(source, 'tree', `d${d}`), { recursive: true });
    for (let i = 0; i < perFolder; i += 1) writeFileSync(join(source, 'tree', `d${d}`, `f${i}.bin`), chunk.subarray((d + i) % 256, ((d + i) % 256) + 4096));
  }

  // the mapped collections' copy of the source: the same files (hard links, readable by every account), their destination the account's
  const account = benchAccount();
  const mapped = { source: join(work, 'mapped', 'source'), destination: join(work, 'mapped', 'destination') };
  if (account) {
    chmodSync(work, 0o755);
    mkdirSync(join(work, 'mapped'));
    execFileSync('cp', ['-al', source, mapped.source]);
    mkdirSync(mapped.destination);
    chownSync(mapped.destination, account.uid, account.gid);
  }

  const databaseUrl = `sqlite:${join(work, 'copies.sqlite')}`;
  const ports = [await freePort(), await freePort()];
  const engine = await openEngine(databaseUrl);
  const nodes: { id: string; secretFile: string }[] = [];
  let endpoints: string[];
  const mappedEndpoints: string[] = [];
  let token: string;
  let httpsToken: string;
  try {
    const services = createCoreServices(new TypeormUnitOfWork(engine), systemClock, randomIdGenerator);
    const identity = await services.admin.identities.addIdentity({ username: 'mover@example.org' });
    const owner = await services.authentication.principalOf(identity.id);
    endpoints = [];
    for (const [i, root] of [source, destination].entries()) {
      const { node, secret } = await services.admin.nodes.addNode({ name: `node-${i}`, url: `https://localhost:${ports[i]}` });
      const secretFile = join(work, `node-${i}.secret`);
      writeFileSync(secretFile, secret);
      nodes.push({ id: node.id, secretFile });
      const endpointId = (await services.endpoints.createEndpoint(owner, { display_name: `On node ${i}`, personal: false })).id;
      await services.admin.endpoints.setStorage(endpointId, { type: 'node', node: node.id, root });
      endpoints.push(endpointId);
      if (account) {
        const mappedId = (await services.endpoints.createEndpoint(owner, { display_name: `Mapped on node ${i}`, personal: false })).id;
        const identity_mappings = [{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [{ source: '{username}', match: 'mover@example\\.org', output: account.name }] }];
        await services.admin.endpoints.setStorage(mappedId, { type: 'node', node: node.id, root: i === 0 ? mapped.source : mapped.destination }, { identity_mappings });
        mappedEndpoints.push(mappedId);
      }
    }
    token = (await services.admin.tokens.issueToken('mover@example.org')).token;
    httpsToken = (await services.admin.tokens.issueToken('mover@example.org', null, httpsScopeOf(endpoints[0]!))).token;
  } finally {
    await engine.close();
  }
  const trust = { NODE_EXTRA_CA_CERTS: certificates.ca };
  const api = await start(join(__dirname, '..', 'apps/api/dist/main.js'), { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...trust }, (port) => `http://127.0.0.1:${port}/healthz`);
  const children = nodes.map((node) =>
    spawn(process.execPath, [BIN, 'node', 'serve', '--api', `http://127.0.0.1:${api.port}`, '--auth', 'http://127.0.0.1:9', '--id', node.id, '--secret-file', node.secretFile, '--tls-cert', certificates.cert, '--tls-key', certificates.key], {
      env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...trust },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  try {
    const urls = await Promise.all(children.map(firstLine));
    const client: Api = { url: `http://127.0.0.1:${api.port}/v0.10`, headers: { authorization: `Bearer ${token}` } };
    const [from, to] = endpoints as [string, string];
    const bigUrl = `${urls[0]}/${from}/big.bin`;
    const [mappedFrom, mappedTo] = mappedEndpoints;
    const times = { curl: [] as number[], xfer: [] as number[], mapped: [] as number[], unmapped: [] as number[] };
    const bigCopy = (source: string, destination: string) => ({ source_endpoint: source, destination_endpoint: destination, DATA: [{ DATA_TYPE: 'transfer_item', source_path: '/big.bin', destination_path: '/xfer.bin' }] });
    // each process's CPU during each copy (user and system seconds): what limits a copy on two cores
    const cpu = new Map<string, { user: number[]; system: number[] }>();
    const measured = async <T>(processes: Record<string, ChildProcess>, copy: () => Promise<T>): Promise<T> => {
      const before = Object.entries(processes).map(([name, child]) => ({ name, child, then: cpuSeconds(child) }));
      const result = await copy();
      for (const { name, child, then } of before) {
        const now = cpuSeconds(child);
        const spent = cpu.get(name) ?? { user: [], system: [] };
        spent.user.push(now.user - then.user);
        spent.system.push(now.system - then.system);
        cpu.set(name, spent);
      }
      return result;
    };
    if (!SMALL_ONLY) {
      // once each, to have the file in the page cache for either
      await curl(bigUrl, certificates.ca, httpsToken, join(destination, 'curl.bin'));
      await timedTask(client, bigCopy(from, to));
      if (mappedFrom && mappedTo) await timedTask(client, bigCopy(mappedFrom, mappedTo));
      const copyByCurl = () => measured({ 'curl: the source node': children[0]! }, async () => void times.curl.push(await curl(bigUrl, certificates.ca, httpsToken, join(destination, 'curl.bin'))));
      const copyByXfer = () =>
        measured({ 'xfer: the source node': children[0]!, 'xfer: the destination node': children[1]!, 'xfer: the API': api.child }, async () => void times.xfer.push((await timedTask(client, bigCopy(from, to))).ms));
      const copyByMapped = () =>
        measured({ 'mapped: the source node': children[0]!, 'mapped: the destination node': children[1]!, 'mapped: the API': api.child }, async () => void times.mapped.push((await timedTask(client, bigCopy(mappedFrom!, mappedTo!))).ms));
      const fileOf = new Map<() => Promise<unknown>, string>([[copyByCurl, join(destination, 'curl.bin')], [copyByXfer, join(destination, 'xfer.bin')], [copyByMapped, join(mapped.destination, 'xfer.bin')]]);
      const inTurns = async (copies: (() => Promise<unknown>)[]) => {
        for (let round = 0; round < ROUNDS; round += 1) {
          // in turns, each first every other round; each right after its own file's removal
          for (const copy of round % 2 === 0 ? copies : [...copies].reverse()) {
            await writtenBack();
            rmSync(fileOf.get(copy)!, { force: true });
            await copy();
          }
        }
      };
      await inTurns([copyByCurl, copyByXfer]);
      if (account) {
        // then the mapped copy in turns with the same copy without a mapping (those times kept apart)
        const beside = times.xfer;
        times.xfer = [];
        await inTurns([copyByXfer, copyByMapped]);
        [times.unmapped, times.xfer] = [times.xfer, beside];
      }
    }
    if (!SMALL_ONLY) log(`1 GiB copies, ms by round: curl ${times.curl.map(Math.round).join(' ')}; xfer ${times.xfer.map(Math.round).join(' ')}${account ? `; then xfer ${times.unmapped.map(Math.round).join(' ')} and mapped ${times.mapped.map(Math.round).join(' ')}` : ''}`);
    const ratio = SMALL_ONLY ? 0 : median(times.curl.map((curlMs, i) => curlMs / times.xfer[i]!));
    const rate = (ms: number) => Math.round(GIB / 2 ** 20 / (ms / 1000));
    const small = { flat: [] as number[], tree: [] as number[], 'mapped flat': [] as number[], 'mapped tree': [] as number[] };
    type Shape = keyof typeof small;
    const shapes: Shape[] = account ? ['flat', 'tree', 'mapped flat', 'mapped tree'] : ['flat', 'tree'];
    // each round's files stay to the end: making a file, ext4 steps over the inodes removed in the
    // last seconds (minutes, while their table is unwritten: `recently_deleted`), and a round right
    // after the removal of the round before's 10,000 spent 4-5 times the CPU in the kernel (perf);
    // the flat folder and the tree in turns, each first every other round
    for (let round = 0; round < 3; round += 1) {
      for (const shape of round % 2 === 0 ? shapes : [...shapes].reverse()) {
        await writtenBack();
        const folder = shape.endsWith('flat') ? 'small' : 'tree';
        const [source, destination] = shape.startsWith('mapped') ? [mappedFrom!, mappedTo!] : [from, to];
        const processes = { [`${shape}: the source node`]: children[0]!, [`${shape}: the destination node`]: children[1]!, [`${shape}: the API`]: api.child };
        const { ms, files } = await measured(processes, () => timedTask(client, { source_endpoint: source, destination_endpoint: destination, DATA: [{ DATA_TYPE: 'transfer_item', source_path: `/${folder}/`, destination_path: `/${folder}-${round}/`, recursive: true }] }));
        if (files !== SMALL_FILES) throw new Error(`the small files' task (${shape}) moved ${files} files`);
        small[shape].push(files / (ms / 1000));
      }
    }
    const rss = Math.max(...children.map((child) => peakRssMb(child) ?? 0));
    const smallRow = (shape: Shape, what: string, ratio: number | null = null): TaskRow => ({
      scenario: `nodes: ${SMALL_FILES.toLocaleString('en')} files of 4 KiB node to node, ${what}, files/s (median of 3 in turns: files_transferred over submit to SUCCEEDED)`,
      p50_ms: Math.round(SMALL_FILES / (median(small[shape]) / 1000)),
      p99_ms: Math.round(SMALL_FILES / (Math.min(...small[shape]) / 1000)),
      requests_per_second: Math.round(median(small[shape])),
      ratio_to_cp: ratio,
      peak_rss_mb: rss,
    });
    // a mapped copy's best rate over the same copy's best without a mapping (1: as fast): on this VM a
    // round's GiB takes either about 1 s or 2.3 s, whichever copy it is (the rounds' times are logged),
    // so a round's pair compares the machine's two states as often as the two copies
    const ofUnmapped = (mappedRates: number[], rates: number[]) => Math.round((Math.max(...mappedRates) / Math.max(...rates)) * 100) / 100;
    const rows: TaskRow[] = [
      ...(SMALL_ONLY
        ? []
        : [
            {
              scenario: `nodes: one 1 GiB file node to node (submit to SUCCEEDED), beside curl fetching it from the source node over HTTPS into the destination's storage (medians of ${ROUNDS}, the ratio the rounds' median; curl ${rate(median(times.curl))} MB/s, xfer ${rate(median(times.xfer))} MB/s); the nodes' peak RSS`,
              p50_ms: Math.round(median(times.xfer)),
              p99_ms: Math.round(Math.max(...times.xfer)),
              requests_per_second: 0,
              ratio_to_cp: Math.round(ratio * 100) / 100,
              peak_rss_mb: rss,
            },
          ]),
      smallRow('flat', 'in one folder'),
      smallRow('tree', `as ${TREE_FOLDERS} folders of ${SMALL_FILES / TREE_FOLDERS}`),
      ...(account
        ? [
            ...(SMALL_ONLY
              ? []
              : [
                  {
                    scenario: `nodes: one 1 GiB file between two mapped collections, the nodes acting as a local account (${rate(median(times.mapped))} MB/s; the ratio: the best round's rate over the best of the same copy without a mapping)`,
                    p50_ms: Math.round(median(times.mapped)),
                    p99_ms: Math.round(Math.max(...times.mapped)),
                    requests_per_second: 0,
                    ratio_to_cp: ofUnmapped(times.mapped.map((ms) => 1 / ms), times.unmapped.map((ms) => 1 / ms)),
                    peak_rss_mb: rss,
                  },
                ]),
            smallRow('mapped flat', 'in one folder, between two mapped collections (the ratio: best rates, of the same copy without a mapping)', ofUnmapped(small['mapped flat'], small.flat)),
            smallRow('mapped tree', `as ${TREE_FOLDERS} folders of ${SMALL_FILES / TREE_FOLDERS}, between two mapped collections (the ratio: best rates, of the same copy without a mapping)`, ofUnmapped(small['mapped tree'], small.tree)),
          ]
        : []),
    ];
    for (const [name, { user, system }] of cpu) log(`CPU of a copy, ${name}: ${median(user).toFixed(2)} s user + ${median(system).toFixed(2)} s system (medians)`);
    for (const row of rows) log(`${row.scenario}: ${row.p50_ms} ms, ratio ${row.ratio_to_cp}, ${row.requests_per_second} files/s, peak RSS ${rss} MB`);
    return rows;
  } finally {
    for (const child of children) await stop(child);
    await stop(api.child);
    account?.remove();
  }
}
