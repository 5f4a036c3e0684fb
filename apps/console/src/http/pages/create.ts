import type { Json } from '../api';
import { documentFromForm } from '../endpoints';
import { submitted, text, type PageGroup } from './kit';

/** Create endpoint: the form, and the page after it, where a personal endpoint's setup key shows once. */
export const createPages: PageGroup = (router, { signedIn, form }) => {
  router.get('/endpoints/new', (req, res) => {
    const page = signedIn(req, res);
    if (!page) return;
    page.render('create.njk', { title: 'Create endpoint', values: { kind: 'server', public: true }, errors: {} });
  });

  router.post('/endpoints', ...form, async (req, res) => {
    const page = signedIn(req, res);
    if (!page) return;
    const body = req.body as Record<string, unknown>;
    const personal = body.kind === 'personal';
    const document: Json = {
      DATA_TYPE: 'endpoint',
      ...documentFromForm(body, { text: ['display_name', 'description', 'organization', 'keywords', 'contact_email'], flags: ['public'] }),
      ...(personal && { is_globus_connect: true }),
      ...(body.managed === 'true' && { subscription_id: 'DEFAULT' }),
    };
    const hostname = text(body.hostname);
    if (hostname !== '' && !personal) document.DATA = [{ DATA_TYPE: 'server', hostname }];
    await submitted(
      async () => {
        const created = await page.api.transfer('POST', '/endpoint', document);
        // a personal endpoint's setup key waits in the session for the one page that shows it (reload and back re-post nothing)
        page.session.created = { id: String(created.id), displayName: String(document.display_name ?? created.id), setupKey: (created.globus_connect_setup_key as string | null | undefined) ?? null };
        page.redirect(`/endpoints/${String(created.id)}/created`);
      },
      (errors) => page.render('create.njk', { title: 'Create endpoint', values: body, errors }, 400),
      { DATA: 'hostname', subscription_id: 'managed', is_globus_connect: 'kind' },
    );
  });

  router.get('/endpoints/:id/created', (req, res) => {
    const page = signedIn(req, res);
    if (!page) return;
    const created = page.session.created;
    // shown once: a reload, or any other endpoint, goes to the overview
    if (created?.id !== req.params.id) return page.redirect(`/endpoints/${String(req.params.id)}`);
    page.session.created = null;
    page.render('created.njk', { title: 'Endpoint created', id: created.id, displayName: created.displayName, setupKey: created.setupKey });
  });
};
