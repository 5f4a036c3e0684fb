import type { Json } from '../api';
import { displayValue, PERMISSION_OPTIONS, PRINCIPAL_OPTIONS } from '../endpoints';
import { identityOfUsername, itemOrTab, listed, submitted, text, usernamesOf, type EndpointPage, type EndpointPageHandler, type Errors, type PageGroup } from './kit';

function principalLabel(rule: Json, names: Map<string, string>): string {
  switch (rule.principal_type) {
    case 'identity':
      return names.get(String(rule.principal)) ?? String(rule.principal);
    case 'group':
      return `Group ${String(rule.principal)}`;
    case 'all_authenticated_users':
      return 'All signed-in users';
    case 'anonymous':
      return 'Anyone (public)';
    default:
      return String(rule.principal_type);
  }
}

async function showPermissions(page: EndpointPage, values: Record<string, unknown>, errors: Errors, status?: number) {
  const { items: rules, error } = await listed(async () => {
    const list = (await page.api.transfer('GET', `/endpoint/${String(page.ep.id)}/access_list`)).DATA as Json[];
    const names = await usernamesOf(page.api, list.filter((r) => r.principal_type === 'identity').map((r) => String(r.principal)));
    return list.filter((r) => r.role_id == null).map((r) => ({ id: r.id, who: principalLabel(r, names), path: r.path, access: r.permissions === 'rw' ? 'Read and write' : 'Read', expires: displayValue(r.expiration_date) }));
  }, [] as Record<string, unknown>[]);
  const mayEdit = page.ep.acl_editable === true;
  page.show('permissions.njk', { heading: 'Permissions', rules, error, mayEdit, principalOptions: PRINCIPAL_OPTIONS, permissionOptions: PERMISSION_OPTIONS, values, errors }, status);
}

const NEW_PERMISSION = { principal_type: 'identity', path: '/', permissions: 'r' };

/** A share's Permissions tab (its access rules): list, add, edit, delete. */
export const permissionPages: PageGroup = (router, { endpointPage, removal, form }) => {
  /** The tab of a share; other kinds go to their Shares tab. */
  const permissionTab = (handler: EndpointPageHandler) =>
    endpointPage('permissions', async (page, req) => {
      if (page.kind !== 'share') return page.redirect(`/endpoints/${String(page.ep.id)}/shares`);
      await handler(page, req);
    });
  const ruleOrTab = (page: EndpointPage, path: string) => itemOrTab(page.api, path, () => page.redirect(`/endpoints/${String(page.ep.id)}/permissions`, 'That permission was deleted.'));
  const editPage = async (page: EndpointPage, rule: Json, values: Record<string, unknown>, errors: Errors, status?: number) => {
    const names = await usernamesOf(page.api, rule.principal_type === 'identity' ? [String(rule.principal)] : []);
    page.show('permission-edit.njk', { heading: 'Edit permission', rule: { ...rule, who: principalLabel(rule, names) }, permissionOptions: PERMISSION_OPTIONS, values, errors }, status);
  };

  router.get('/endpoints/:id/permissions', permissionTab((page) => showPermissions(page, NEW_PERMISSION, {})));

  router.post(
    '/endpoints/:id/permissions',
    ...form,
    permissionTab(async (page, req) => {
      const body = req.body as Record<string, unknown>;
      const type = text(body.principal_type);
      const again = (errors: Errors) => showPermissions(page, body, errors, 400);
      await submitted(
        async () => {
          let principal = '';
          if (type === 'identity') {
            const identity = await identityOfUsername(page.api, text(body.username), 'to share with');
            if ('error' in identity) return again({ username: identity.error });
            principal = identity.id;
          } else if (type === 'group') principal = text(body.group);
          await page.api.transfer('POST', `/endpoint/${String(page.ep.id)}/access`, {
            DATA_TYPE: 'access',
            principal_type: type,
            principal,
            path: text(body.path),
            permissions: text(body.permissions),
            ...(text(body.expiration_date) && { expiration_date: text(body.expiration_date) }),
          });
          page.redirect(`/endpoints/${String(page.ep.id)}/permissions`, 'Permission added.');
        },
        again,
        { principal: type === 'group' ? 'group' : 'username' },
      );
    }),
  );

  router.get(
    '/endpoints/:id/permissions/:ruleId/edit',
    permissionTab(async (page, req) => {
      const rule = await ruleOrTab(page, `/endpoint/${String(page.ep.id)}/access/${String(req.params.ruleId)}`);
      if (!rule) return;
      await editPage(page, rule, { permissions: rule.permissions, expiration_date: typeof rule.expiration_date === 'string' ? rule.expiration_date.slice(0, 10) : '' }, {});
    }),
  );

  router.post(
    '/endpoints/:id/permissions/:ruleId/edit',
    ...form,
    permissionTab(async (page, req) => {
      const path = `/endpoint/${String(page.ep.id)}/access/${String(req.params.ruleId)}`;
      const rule = await ruleOrTab(page, path);
      if (!rule) return;
      const body = req.body as Record<string, unknown>;
      await submitted(
        async () => {
          await page.api.transfer('PUT', path, { DATA_TYPE: 'access', permissions: text(body.permissions), expiration_date: text(body.expiration_date) || null });
          page.redirect(`/endpoints/${String(page.ep.id)}/permissions`, 'Permission saved.');
        },
        (errors) => editPage(page, rule, body, errors, 400),
      );
    }),
  );

  router.post('/endpoints/:id/permissions/:ruleId/delete', ...form, removal('permissions', 'access', 'ruleId', 'Permission deleted.', (page, errors) => showPermissions(page, NEW_PERMISSION, errors, 400), permissionTab));
};
