import type { AddressInfo } from 'node:net';
import { Runtime } from '@xfer/runtime';
import { createLogger } from '@xfer/server-kit';
import express from 'express';
import supertest from 'supertest';
import { apiCoreSettings } from '../coreSettings';
import { createApp } from '../http/app';
import { V } from './harness';

const TRANSFER_SCOPE = 'urn:globus:auth:scope:transfer.api.globus.org:all';
const PRIMARY = 'aaaaaaaa-1111-4111-8111-000000000001';
const LINKED = 'aaaaaaaa-1111-4111-8111-000000000002';

/** A local stand-in for an RFC 7662 authorization server. */
function startStubAuthServer() {
  const seen: { authorization?: string; body: Record<string, string> }[] = [];
  const tokens: Record<string, object> = {
    'primary-token': { active: true, sub: PRIMARY, username: 'ext@idp.example.org', name: 'External User', scope: `openid ${TRANSFER_SCOPE}`, identity_set: [PRIMARY, LINKED] },
    'linked-token': { active: true, sub: LINKED, username: 'ext@orcid.example.org', scope: TRANSFER_SCOPE, identity_set: [LINKED, PRIMARY] },
    'openid-only': { active: true, sub: PRIMARY, username: 'ext@idp.example.org', scope: 'openid' },
  };
  const app = express();
  app.post('/v2/oauth2/token/introspect', express.urlencoded({ extended: false }), (req, res) => {
    seen.push({ authorization: req.headers.authorization, body: req.body });
    if (req.headers.authorization !== `Basic ${Buffer.from('resource-server:s3cret').toString('base64')}`) {
      res.status(401).json({ error: 'invalid_client' });
      return;
    }
    res.json(tokens[req.body.token] ?? { active: false });
  });
  const server = app.listen(0, '127.0.0.1');
  return { server, seen };
}

describe('token introspection against an external authorization server', () => {
  let stub: ReturnType<typeof startStubAuthServer>;
  const runtimes: Runtime[] = [];
  let url: string;

  beforeAll(async () => {
    stub = startStubAuthServer();
    await new Promise((r) => stub.server.once('listening', r));
    url = `http://127.0.0.1:${(stub.server.address() as AddressInfo).port}/v2/oauth2/token/introspect`;
  });
  afterAll(() => new Promise((r) => stub.server.close(r)));
  afterEach(async () => {
    for (const runtime of runtimes.splice(0)) await runtime.close();
  });

  /** The API of a process whose tokens an external authorization server introspects. */
  const api = async (clientSecret = 's3cret', introspectionUrl = url) => {
    const core = apiCoreSettings({ introspection: { url: introspectionUrl, clientId: 'resource-server', clientSecret }, requiredScope: TRANSFER_SCOPE });
    const runtime = await Runtime.open({ kind: 'server', databaseUrl: 'sqlite::memory:', core });
    runtimes.push(runtime);
    return supertest(createApp(runtime.appServices, { logger: createLogger({ level: 'silent' }) }));
  };

  it('takes the introspected sub as owner and every identity of the identity_set as the caller', async () => {
    const http = await api();
    const created = await http.post(`${V}/endpoint`).set('Authorization', 'Bearer primary-token').send({ display_name: 'External' });
    expect(created.status).toBe(201);
    const doc = await http.get(`${V}/endpoint/${created.body.id}`).set('Authorization', 'Bearer primary-token');
    expect(doc.body).toMatchObject({ owner_id: PRIMARY, owner_string: 'ext@idp.example.org', my_effective_roles: ['administrator'] });
    const byLinked = await http.put(`${V}/endpoint/${created.body.id}`).set('Authorization', 'Bearer linked-token').send({ description: 'by the linked identity' });
    expect(byLinked.status).toBe(200);
    const last = stub.seen[stub.seen.length - 1];
    expect(last.body).toEqual({ token: 'linked-token', include: 'identity_set' });
  });

  it('answers an inactive token with 401 and a token without the scope with 403 ConsentRequired', async () => {
    const http = await api();
    const inactive = await http.get(`${V}/endpoint/x`).set('Authorization', 'Bearer unknown');
    expect({ status: inactive.status, code: inactive.body.code }).toEqual({ status: 401, code: 'ClientError.AuthenticationFailed' });
    const noScope = await http.get(`${V}/endpoint/x`).set('Authorization', 'Bearer openid-only');
    expect(noScope.status).toBe(403);
    expect(noScope.body).toMatchObject({ code: 'ConsentRequired', required_scopes: [TRANSFER_SCOPE] });
  });

  it('answers 503 with Retry-After when the authorization server refuses us or cannot be reached', async () => {
    const refused = await (await api('wrong-secret')).get(`${V}/endpoint/x`).set('Authorization', 'Bearer primary-token');
    expect({ status: refused.status, code: refused.body.code, retry: refused.headers['retry-after'] }).toEqual({ status: 503, code: 'ServiceUnavailable', retry: '5' });
    const unreachable = await (await api('s3cret', 'http://127.0.0.1:1/introspect')).get(`${V}/endpoint/x`).set('Authorization', 'Bearer primary-token');
    expect(unreachable.status).toBe(503);
  });
});
