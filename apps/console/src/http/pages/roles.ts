import type { Json } from '../api';
import { administers, ROLE_LABELS, roleOptions } from '../endpoints';
import { identityOfUsername, listed, submitted, text, usernamesOf, type EndpointPage, type Errors, type PageGroup } from './kit';

async function showRoles(page: EndpointPage, values: Record<string, unknown>, errors: Errors, status?: number) {
  const { items: roles, error } = await listed(async () => {
    const list = (await page.api.transfer('GET', `/endpoint/${String(page.ep.id)}/role_list`)).DATA as Json[];
    const names = await usernamesOf(page.api, list.filter((r) => r.principal_type === 'identity').map((r) => String(r.principal)));
    return list.map((r) => ({
      id: r.id,
      who: r.principal_type === 'identity' ? (names.get(String(r.principal)) ?? String(r.principal)) : `Group ${String(r.principal)}`,
      roleLabel: ROLE_LABELS[String(r.role)] ?? String(r.role),
    }));
  }, []);
  page.show('roles.njk', { heading: 'Roles', roles, error, mayEdit: administers(page.ep), roleOptions: roleOptions(page.kind), values, errors }, status);
}

/** An endpoint's Roles tab: list, grant by username, remove. */
export const rolePages: PageGroup = (router, { endpointPage, removal, form }) => {
  router.get('/endpoints/:id/roles', endpointPage('roles', (page) => showRoles(page, { role: 'activity_monitor' }, {})));

  router.post(
    '/endpoints/:id/roles',
    ...form,
    endpointPage('roles', async (page, req) => {
      const body = req.body as Record<string, unknown>;
      const again = (errors: Errors) => showRoles(page, body, errors, 400);
      await submitted(
        async () => {
          const identity = await identityOfUsername(page.api, text(body.username), 'to grant the role to');
          if ('error' in identity) return again({ username: identity.error });
          await page.api.transfer('POST', `/endpoint/${String(page.ep.id)}/role`, { DATA_TYPE: 'role', principal_type: 'identity', principal: identity.id, role: text(body.role) });
          page.redirect(`/endpoints/${String(page.ep.id)}/roles`, `Granted ${ROLE_LABELS[text(body.role)] ?? text(body.role)} to ${identity.username}.`);
        },
        again,
        { principal: 'username', usernames: 'username' },
      );
    }),
  );

  router.post('/endpoints/:id/roles/:roleId/delete', ...form, removal('roles', 'role', 'roleId', 'Role removed.', (page, errors) => showRoles(page, { role: 'activity_monitor' }, errors, 400)));
};
