import { ApiError, type Json } from '../api';
import { administers, documentFromForm, editableFields, formFromDocument, overviewGroups } from '../endpoints';
import { refusal, submitted, type PageGroup } from './kit';
import { administeredNodes, type NodeSummary } from './nodes';

/** An endpoint's Overview, Edit and Delete tabs. */
export const endpointPages: PageGroup = (router, { endpointPage, form }) => {
  router.get(
    '/endpoints/:id',
    endpointPage('overview', async ({ api, ep, show }) => {
      let pauseRules: { message: string; what: string }[] | null = null;
      try {
        const rules = await api.transfer('GET', `/endpoint/${String(ep.id)}/my_effective_pause_rule_list`);
        pauseRules = (rules.DATA as Json[]).map((rule) => ({ message: String(rule.message ?? ''), what: pausedActivities(rule) }));
      } catch (error) {
        // the overview shows without them
        if (!(error instanceof ApiError)) throw error;
      }
      // its administrators see the data node serving it (the API names nodes to them only)
      let node: NodeSummary | null = null;
      if (administers(ep) && ep.https_server) {
        try {
          node = (await administeredNodes(api)).find((candidate) => candidate.endpoints.some((endpoint) => endpoint.id === ep.id)) ?? null;
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
        }
      }
      show('overview.njk', { heading: 'Overview', groups: overviewGroups(ep), pauseRules, node });
    }),
  );

  router.get(
    '/endpoints/:id/edit',
    endpointPage('edit', async ({ ep, kind, show }) => {
      show('edit.njk', { heading: 'Edit', mayEdit: administers(ep), values: formFromDocument(ep, editableFields(kind)), errors: {} }, administers(ep) ? 200 : 403);
    }),
  );

  router.post(
    '/endpoints/:id/edit',
    ...form,
    endpointPage('edit', async ({ api, ep, kind, show, redirect }, req) => {
      // a share is updated as an endpoint document too
      const document = { DATA_TYPE: 'endpoint', ...documentFromForm(req.body as Record<string, unknown>, editableFields(kind)) };
      await submitted(
        async () => {
          await api.transfer('PUT', `/endpoint/${String(ep.id)}`, document);
          redirect(`/endpoints/${String(ep.id)}`, 'Saved.');
        },
        (errors) => show('edit.njk', { heading: 'Edit', mayEdit: true, values: req.body, errors }, 400),
      );
    }),
  );

  router.get(
    '/endpoints/:id/delete',
    endpointPage('delete', async ({ show }) => show('delete.njk', { heading: 'Delete' })),
  );

  router.post(
    '/endpoints/:id/delete',
    ...form,
    endpointPage('delete', async ({ api, ep, show, redirect }) => {
      try {
        await api.transfer('DELETE', `/endpoint/${String(ep.id)}`);
        redirect('/search', `Endpoint '${String(ep.display_name ?? ep.id)}' deleted.`);
      } catch (error) {
        show('delete.njk', { heading: 'Delete', error: refusal(error) }, (error as ApiError).status);
      }
    }),
  );
};

/** What a pause rule pauses, in words. */
function pausedActivities(rule: Json): string {
  const what = [['pause_ls', 'listing'], ['pause_mkdir', 'new folders'], ['pause_rename', 'renames'], ['pause_symlink', 'links'], ['pause_task_transfer_write', 'writes'], ['pause_task_transfer_read', 'reads'], ['pause_task_delete', 'deletions']]
    .filter(([field]) => rule[field] === true)
    .map(([, label]) => label);
  return what.length === 0 ? 'nothing' : `pauses ${what.join(', ')}`;
}
