import type { Json } from '../api';
import { administers, documentFromForm } from '../endpoints';
import { listed, submitted, text, type EndpointPage, type Errors, type PageGroup } from './kit';

async function showShares(page: EndpointPage, values: Record<string, unknown>, errors: Errors, status?: number) {
  const { items: shares, error } = await listed(
    async () =>
      // a host's administrators see every share of it; others, the ones they own
      administers(page.ep)
        ? ((await page.api.transfer('GET', `/endpoint/${String(page.ep.id)}/shared_endpoint_list`)).shared_endpoints as Json[])
        : ((await page.api.transfer('GET', `/endpoint/${String(page.ep.id)}/my_shared_endpoint_list`)).DATA as Json[]),
    [] as Json[],
  );
  page.show('shares.njk', { heading: 'Shares', shares, error, mayShare: administers(page.ep), values, errors }, status);
}

/** A host's Shares tab: its shares, and "Create share" of a path. */
export const sharePages: PageGroup = (router, { endpointPage, form }) => {
  router.get('/endpoints/:id/shares', endpointPage('shares', (page) => showShares(page, { host_path: '/~/' }, {})));

  router.post(
    '/endpoints/:id/shares',
    ...form,
    endpointPage('shares', async (page, req) => {
      const body = req.body as Record<string, unknown>;
      await submitted(
        async () => {
          const created = await page.api.transfer('POST', '/shared_endpoint', {
            DATA_TYPE: 'shared_endpoint',
            host_endpoint: page.ep.id,
            host_path: text(body.host_path),
            ...documentFromForm(body, { text: ['display_name', 'description'], flags: [] }),
          });
          page.redirect(`/endpoints/${String(created.id)}/permissions`, 'Share created. Add permissions to let others in.');
        },
        (errors) => showShares(page, body, errors, 400),
        { host_endpoint: '_form' },
      );
    }),
  );
};
