import 'reflect-metadata';
import { FixedClock, SequentialIdGenerator, TestWorld } from '@xfer/core/testing';
import { Runtime } from '@xfer/runtime';
import { testBackends } from '@xfer/persistence/testing';
import { createLogger } from '@xfer/server-kit';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import supertest from 'supertest';
import { createApp } from '../http/app';
import { V } from './harness';

/**
 * The API's answers to a fixed script of requests, compared with the answers recorded in
 * golden/wire-answers.json: a change of shape inside must not change a byte on the wire.
 * XFER_UPDATE_GOLDEN=1 records them anew (review the diff before committing it).
 */
const GOLDEN = join(__dirname, 'golden', 'wire-answers.json');

type Step = [who: 'alice' | 'bob' | 'carol' | 'nobody', method: 'get' | 'post' | 'put' | 'delete', path: string, body?: unknown];

/** `{E1}`, `{P1}`, ... stand for the ids of the endpoints created earlier in the script. */
function script(): Step[] {
  const server = { DATA_TYPE: 'server', hostname: 'gridftp.example.org' };
  return [
    // creates: server, personal (both alias spellings), legacy names, errors
    ['alice', 'post', '/endpoint', { DATA_TYPE: 'endpoint', display_name: 'Lab', description: 'A lab', DATA: [server], subscription_id: 'DEFAULT', public: true }],
    ['alice', 'post', '/endpoint', { display_name: 'Laptop', is_globus_connect: true }],
    ['alice', 'post', '/endpoint', { display_name: 'Desk', is_vendor_connect: true, public: true }],
    ['alice', 'post', '/endpoint', { canonical_name: 'alice#legacy', organization: 'Org', keywords: 'a,b', contact_email: 'a@example.org', info_link: 'https://example.org/x', location: '45.5,-73.5', myproxy_server: 'myproxy.example.org:7512', oauth_server: 'oauth.example.org', https_server: 'https://data.example.org:8443', default_directory: '/~/', force_encryption: true, disable_verify: true }],
    ['alice', 'post', '/endpoint', { name: 'other', display_name: 'Other' }],
    ['alice', 'post', '/endpoint', {}],
    ['alice', 'post', '/endpoint', { display_name: 'X', DATA_TYPE: 'shared_endpoint' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', DATA_TYPE: 'nope' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', host_endpoint: '{E1}' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', is_globus_connect: true, is_vendor_connect: false }],
    ['alice', 'post', '/endpoint', { display_name: 'X', is_globus_connect: true, DATA: [server] }],
    ['alice', 'post', '/endpoint', { display_name: 'X', owner_string: 'alice' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', id: 'abc' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', bogus: 1 }],
    ['alice', 'post', '/endpoint', { display_name: 5 }],
    ['alice', 'post', '/endpoint', { display_name: 'X', public: null }],
    ['alice', 'post', '/endpoint', { display_name: 'X', public: 'yes' }],
    ['alice', 'post', '/endpoint', { display_name: 'a\nb' }],
    ['alice', 'post', '/endpoint', { display_name: 'x'.repeat(129) }],
    ['alice', 'post', '/endpoint', { display_name: 'X', contact_email: 'nope' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', info_link: 'ftp://x' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', location: 'here' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', location: null }],
    ['alice', 'post', '/endpoint', { display_name: 'X', https_server: 'https://x.example.org/path' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', myproxy_server: 'bad host' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', canonical_name: 'bob#x' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', canonical_name: 'nohash' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', name: 'a', canonical_name: 'alice#b' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', name: 'bad name' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', subscription_id: 'not-mine' }],
    ['bob', 'post', '/endpoint', { display_name: 'X', subscription_id: 'DEFAULT' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', subscription_id: 7 }],
    ['alice', 'post', '/endpoint', { display_name: 'X', network_use: 'aggressive' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', network_use: 'fast', subscription_id: 'DEFAULT' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', network_use: 'custom', min_concurrency: 1, subscription_id: 'DEFAULT' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', network_use: 'custom', max_concurrency: 2, preferred_concurrency: 3, max_parallelism: 1, preferred_parallelism: 1, subscription_id: 'DEFAULT' }],
    ['alice', 'post', '/endpoint', { display_name: 'Net', network_use: 'custom', min_concurrency: 3, preferred_concurrency: 2, min_parallelism: 5, preferred_parallelism: 4, subscription_id: 'DEFAULT' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', min_concurrency: 5 }],
    ['alice', 'post', '/endpoint', { display_name: 'X', min_concurrency: 4 }],
    ['alice', 'post', '/endpoint', { display_name: 'X', DATA: [{ hostname: 'h.example.org', id: 3 }] }],
    ['alice', 'post', '/endpoint', { display_name: 'X', DATA: [{ port: 1 }] }],
    ['alice', 'post', '/endpoint', { display_name: 'X', DATA: [{ hostname: 'h.example.org', scheme: 'http' }] }],
    ['alice', 'post', '/endpoint', { display_name: 'X', DATA: [{ hostname: 'h.example.org', port: 70000 }] }],
    ['alice', 'post', '/endpoint', { display_name: 'X', DATA: [{ hostname: 'h.example.org', incoming_data_port_start: 5000 }] }],
    ['alice', 'post', '/endpoint', { display_name: 'X', DATA: [{ hostname: 'h.example.org', incoming_data_port_start: 6000, incoming_data_port_end: 5000 }] }],
    ['alice', 'post', '/endpoint', { display_name: 'X', DATA: [{ hostname: 'h.example.org', DATA_TYPE: 'endpoint' }] }],
    ['alice', 'post', '/endpoint', { display_name: 'X', DATA: 'no' }],
    ['alice', 'post', '/endpoint', { display_name: 'X', DATA: [{ hostname: 5 }] }],
    ['alice', 'post', '/endpoint', [1, 2]],
    ['alice', 'post', '/endpoint', { display_name: 'X', s3_url: 'https://s3' }],
    ['nobody', 'post', '/endpoint', { display_name: 'X' }],
    // reads
    ['alice', 'get', '/endpoint/{E1}'],
    ['alice', 'get', '/endpoint/{E2}'],
    ['alice', 'get', '/endpoint/{E4}'],
    ['alice', 'get', '/endpoint/{E6}'],
    ['alice', 'get', '/endpoint/alice%23legacy'],
    ['alice', 'get', '/endpoint/{E1}?fields=id,display_name,server'],
    ['alice', 'get', '/endpoint/{E1}?fields=DATA'],
    ['alice', 'get', '/endpoint/{E1}?fields=nope,id'],
    ['alice', 'get', '/endpoint/{E1}?fields=id&fields=name'],
    ['bob', 'get', '/endpoint/{E1}'],
    ['bob', 'get', '/endpoint/{E2}'],
    ['bob', 'get', '/endpoint/{E3}?fields=id,vendor_connect_setup_key'],
    ['alice', 'get', '/endpoint/not-an-id'],
    ['alice', 'get', '/endpoint/00000000-0000-4000-8000-0000000000ff'],
    ['alice', 'get', '/endpoint/{E1}/server_list'],
    ['alice', 'get', '/endpoint/{E2}/server_list'],
    ['alice', 'get', '/endpoint/{E1}/server/1'],
    ['alice', 'get', '/endpoint/{E1}/server/9'],
    ['alice', 'get', '/endpoint/{E1}/server/x'],
    ['alice', 'get', '/endpoint/{E2}/server/1'],
    ['alice', 'get', '/endpoint/{E1}/my_effective_pause_rule_list'],
    ['bob', 'get', '/endpoint/{E2}/server_list'],
    // updates
    ['alice', 'put', '/endpoint/{E1}', { DATA_TYPE: 'endpoint', description: 'New', organization: null, keywords: '', contact_info: 'x' }],
    ['alice', 'put', '/endpoint/{E1}', { network_use: 'aggressive' }],
    ['alice', 'put', '/endpoint/{E1}', { network_use: 'custom' }],
    ['alice', 'put', '/endpoint/{E1}', { network_use: 'custom', min_concurrency: 1, preferred_concurrency: 1, min_parallelism: 2, preferred_parallelism: 1 }],
    ['alice', 'put', '/endpoint/{E1}', { preferred_parallelism: 2 }],
    ['alice', 'put', '/endpoint/{E1}', { network_use: 'normal', min_concurrency: 7 }],
    ['alice', 'put', '/endpoint/{E1}', { network_use: 'normal', min_concurrency: 4 }],
    ['alice', 'get', '/endpoint/{E1}'],
    ['alice', 'put', '/endpoint/{E1}', { id: '{E1}', username: 'alice', entity_type: 'GCSv4_host', DATA: '@DATA' }],
    ['alice', 'put', '/endpoint/{E1}', { entity_type: 'GCSv4_share' }],
    ['alice', 'put', '/endpoint/{E1}', { DATA: [] }],
    ['alice', 'put', '/endpoint/{E1}', { name: 'renamed' }],
    ['alice', 'put', '/endpoint/{E1}', { canonical_name: 'alice#renamed' }],
    ['alice', 'put', '/endpoint/{E1}', { is_globus_connect: false }],
    ['alice', 'put', '/endpoint/{E1}', { is_globus_connect: true }],
    ['alice', 'put', '/endpoint/{E1}', { DATA_TYPE: 'shared_endpoint' }],
    ['alice', 'put', '/endpoint/{E1}', { owner_string: 'alice' }],
    ['alice', 'put', '/endpoint/{E1}', { owner_string: 'bob' }],
    ['alice', 'put', '/endpoint/{E1}', { owner_string: 'not valid!' }],
    ['alice', 'put', '/endpoint/{E2}', { myproxy_server: 'x.example.org' }],
    ['alice', 'put', '/endpoint/{E2}', { myproxy_server: null, location: '1,2' }],
    ['alice', 'put', '/endpoint/{E2}', { network_use: 'minimal' }],
    ['alice', 'put', '/endpoint/{E1}', { subscription_id: null }],
    ['alice', 'get', '/endpoint/{E1}?fields=subscription_id,network_use,min_concurrency'],
    ['alice', 'put', '/endpoint/{E1}', { subscription_id: 'DEFAULT' }],
    ['bob', 'put', '/endpoint/{E1}', { description: 'mine' }],
    ['bob', 'put', '/endpoint/{E2}', { description: 'mine' }],
    ['alice', 'put', '/endpoint/{E1}', { public: 'no' }],
    ['alice', 'put', '/endpoint/{E1}', 'text'],
    // servers
    ['alice', 'post', '/endpoint/{E1}/server', { DATA_TYPE: 'server', hostname: 'second.example.org', port: 2812, subject: '/CN=x', outgoing_data_port_start: 50000, outgoing_data_port_end: 51000 }],
    ['alice', 'post', '/endpoint/{E1}/server', { hostname: 'third.example.org', scheme: 'ftp' }],
    ['alice', 'post', '/endpoint/{E1}/server', { port: 2811 }],
    ['alice', 'post', '/endpoint/{E1}/server', { hostname: 'x.example.org', uri: 'gsiftp://x' }],
    ['alice', 'post', '/endpoint/{E2}/server', { hostname: 'x.example.org' }],
    ['bob', 'post', '/endpoint/{E1}/server', { hostname: 'x.example.org' }],
    ['alice', 'put', '/endpoint/{E1}/server/2', { DATA_TYPE: 'server', hostname: 'renamed.example.org', port: 2813, scheme: 'ftp', subject: null }],
    ['alice', 'put', '/endpoint/{E1}/server/2', { incoming_data_port_start: 1 }],
    ['alice', 'put', '/endpoint/{E1}/server/2', { id: 2, uri: 'ftp://renamed.example.org:2813', is_connected: null }],
    ['alice', 'put', '/endpoint/{E1}/server/2', { hostname: null }],
    ['alice', 'put', '/endpoint/{E1}/server/2', { port: 0 }],
    ['alice', 'put', '/endpoint/{E1}/server/9', { hostname: 'x.example.org' }],
    ['alice', 'put', '/endpoint/{E2}/server/1', { hostname: 'x.example.org' }],
    ['alice', 'get', '/endpoint/{E1}/server_list'],
    ['alice', 'delete', '/endpoint/{E1}/server/3'],
    ['alice', 'delete', '/endpoint/{E1}/server/3'],
    ['alice', 'delete', '/endpoint/{E1}/server/1'],
    ['alice', 'get', '/endpoint/{E1}/server_list'],
    // shares
    ['alice', 'post', '/shared_endpoint', { DATA_TYPE: 'shared_endpoint', host_endpoint: '{E1}', host_path: '/~/shared/', display_name: 'Share', description: 'S' }],
    ['alice', 'post', '/shared_endpoint', { host_endpoint_id: '{E1}', host_path: '/data/', display_name: 'Share 2', public: true, subscription_id: null, location: null }],
    ['alice', 'post', '/shared_endpoint', { host_endpoint: '{E1}', host_path: 'relative', display_name: 'S' }],
    ['alice', 'post', '/shared_endpoint', { host_endpoint: '{E1}', display_name: 'S' }],
    ['alice', 'post', '/shared_endpoint', { display_name: 'S', host_path: '/x/' }],
    ['alice', 'post', '/shared_endpoint', { host_endpoint: '{E1}', host_endpoint_id: '{E2}', host_path: '/x/' }],
    ['alice', 'post', '/shared_endpoint', { host_endpoint: '{E1}', host_path: '/x/', public: false }],
    ['alice', 'post', '/shared_endpoint', { host_endpoint: '{E1}', host_path: '/x/', DATA: [server] }],
    ['alice', 'post', '/shared_endpoint', { host_endpoint: '{E1}', host_path: '/x/', DATA_TYPE: 'endpoint' }],
    ['alice', 'post', '/shared_endpoint', { host_endpoint: '{E1}', host_path: '/x/', myproxy_server: 'x.example.org' }],
    ['alice', 'post', '/shared_endpoint', { host_endpoint: '{E1}', host_path: '/x/', network_use: 'normal' }],
    ['alice', 'post', '/shared_endpoint', { host_endpoint: '{E4}', host_path: '/x/' }],
    ['alice', 'post', '/shared_endpoint', { host_endpoint: '{E2}', host_path: '/x/', display_name: 'Personal share' }],
    ['bob', 'post', '/shared_endpoint', { host_endpoint: '{E2}', host_path: '/x/' }],
    ['bob', 'post', '/shared_endpoint', { host_endpoint: '{E3}', host_path: '/x/' }],
    ['alice', 'post', '/shared_endpoint', { host_endpoint: '00000000-0000-4000-8000-0000000000ff', host_path: '/x/' }],
    ['alice', 'get', '/endpoint/{S1}'],
    ['carol', 'get', '/endpoint/{S1}'],
    ['alice', 'put', '/endpoint/{S1}', { public: true, display_name: 'Share renamed', subscription_id: null, network_use: null, min_concurrency: null }],
    ['alice', 'put', '/endpoint/{S1}', { public: false }],
    ['alice', 'put', '/endpoint/{S1}', { location: '1,2' }],
    ['alice', 'put', '/endpoint/{S1}', { host_path: '/elsewhere/' }],
    ['alice', 'get', '/endpoint/{S1}/server_list'],
    ['alice', 'post', '/endpoint/{S1}/server', { hostname: 'x.example.org' }],
    ['alice', 'get', '/endpoint/{E1}/my_shared_endpoint_list'],
    ['bob', 'get', '/endpoint/{E1}/my_shared_endpoint_list'],
    ['alice', 'get', '/endpoint/{S1}/my_shared_endpoint_list'],
    ['alice', 'get', '/endpoint/{S1}/my_effective_pause_rule_list'],
    // deletes
    ['bob', 'delete', '/endpoint/{E1}'],
    ['alice', 'delete', '/endpoint/{S2}'],
    ['alice', 'get', '/endpoint/{S2}'],
    ['alice', 'delete', '/endpoint/{S2}'],
    ['alice', 'delete', '/endpoint/alice%23legacy'],
    ['alice', 'get', '/endpoint/alice%23legacy'],
    ['alice', 'delete', '/endpoint/{E1}'],
    ['alice', 'get', '/endpoint/{S1}'],
    ['alice', 'get', '/endpoint/{E1}/server_list'],
    ['alice', 'put', '/endpoint/{E1}', { description: 'gone' }],
    ['alice', 'get', '/endpoint/{E1}/my_shared_endpoint_list'],
  ];
}

interface Answer {
  request: string;
  status: number;
  body: unknown;
}

describe('the wire answers to a fixed script (golden)', () => {
  it('are the recorded ones, byte for byte but for ids', async () => {
    const [sqlite] = testBackends();
    const database = await sqlite.create();
    const runtime = await Runtime.open({ kind: 'server', databaseUrl: database.url, core: { clock: new FixedClock(), ids: new SequentialIdGenerator() } });
    try {
      const app = createApp(runtime.appServices, { logger: createLogger({ level: 'silent' }) });
      const world = new TestWorld(runtime.uow);
      const tokens: Record<string, string> = { nobody: 'no-such-token' };
      for (const name of ['alice', 'bob', 'carol']) tokens[name] = (await world.user(name)).token;
      await world.subscriptionFor('alice');
      const http = supertest(app);
      const ids: Record<string, string> = {};
      let endpoints = 0;
      let shares = 0;
      const answers: Answer[] = [];
      // Ids are random in a real run: each distinct one stands as <id N>, numbered by first appearance.
      const seen = new Map<string, number>();
      const normalize = (text: string) =>
        text
          .replace(/"request_id":"[A-Za-z0-9]+"/g, '"request_id":"(id)"')
          .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
            if (!seen.has(id)) seen.set(id, seen.size + 1);
            return `<id ${seen.get(id)}>`;
          });
      let lastDocumentServers: unknown = [];
      const substitute = (text: string) => text.replace(/\{([ES]\d+)\}/g, (_m, key: string) => ids[key] ?? `missing-${key}`);
      for (const [who, method, rawPath, rawBody] of script()) {
        const path = substitute(rawPath);
        let body = rawBody === undefined ? undefined : JSON.parse(substitute(JSON.stringify(rawBody)));
        if (body && typeof body === 'object' && (body as Record<string, unknown>).DATA === '@DATA') {
          body = { ...body, DATA: lastDocumentServers };
        }
        let request = http[method](`${V}${path}`).set('Authorization', `Bearer ${tokens[who]}`);
        if (body !== undefined) request = typeof body === 'string' ? request.set('Content-Type', 'application/json').send(JSON.stringify(body)) : request.send(body);
        const res = await request;
        const text = normalize(res.text);
        if (method === 'get' && res.status === 200 && res.body?.DATA_TYPE === 'endpoint' && Array.isArray(res.body.DATA)) lastDocumentServers = res.body.DATA;
        if (res.status === 201 && res.body.DATA_TYPE === 'endpoint_create_result') {
          if (rawPath === '/shared_endpoint') ids[`S${++shares}`] = res.body.id;
          else ids[`E${++endpoints}`] = res.body.id;
        }
        answers.push({ request: `${who} ${method.toUpperCase()} ${rawPath} ${rawBody === undefined ? '' : JSON.stringify(rawBody)}`.trim(), status: res.status, body: `${res.headers['content-type']} ${text}` });
      }
      if (process.env.XFER_UPDATE_GOLDEN === '1') {
        writeFileSync(GOLDEN, `${JSON.stringify(answers, null, 1)}\n`);
      }
      if (!existsSync(GOLDEN)) throw new Error(`no recorded answers at ${GOLDEN}: run with XFER_UPDATE_GOLDEN=1`);
      const recorded = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Answer[];
      expect(answers).toEqual(recorded);
    } finally {
      await runtime.close();
      await database.drop();
    }
  });
});
