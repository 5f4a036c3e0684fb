import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { NodeNotReachableError } from '@xfer/core';
import { NODE_STORAGE_PATH, NodeStorage } from '@xfer/storage';
import { Agent, request } from 'undici';
import { startNodeWorld, type NodeWorld } from './nodeWorld';

/** Sends `head` (a request's head, as written) over TLS and resolves the answer's status line once it comes; nothing more is sent. */
function statusLineOf(world: NodeWorld, head: string): Promise<string> {
  const url = new URL(world.node.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(url.port), servername: 'localhost', ca: readFileSync(world.certificates.ca, 'utf8') }, () => socket.write(head));
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
      if (answer.includes('\r\n')) {
        resolve(answer.split('\r\n')[0]!);
        socket.destroy();
      }
    });
    socket.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("what a data node makes of its requests (security round 5)", () => {
  let world: NodeWorld;
  let agent: Agent;
  beforeEach(async () => {
    world = await startNodeWorld({ uploadIdleMs: 1_000 });
    agent = new Agent({ connect: { ca: readFileSync(world.certificates.ca, 'utf8') } });
    writeFileSync(join(world.root, 'a.txt'), 'a');
  });
  afterEach(async () => {
    await agent.close();
    await world.close();
  });

  it('F9: refuses a read-files without a grant before it reads any of its body', async () => {
    const url = new URL(world.node.url);
    const line = await statusLineOf(world, `POST ${NODE_STORAGE_PATH}/read-files HTTP/1.1\r\nHost: localhost:${url.port}\r\nContent-Type: application/json\r\nContent-Length: 4000000\r\n\r\n{"grant": "`);
    expect(line).toBe('HTTP/1.1 401 Unauthorized');
  });

  it('F13: answers a malformed, oversized or compressed body 4xx with what is wrong, never 500', async () => {
    const token = await world.apiToken();
    const entries = (body: string | Buffer, headers: Record<string, string> = {}) =>
      request(`${world.node.url}${NODE_STORAGE_PATH}/entries?root=${encodeURIComponent(world.root)}&path=/`, { dispatcher: agent, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body });
    const cases: [string | Buffer, Record<string, string>, number, string][] = [
      ['{"names": [', {}, 400, 'BadRequest'],
      [JSON.stringify({ names: Array.from({ length: 500_000 }, (_, i) => `name-${i}`) }), {}, 413, 'PayloadTooLarge'],
      [gzipSync(JSON.stringify({ names: ['a.txt'] })), { 'content-encoding': 'gzip' }, 415, 'UnsupportedMediaType'],
    ];
    for (const [body, headers, status, code] of cases) {
      const answer = await entries(body, headers);
      expect([answer.statusCode, ((await answer.body.json()) as { code: string }).code]).toEqual([status, code]);
    }
    const fine = await entries(JSON.stringify({ names: ['a.txt'] }));
    expect([fine.statusCode, ((await fine.body.json()) as { name: string }[])[0]?.name]).toEqual([200, 'a.txt']);
  });

  it('F14: says nosniff on every answer', async () => {
    const token = await world.apiToken();
    for (const [path, headers] of [
      [`${NODE_STORAGE_PATH}/read?root=${encodeURIComponent(world.root)}&path=/a.txt`, { authorization: `Bearer ${token}` }],
      [`${NODE_STORAGE_PATH}/stat?root=/&path=/`, { authorization: `Bearer ${token}` }],
      ['/nothing/here', {}],
    ] as const) {
      const answer = await request(`${world.node.url}${path}`, { dispatcher: agent, headers });
      await answer.body.dump();
      expect([path, answer.headers['x-content-type-options']]).toEqual([path, 'nosniff']);
    }
  });

  it('F10: bounds how long an upload goes quiet, never how long it takes', async () => {
    const storage = new NodeStorage(world.client(), 'e1', world.root, '/');
    async function* trickle(pieces: number, gapMs: number): AsyncIterable<Uint8Array> {
      for (let i = 0; i < pieces; i += 1) {
        if (i > 0) await sleep(gapMs);
        yield Buffer.from(`piece ${i}\n`);
      }
    }
    // 8 pieces 400 ms apart: 2.8 s, well past the second it may go quiet
    expect(await storage.write('/slow.txt', trickle(8, 400))).toBe(64);
    expect(readFileSync(join(world.root, 'slow.txt'), 'utf8')).toBe(Array.from({ length: 8 }, (_, i) => `piece ${i}\n`).join(''));
    // quiet for 2.5 s: cut, nothing left at its name or under a temporary one
    await expect(storage.write('/stalled.txt', trickle(2, 2_500))).rejects.toBeInstanceOf(NodeNotReachableError);
    expect(existsSync(join(world.root, 'stalled.txt'))).toBe(false);
    for (const deadline = Date.now() + 5_000; readdirSync(world.root).some((name) => name.startsWith('.xfer-part-')) && Date.now() < deadline; ) await sleep(50);
    expect(readdirSync(world.root).sort()).toEqual(['a.txt', 'slow.txt']);
  });

  it("remembers the API's refusal of a token for a few seconds: the same garbage again and again costs the API one question", async () => {
    const endpoint = '6f1e0c3a-5b2d-4c7e-8a91-2d3c4b5a6e7f';
    for (let i = 0; i < 20; i += 1) {
      const answer = await request(`${world.node.url}/${endpoint}/file-${i % 3}.txt`, { dispatcher: agent, headers: { authorization: 'Bearer garbage' } });
      expect([answer.statusCode, ((await answer.body.json()) as { code: string }).code]).toEqual([401, 'AuthenticationFailed']);
    }
    expect(world.asked.access).toBe(1);
  });
});
