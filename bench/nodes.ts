/**
 * Data nodes (issue 60): a node serving a 1 GiB file to curl over HTTPS, beside a bare Node `https`
 * server streaming the same file with the same certificate and TLS settings, in turns; and the
 * node's peak RSS while it serves. The API runs beside it (it decides the access, once per 5 s).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createCoreServices, httpsScopeOf, randomIdGenerator, systemClock } from '@xfer/core';
import { openEngine, TypeormUnitOfWork } from '@xfer/persistence';
import { freePort } from '@xfer/server-kit';
import { makeTestCertificates } from '../packages/server-kit/src/testing/certificates';
import { firstLine, peakRssMb, start, stop } from './processes';
import type { TaskRow } from './tasks';

const GIB = 2 ** 30;
const ROUNDS = 5;
const BIN = join(__dirname, '..', 'apps/cli/bin/xfer.js');

/** The wall time of curl fetching `url` into `output`, in ms (it must succeed). */
export function curl(url: string, ca: string, token: string | null, output = '/dev/null'): Promise<number> {
  const started = performance.now();
  const child = spawn('curl', ['-sSf', '--cacert', ca, ...(token ? ['-H', `Authorization: Bearer ${token}`] : []), '-o', output, url], { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`curl ${url} exited ${code}`)))),
  );
}

/** The bare server: Node's https with the node's certificate, piping the file (what nothing can beat by much). */
const BARE_SERVER = `
const { createServer } = require('node:https');
const { createReadStream, readFileSync, statSync } = require('node:fs');
const [cert, key, file] = process.argv.slice(1);
const server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(file).size });
  createReadStream(file, { highWaterMark: 1 << 20 }).pipe(res);
});
server.listen(0, '127.0.0.1', () => console.log('https://localhost:' + server.address().port));
`;

export async function measureNodes(work: string, log: (line: string) => void): Promise<TaskRow[]> {
  const certificates = makeTestCertificates(work);
  const storage = join(work, 'node-storage');
  mkdirSync(storage);
  const file = join(storage, 'big.bin');
  const chunk = randomBytes(2 ** 20);
  const fd = openSync(file, 'w');
  for (let i = 0; i < GIB / chunk.length; i += 1) writeSync(fd, chunk);
  closeSync(fd);

  const databaseUrl = `sqlite:${join(work, 'nodes.sqlite')}`;
  const nodePort = await freePort();
  const engine = await openEngine(databaseUrl);
  let nodeId: string;
  let endpointId: string;
  let token: string;
  const secretFile = join(work, 'node.secret');
  try {
    const services = createCoreServices(new TypeormUnitOfWork(engine), systemClock, randomIdGenerator);
    const identity = await services.admin.identities.addIdentity({ username: 'reader@example.org' });
    const owner = await services.authentication.principalOf(identity.id);
    const { node, secret } = await services.admin.nodes.addNode({ name: 'bench-node', url: `https://localhost:${nodePort}` });
    nodeId = node.id;
    writeFileSync(secretFile, secret);
    endpointId = (await services.endpoints.createEndpoint(owner, { display_name: 'On the node', personal: false })).id;
    await services.admin.endpoints.setStorage(endpointId, { type: 'node', node: node.id, root: storage });
    token = (await services.admin.tokens.issueToken('reader@example.org', null, httpsScopeOf(endpointId))).token;
  } finally {
    await engine.close();
  }
  const api = await start(join(__dirname, '..', 'apps/api/dist/main.js'), { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, (port) => `http://127.0.0.1:${port}/healthz`);
  const node = spawn(process.execPath, [BIN, 'node', 'serve', '--api', `http://127.0.0.1:${api.port}`, '--auth', 'http://127.0.0.1:9', '--id', nodeId, '--secret-file', secretFile, '--tls-cert', certificates.cert, '--tls-key', certificates.key], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const bare = spawn(process.execPath, ['-e', BARE_SERVER, certificates.cert, certificates.key, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const nodeUrl = `${await firstLine(node)}/${endpointId}/big.bin`;
    const bareUrl = `${await firstLine(bare)}/big.bin`;
    // both once, to have the file in the page cache for either
    await curl(bareUrl, certificates.ca, null);
    await curl(nodeUrl, certificates.ca, token);
    const times = { bare: [] as number[], node: [] as number[] };
    for (let round = 0; round < ROUNDS; round += 1) {
      times.bare.push(await curl(bareUrl, certificates.ca, null));
      times.node.push(await curl(nodeUrl, certificates.ca, token));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const ratio = median(times.bare.map((bareMs, i) => bareMs / times.node[i]!));
    const rate = (ms: number) => Math.round(GIB / 2 ** 20 / (ms / 1000));
    const rss = peakRssMb(node);
    const row: TaskRow = {
      scenario: `data node: one 1 GiB file to curl over HTTPS (GET with a token), beside a bare Node https server with the same certificate (medians of ${ROUNDS}, the ratio the rounds' median; bare ${rate(median(times.bare))} MB/s, node ${rate(median(times.node))} MB/s); peak RSS of the node`,
      p50_ms: Math.round(median(times.node)),
      p99_ms: Math.round(Math.max(...times.node)),
      requests_per_second: 0,
      ratio_to_cp: Math.round(ratio * 100) / 100,
      peak_rss_mb: rss,
    };
    log(`${row.scenario}: ${row.p50_ms} ms, ${row.ratio_to_cp} of the bare server, peak RSS ${rss} MB`);
    return [row];
  } finally {
    await stop(bare);
    await stop(node);
    await stop(api.child);
  }
}
