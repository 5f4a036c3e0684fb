import { createApp as createApiApp } from '@xfer/api';
import { TestWorld } from '@xfer/core/testing';
import { createApp as createPagesApp, pagesCoreSettings } from '@xfer/helper-pages';
import { Runtime } from '@xfer/runtime';
import { testBackends } from '@xfer/persistence/testing';
import { createLogger } from '@xfer/server-kit';
import supertest from 'supertest';

/** Every route of both apps; `{E}` is an existing endpoint, `{C}` a registered client. */
const API_ROUTES: [string, string][] = [
  ['get', '/v0.10/endpoint/{E}'], ['post', '/v0.10/endpoint'], ['post', '/v0.10/shared_endpoint'], ['put', '/v0.10/endpoint/{E}'],
  ['delete', '/v0.10/endpoint/nope'], ['get', '/v0.10/endpoint/{E}/my_effective_pause_rule_list'], ['get', '/v0.10/endpoint/{E}/server_list'],
  ['get', '/v0.10/endpoint/{E}/server/1'], ['post', '/v0.10/endpoint/{E}/server'], ['put', '/v0.10/endpoint/{E}/server/1'],
  ['delete', '/v0.10/endpoint/{E}/server/99'], ['get', '/v0.10/endpoint/{E}/my_shared_endpoint_list'], ['get', '/v0.10/openapi.json'], ['get', '/healthz'],
  ['get', '/v0.10/endpoint/{E}/shared_endpoint_list?max_results=2&next_token=x'], ['get', '/v0.10/endpoint/{E}/role_list'],
  ['get', '/v0.10/endpoint_search?filter_fulltext=a%22*%20OR%20(&filter_scope=all'], ['get', '/v0.10/endpoint/{E}/access_list'], ['post', '/v0.10/endpoint/{E}/access'], ['put', '/v0.10/endpoint/{E}/access/{C}'], ['delete', '/v0.10/endpoint/{E}/access/x'], ['post', '/v0.10/endpoint/{E}/role'], ['get', '/v0.10/endpoint/{E}/role/x'], ['delete', '/v0.10/endpoint/{E}/role/{C}'],
];
const AUTH_ROUTES: [string, string][] = [
  ['get', '/v2/oauth2/authorize?client_id={C}'], ['post', '/v2/oauth2/token'], ['post', '/v2/oauth2/token/introspect'], ['post', '/v2/oauth2/token/revoke'],
  ['get', '/v2/oauth2/userinfo'], ['post', '/v2/oauth2/userinfo'], ['get', '/v2/web/logout?client_id={C}'], ['get', '/v2/web/identities'],
  ['get', '/v2/web/consents'], ['post', '/v2/web/consents/rescind'], ['get', '/v2/web/authorize?client_id={C}'], ['post', '/v2/web/authorize'],
  ['get', '/v2/web/login?next=/v2/web/consents'], ['post', '/v2/web/login'], ['get', '/v2/web/auth-code?code=x'], ['get', '/v2/web/branding/{C}.css'],
  ['get', '/v2/api/identities?usernames=alice,bob'], ['get', '/v2/api/identities/{C}'], ['get', '/.well-known/openid-configuration'], ['get', '/jwk.json'],
];

const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
/** Bodies of hostile shapes, each with the content type it claims. */
const BODIES: [string, string][] = [
  ['application/json', deep(5000)],
  ['application/json', '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}'],
  ['application/json', '{"display_name":"\\u0000\\ud800","DATA":[null,1,"x",{"hostname":{"$gt":""}}]}'],
  ['application/json', '{"display_name":'],
  ['application/json', `{"display_name":"${'x'.repeat(70_000)}"}`],
  ['application/x-www-form-urlencoded', `a[b][c][d]=1&_csrf[]=x&username[$ne]=1&password=${'%'.repeat(10)}`],
  ['application/x-www-form-urlencoded', 'token=%E0%A4%A&grant_type=authorization_code&code[]=1'],
  ['text/plain; charset=utf-7', '+ADw-script+AD4-'],
];
/** Header sets of hostile shapes. */
const HEADERS: Record<string, string>[] = [
  { Cookie: 'xfer_session=j:{"a":1}; xfer_csrf=j:[1]; xfer_browser=j:null' },
  { Cookie: `xfer_session=${'%'.repeat(100)}; =; ;;; xfer_session=second` },
  { Authorization: 'Bearer' },
  { Authorization: `Bearer ${'a'.repeat(8000)}` },
  { Authorization: 'Basic %%%' },
  { Authorization: 'Basic Og==' },
  { 'X-Forwarded-For': 'not an address, ::ffff:999.1.1.1' },
  { 'Content-Length': '0', 'Content-Type': 'application/json' },
];

describe.each(testBackends())('hostile input on $name: no route of either app answers 5xx', (backend) => {
  it('to hostile cookies, headers and bodies', async () => {
    const database = await backend.create();
    const runtime = await Runtime.open({ kind: 'server', databaseUrl: database.url, core: pagesCoreSettings({}) });
    const logger = createLogger({ level: 'silent' });
    try {
      const world = new TestWorld(runtime.uow);
      const alice = await world.user('alice');
      const endpointId = (await world.services.endpoints.createEndpoint(await alice.principal(), { display_name: 'Target', personal: false, servers: [{ hostname: 'a.example.org' }] })).id;
      const clientId = (await world.services.admin.clients.addClient({ display_name: 'Portal', redirect_uris: ['https://portal.example.org/cb'] })).client.id;
      const apps = [
        { http: supertest(createApiApp(runtime.appServices, { logger })), routes: API_ROUTES },
        { http: supertest(createPagesApp(runtime.appServices, { logger })), routes: AUTH_ROUTES },
      ];
      const failures: string[] = [];
      for (const { http, routes } of apps) {
        for (const [method, template] of routes) {
          const path = template.replace('{E}', endpointId).replace('{C}', clientId);
          const tries: [Record<string, string>, [string, string] | null][] = [
            ...HEADERS.map((h): [Record<string, string>, null] => [{ Authorization: `Bearer ${alice.token}`, ...h }, null]),
            ...BODIES.map((b): [Record<string, string>, [string, string]] => [{ Authorization: `Bearer ${alice.token}` }, b]),
          ];
          for (const [headers, body] of tries) {
            if (body && method === 'get') continue;
            let request = (http as unknown as Record<string, (p: string) => supertest.Test>)[method](path).set(headers);
            if (body) request = request.set('Content-Type', body[0]).send(body[1]);
            const res = await request;
            if (res.status >= 500) failures.push(`${method.toUpperCase()} ${path} ${JSON.stringify(headers).slice(0, 80)} ${body?.[1].slice(0, 40) ?? ''} -> ${res.status}`);
          }
        }
      }
      expect(failures).toEqual([]);
    } finally {
      await runtime.close();
      await database.drop();
    }
  });
});
