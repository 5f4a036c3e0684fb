import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiCoreSettings, createApp as createApiApp } from '@xfer/api';
import { TRANSFER_SCOPE } from '@xfer/core';
import { createApp as createPagesApp, pagesCoreSettings } from '@xfer/helper-pages';
import { Runtime } from '@xfer/runtime';
import { createLogger } from '@xfer/server-kit';

/**
 * An API that trusts an xfer authorization service running elsewhere (its own database): the API's
 * RFC 7662 adapter against our own introspection endpoint, with a resource-server client.
 */
describe('the API checking tokens by introspection at an xfer authorization service', () => {
  const servers: Server[] = [];
  const runtimes: Runtime[] = [];
  let authUrl: string;
  let apiUrl: string;
  let worker: { id: string; secret: string };

  const listen = async (server: Server) => {
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeAll(async () => {
    const logger = createLogger({ level: 'silent' });
    // two processes of their own: the authorization service, and an API that introspects its tokens
    const auth = await Runtime.open({ kind: 'server', databaseUrl: 'sqlite::memory:', core: pagesCoreSettings({}) });
    runtimes.push(auth);
    authUrl = await listen(createServer(createPagesApp(auth.appServices, { logger })));
    const { admin } = auth.services;
    await admin.clients.addScope(TRANSFER_SCOPE, 'Manage your endpoints and file transfers');
    const transfer = await admin.clients.addClient({ display_name: 'Transfer API', public_client: false, resource_server: 'transfer.api.globus.org' });
    const added = await admin.clients.addClient({ display_name: 'Nightly job', public_client: false });
    worker = { id: added.client.id, secret: added.secret! };
    const api = await Runtime.open({ kind: 'server', databaseUrl: 'sqlite::memory:', core: apiCoreSettings({ introspection: { url: `${authUrl}/v2/oauth2/token/introspect`, clientId: transfer.client.id, clientSecret: transfer.secret! } }) });
    runtimes.push(api);
    apiUrl = await listen(createServer(createApiApp(api.appServices, { logger })));
  });

  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    for (const runtime of runtimes) await runtime.close();
  });

  it('accepts a client_credentials token while it is live and refuses it once revoked', async () => {
    const basic = `Basic ${Buffer.from(`${worker.id}:${worker.secret}`).toString('base64')}`;
    const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };
    const issued = await fetch(`${authUrl}/v2/oauth2/token`, { method: 'POST', headers: form, body: `grant_type=client_credentials&scope=${encodeURIComponent(TRANSFER_SCOPE)}` });
    const { access_token } = (await issued.json()) as { access_token: string };

    const created = await fetch(`${apiUrl}/v0.10/endpoint`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: 'Nightly' }),
    });
    expect(created.status).toBe(201);
    const { id, canonical_name } = (await created.json()) as { id: string; canonical_name: string };
    // the owner is the client's own identity, as the authorization service described it
    expect(canonical_name).toBe(`${worker.id}#${id}`);

    const revoked = await fetch(`${authUrl}/v2/oauth2/token/revoke`, { method: 'POST', headers: form, body: `token=${access_token}` });
    expect(revoked.status).toBe(200);
    const refused = await fetch(`${apiUrl}/v0.10/endpoint/${id}`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(refused.status).toBe(401);
  });
});
