import type { Json } from '../api';
import { administers } from '../endpoints';
import { itemOrTab, submitted, text, type EndpointPage, type Errors, type PageGroup } from './kit';

const serverDocument = (body: Record<string, unknown>): Json => {
  const port = text(body.port);
  return { DATA_TYPE: 'server', hostname: text(body.hostname), port: port === '' ? 2811 : /^\d+$/.test(port) ? Number(port) : port, scheme: text(body.scheme) || 'gsiftp', subject: text(body.subject) || null };
};
const serverValues = (server: Json) => ({ hostname: server.hostname, port: server.port, scheme: server.scheme, subject: server.subject ?? '' });

async function showServers(page: EndpointPage, values: Record<string, unknown>, errors: Errors, status?: number) {
  const list = await page.api.transfer('GET', `/endpoint/${String(page.ep.id)}/server_list`);
  page.show('servers.njk', { heading: 'Servers', servers: list.DATA, mayEdit: administers(page.ep), values, errors }, status);
}

/** A server endpoint's Servers tab: list, add, edit, remove. */
export const serverPages: PageGroup = (router, { endpointPage, removal, form }) => {
  router.get('/endpoints/:id/servers', endpointPage('servers', (page) => showServers(page, { scheme: 'gsiftp' }, {})));

  router.post(
    '/endpoints/:id/servers',
    ...form,
    endpointPage('servers', async (page, req) => {
      await submitted(
        async () => {
          await page.api.transfer('POST', `/endpoint/${String(page.ep.id)}/server`, serverDocument(req.body as Record<string, unknown>));
          page.redirect(`/endpoints/${String(page.ep.id)}/servers`, 'Server added.');
        },
        (errors) => showServers(page, req.body as Record<string, unknown>, errors, 400),
      );
    }),
  );

  router.get(
    '/endpoints/:id/servers/:serverId/edit',
    endpointPage('servers', async ({ api, ep, show, redirect }, req) => {
      const server = await itemOrTab(api, `/endpoint/${String(ep.id)}/server/${String(req.params.serverId)}`, () => redirect(`/endpoints/${String(ep.id)}/servers`, 'That server was removed.'));
      if (!server) return;
      show('server-edit.njk', { heading: 'Edit server', server, values: serverValues(server), errors: {} });
    }),
  );

  router.post(
    '/endpoints/:id/servers/:serverId/edit',
    ...form,
    endpointPage('servers', async ({ api, ep, show, redirect }, req) => {
      const path = `/endpoint/${String(ep.id)}/server/${String(req.params.serverId)}`;
      const server = await itemOrTab(api, path, () => redirect(`/endpoints/${String(ep.id)}/servers`, 'That server was removed.'));
      if (!server) return;
      await submitted(
        async () => {
          await api.transfer('PUT', path, serverDocument(req.body as Record<string, unknown>));
          redirect(`/endpoints/${String(ep.id)}/servers`, 'Server saved.');
        },
        (errors) => show('server-edit.njk', { heading: 'Edit server', server, values: req.body, errors }, 400),
      );
    }),
  );

  router.post('/endpoints/:id/servers/:serverId/delete', ...form, removal('servers', 'server', 'serverId', 'Server removed.', (page, errors) => showServers(page, { scheme: 'gsiftp' }, errors, 400)));
};
