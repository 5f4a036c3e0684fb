import { Router, type Request, type RequestHandler, type Response } from 'express';
import { ApiError, type Json, type PersonApi } from './api';
import {
  administers,
  displayValue,
  documentFromForm,
  editableFields,
  formFromDocument,
  kindOf,
  overviewGroups,
  PERMISSION_OPTIONS,
  PRINCIPAL_OPTIONS,
  ROLE_LABELS,
  roleOptions,
  type EndpointKind,
} from './endpoints';
import type { ConsoleSession } from './sessions';

/** What a page handler gets for a signed-in person. */
export interface PageContext {
  session: ConsoleSession;
  api: PersonApi;
  render: (template: string, context: Record<string, unknown>, status?: number) => void;
  /** To a console path (after /console), with a one-time notice for the next page. */
  redirect: (path: string, notice?: string) => void;
}

type Errors = Record<string, string>;

/** The search scopes as tabs, in the hosted web app's words. */
const SEARCH_TABS = [
  { scope: 'my-endpoints', label: 'My endpoints' },
  { scope: 'shared-with-me', label: 'Shared with me' },
  { scope: 'administered-by-me', label: 'Administered by me' },
  { scope: 'all', label: 'All' },
] as const;

const PAGE_SIZE = 25;

const KIND_LABELS: Record<EndpointKind, string> = { server: 'Server', share: 'Share', personal: 'Personal' };

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/**
 * The API's refusal as form errors: beside the field it names (`fieldNames` maps the API's names
 * to the form's), else at the top of the form. Other errors go on up.
 */
function formErrors(error: unknown, fieldNames: Record<string, string> = {}): Errors {
  if (!(error instanceof ApiError) || error.status >= 500 || error.status === 404) throw error;
  const field = error.field;
  const name = field === null ? null : (fieldNames[field] ?? field);
  return { [name ?? '_form']: error.message };
}

/** The API's refusal as one message for the top of a page (other errors go on up). */
const refusal = (error: unknown): string => Object.values(formErrors(error))[0];

/** The tabs of one endpoint's pages; `current`: the page shown. */
function endpointTabs(ep: Json, kind: EndpointKind, current: string) {
  const id = String(ep.id);
  const mayEdit = administers(ep);
  const tabs: { key: string; label: string; href: string; current: boolean }[] = [];
  const add = (key: string, label: string, path: string) => tabs.push({ key, label, href: `/console/endpoints/${id}${path}`, current: key === current });
  add('overview', 'Overview', '');
  if (mayEdit) add('edit', 'Edit', '/edit');
  if (kind === 'server') add('servers', 'Servers', '/servers');
  add('roles', 'Roles', '/roles');
  if (kind === 'share') add('permissions', 'Permissions', '/permissions');
  else add('shares', 'Shares', '/shares');
  if (mayEdit) add('delete', 'Delete', '/delete');
  return tabs;
}

/**
 * What each id in a console path looks like: checked before any call, so that `..`, a slash or
 * anything else never reaches the API as part of its path (a mismatch is the console's 404 page).
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PATH_IDS: Record<string, RegExp> = { id: UUID, serverId: /^\d{1,9}$/, roleId: UUID, ruleId: UUID };

export function consolePages(signedIn: (req: Request, res: Response) => PageContext | null, form: RequestHandler[]): Router {
  const router = Router();
  for (const [name, pattern] of Object.entries(PATH_IDS)) router.param(name, (_req, _res, next, value) => next(pattern.test(String(value)) ? undefined : 'router'));

  /** A page of one endpoint: loads it (a 404 or 403 of the API becomes that page) and renders within its tabs. */
  function endpointPage(tab: string, handler: (page: PageContext & { ep: Json; kind: EndpointKind; show: (template: string, context: Record<string, unknown>, status?: number) => void }, req: Request) => Promise<void>): RequestHandler {
    return async (req, res) => {
      const page = signedIn(req, res);
      if (!page) return;
      let ep: Json;
      try {
        ep = await page.api.transfer('GET', `/endpoint/${String(req.params.id)}`);
      } catch (error) {
        // back to a page of an endpoint deleted since: say so, as a page of its own
        if (!(error instanceof ApiError) || error.code !== 'EndpointDeleted') throw error;
        return page.render('gone.njk', { title: 'Endpoint deleted', message: 'This endpoint was deleted. Its pages are gone with it.' }, 410);
      }
      const kind = kindOf(ep);
      const show = (template: string, context: Record<string, unknown>, status?: number) =>
        page.render(template, { title: `${context.heading ?? tab} · ${String(ep.display_name ?? ep.id)}`, ep, kind: KIND_LABELS[kind].toLowerCase(), tabs: endpointTabs(ep, kind, tab), ...context }, status);
      await handler({ ...page, ep, kind, show }, req);
    };
  }

  type PageHandler = Parameters<typeof endpointPage>[1];
  type EndpointPage = Parameters<PageHandler>[0];

  /**
   * POST .../<tab>/<item>/delete: the API's DELETE of that item (`apiItem`: its collection's
   * singular in the API), then the tab again with `notice`, or with the API's refusal.
   */
  function removal(tab: string, apiItem: string, param: keyof typeof PATH_IDS, notice: string, again: (page: EndpointPage, errors: Errors) => Promise<void>, wrap: (handler: PageHandler) => RequestHandler = (handler) => endpointPage(tab, handler)) {
    return wrap(async (page, req) => {
      const ep = String(page.ep.id);
      try {
        await page.api.transfer('DELETE', `/endpoint/${ep}/${apiItem}/${String(req.params[param])}`);
        page.redirect(`/endpoints/${ep}/${tab}`, notice);
      } catch (error) {
        await again(page, formErrors(error));
      }
    });
  }

  // ---- search ----
  router.get('/search', async (req, res) => {
    const page = signedIn(req, res);
    if (!page) return;
    const q = text(req.query.q).slice(0, 1000);
    const scope = SEARCH_TABS.some((t) => t.scope === req.query.scope) ? String(req.query.scope) : 'my-endpoints';
    const pageNumber = Math.min(Math.max(Number.parseInt(text(req.query.page), 10) || 1, 1), 1000);
    const link = (s: string, p = 1) => `/console/search?${new URLSearchParams({ ...(q && { q }), scope: s, ...(p > 1 && { page: String(p) }) })}`;
    const tabs = SEARCH_TABS.map((t) => ({ label: t.label, href: link(t.scope), current: t.scope === scope }));
    let results: Record<string, unknown>[] = [];
    let error: string | null = null;
    let hasNext = false;
    if (scope === 'all' && q === '') error = 'Type what you are looking for to search all endpoints.';
    else {
      try {
        const found = await page.api.transfer('GET', '/endpoint_search', undefined, { filter_fulltext: q || undefined, filter_scope: scope, limit: PAGE_SIZE, offset: (pageNumber - 1) * PAGE_SIZE });
        results = (found.DATA as Json[]).map((ep) => ({ id: ep.id, display_name: ep.display_name ?? ep.id, owner: ep.owner_string, kind: KIND_LABELS[kindOf(ep)], description: ep.description }));
        hasNext = found.has_next_page === true;
      } catch (caught) {
        error = refusal(caught);
      }
    }
    const from = (pageNumber - 1) * PAGE_SIZE + 1;
    page.render('search.njk', {
      title: 'Search',
      q,
      scope,
      tabs,
      results,
      error,
      from,
      to: from + results.length - 1,
      previous: pageNumber > 1 ? link(scope, pageNumber - 1) : null,
      next: hasNext ? link(scope, pageNumber + 1) : null,
    });
  });

  // ---- create ----
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
    try {
      const created = await page.api.transfer('POST', '/endpoint', document);
      // a personal endpoint's setup key waits in the session for the one page that shows it (reload and back re-post nothing)
      page.session.created = { id: String(created.id), displayName: String(document.display_name ?? created.id), setupKey: (created.globus_connect_setup_key as string | null | undefined) ?? null };
      page.redirect(`/endpoints/${String(created.id)}/created`);
    } catch (error) {
      page.render('create.njk', { title: 'Create endpoint', values: body, errors: formErrors(error, { DATA: 'hostname', subscription_id: 'managed', is_globus_connect: 'kind' }) }, 400);
    }
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

  // ---- overview ----
  router.get(
    '/endpoints/:id',
    endpointPage('overview', async ({ api, ep, show }) => {
      let pauseRules: { message: string; what: string }[] | null = null;
      try {
        const rules = await api.transfer('GET', `/endpoint/${String(ep.id)}/my_effective_pause_rule_list`);
        pauseRules = (rules.DATA as Json[]).map((rule) => ({ message: String(rule.message ?? ''), what: pausedActivities(rule) }));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
      }
      show('overview.njk', { heading: 'Overview', groups: overviewGroups(ep), pauseRules });
    }),
  );

  // ---- edit ----
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
      const fields = editableFields(kind);
      // a share is updated as an endpoint document too
      const document = { DATA_TYPE: 'endpoint', ...documentFromForm(req.body as Record<string, unknown>, fields) };
      try {
        await api.transfer('PUT', `/endpoint/${String(ep.id)}`, document);
        redirect(`/endpoints/${String(ep.id)}`, 'Saved.');
      } catch (error) {
        show('edit.njk', { heading: 'Edit', mayEdit: true, values: req.body, errors: formErrors(error) }, 400);
      }
    }),
  );

  // ---- delete ----
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

  // ---- servers ----
  const serverDocument = (body: Record<string, unknown>): Json => {
    const port = text(body.port);
    return { DATA_TYPE: 'server', hostname: text(body.hostname), port: port === '' ? 2811 : /^\d+$/.test(port) ? Number(port) : port, scheme: text(body.scheme) || 'gsiftp', subject: text(body.subject) || null };
  };
  const serverValues = (server: Json) => ({ hostname: server.hostname, port: server.port, scheme: server.scheme, subject: server.subject ?? '' });

  async function showServers(page: { api: PersonApi; ep: Json; show: (t: string, c: Record<string, unknown>, s?: number) => void }, values: Record<string, unknown>, errors: Errors, status?: number) {
    const list = await page.api.transfer('GET', `/endpoint/${String(page.ep.id)}/server_list`);
    page.show('servers.njk', { heading: 'Servers', servers: list.DATA, mayEdit: administers(page.ep), values, errors }, status);
  }

  router.get('/endpoints/:id/servers', endpointPage('servers', (page) => showServers(page, { scheme: 'gsiftp' }, {})));

  router.post(
    '/endpoints/:id/servers',
    ...form,
    endpointPage('servers', async (page, req) => {
      try {
        await page.api.transfer('POST', `/endpoint/${String(page.ep.id)}/server`, serverDocument(req.body as Record<string, unknown>));
        page.redirect(`/endpoints/${String(page.ep.id)}/servers`, 'Server added.');
      } catch (error) {
        await showServers(page, req.body as Record<string, unknown>, formErrors(error), 400);
      }
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
      try {
        await api.transfer('PUT', path, serverDocument(req.body as Record<string, unknown>));
        redirect(`/endpoints/${String(ep.id)}/servers`, 'Server saved.');
      } catch (error) {
        show('server-edit.njk', { heading: 'Edit server', server, values: req.body, errors: formErrors(error) }, 400);
      }
    }),
  );

  router.post('/endpoints/:id/servers/:serverId/delete', ...form, removal('servers', 'server', 'serverId', 'Server removed.', (page, errors) => showServers(page, { scheme: 'gsiftp' }, errors, 400)));

  // ---- roles ----
  async function showRoles(page: { api: PersonApi; ep: Json; kind: EndpointKind; show: (t: string, c: Record<string, unknown>, s?: number) => void }, values: Record<string, unknown>, errors: Errors, status?: number) {
    let roles: { id: unknown; who: string; roleLabel: string }[] = [];
    let error: string | null = null;
    try {
      const list = (await page.api.transfer('GET', `/endpoint/${String(page.ep.id)}/role_list`)).DATA as Json[];
      const names = await usernamesOf(page.api, list.filter((r) => r.principal_type === 'identity').map((r) => String(r.principal)));
      roles = list.map((r) => ({
        id: r.id,
        who: r.principal_type === 'identity' ? (names.get(String(r.principal)) ?? String(r.principal)) : `Group ${String(r.principal)}`,
        roleLabel: ROLE_LABELS[String(r.role)] ?? String(r.role),
      }));
    } catch (caught) {
      error = refusal(caught);
    }
    page.show('roles.njk', { heading: 'Roles', roles, error, mayEdit: administers(page.ep), roleOptions: roleOptions(page.kind), values, errors }, status);
  }

  router.get('/endpoints/:id/roles', endpointPage('roles', (page) => showRoles(page, { role: 'activity_monitor' }, {})));

  router.post(
    '/endpoints/:id/roles',
    ...form,
    endpointPage('roles', async (page, req) => {
      const body = req.body as Record<string, unknown>;
      const username = text(body.username);
      try {
        const identity = await identityOfUsername(page.api, username, 'to grant the role to');
        if ('error' in identity) return await showRoles(page, body, { username: identity.error }, 400);
        await page.api.transfer('POST', `/endpoint/${String(page.ep.id)}/role`, { DATA_TYPE: 'role', principal_type: 'identity', principal: identity.id, role: text(body.role) });
        page.redirect(`/endpoints/${String(page.ep.id)}/roles`, `Granted ${ROLE_LABELS[text(body.role)] ?? text(body.role)} to ${identity.username}.`);
      } catch (error) {
        await showRoles(page, body, formErrors(error, { principal: 'username', usernames: 'username' }), 400);
      }
    }),
  );

  router.post('/endpoints/:id/roles/:roleId/delete', ...form, removal('roles', 'role', 'roleId', 'Role removed.', (page, errors) => showRoles(page, { role: 'activity_monitor' }, errors, 400)));

  // ---- shares of a host ----
  async function showShares(page: { api: PersonApi; ep: Json; show: (t: string, c: Record<string, unknown>, s?: number) => void }, values: Record<string, unknown>, errors: Errors, status?: number) {
    let shares: Json[] = [];
    let error: string | null = null;
    try {
      // a host's administrators see every share of it; others, the ones they own
      shares = administers(page.ep)
        ? ((await page.api.transfer('GET', `/endpoint/${String(page.ep.id)}/shared_endpoint_list`)).shared_endpoints as Json[])
        : ((await page.api.transfer('GET', `/endpoint/${String(page.ep.id)}/my_shared_endpoint_list`)).DATA as Json[]);
    } catch (caught) {
      error = refusal(caught);
    }
    page.show('shares.njk', { heading: 'Shares', shares, error, mayShare: administers(page.ep), values, errors }, status);
  }

  router.get('/endpoints/:id/shares', endpointPage('shares', (page) => showShares(page, { host_path: '/~/' }, {})));

  router.post(
    '/endpoints/:id/shares',
    ...form,
    endpointPage('shares', async (page, req) => {
      const body = req.body as Record<string, unknown>;
      try {
        const created = await page.api.transfer('POST', '/shared_endpoint', {
          DATA_TYPE: 'shared_endpoint',
          host_endpoint: page.ep.id,
          host_path: text(body.host_path),
          ...documentFromForm(body, { text: ['display_name', 'description'], flags: [] }),
        });
        page.redirect(`/endpoints/${String(created.id)}/permissions`, 'Share created. Add permissions to let others in.');
      } catch (error) {
        await showShares(page, body, formErrors(error, { host_endpoint: '_form' }), 400);
      }
    }),
  );

  // ---- permissions (access rules) of a share ----
  async function showPermissions(page: { api: PersonApi; ep: Json; show: (t: string, c: Record<string, unknown>, s?: number) => void }, values: Record<string, unknown>, errors: Errors, status?: number) {
    let rules: Record<string, unknown>[] = [];
    let error: string | null = null;
    try {
      const list = (await page.api.transfer('GET', `/endpoint/${String(page.ep.id)}/access_list`)).DATA as Json[];
      const names = await usernamesOf(page.api, list.filter((r) => r.principal_type === 'identity').map((r) => String(r.principal)));
      rules = list.filter((r) => r.role_id == null).map((r) => ({ id: r.id, who: principalLabel(r, names), path: r.path, access: r.permissions === 'rw' ? 'Read and write' : 'Read', expires: displayValue(r.expiration_date) }));
    } catch (caught) {
      error = refusal(caught);
    }
    const mayEdit = page.ep.acl_editable === true;
    page.show('permissions.njk', { heading: 'Permissions', rules, error, mayEdit, principalOptions: PRINCIPAL_OPTIONS, permissionOptions: PERMISSION_OPTIONS, values, errors }, status);
  }

  const permissionTab = (handler: Parameters<typeof endpointPage>[1]) =>
    endpointPage('permissions', async (page, req) => {
      if (page.kind !== 'share') return page.redirect(`/endpoints/${String(page.ep.id)}/shares`);
      await handler(page, req);
    });

  router.get('/endpoints/:id/permissions', permissionTab((page) => showPermissions(page, { principal_type: 'identity', path: '/', permissions: 'r' }, {})));

  router.post(
    '/endpoints/:id/permissions',
    ...form,
    permissionTab(async (page, req) => {
      const body = req.body as Record<string, unknown>;
      const type = text(body.principal_type);
      try {
        let principal = '';
        if (type === 'identity') {
          const username = text(body.username);
          const identity = await identityOfUsername(page.api, username, 'to share with');
          if ('error' in identity) return await showPermissions(page, body, { username: identity.error }, 400);
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
      } catch (error) {
        await showPermissions(page, body, formErrors(error, { principal: type === 'group' ? 'group' : 'username' }), 400);
      }
    }),
  );

  router.get(
    '/endpoints/:id/permissions/:ruleId/edit',
    permissionTab(async ({ api, ep, show, redirect }, req) => {
      const rule = await itemOrTab(api, `/endpoint/${String(ep.id)}/access/${String(req.params.ruleId)}`, () => redirect(`/endpoints/${String(ep.id)}/permissions`, 'That permission was deleted.'));
      if (!rule) return;
      const names = await usernamesOf(api, rule.principal_type === 'identity' ? [String(rule.principal)] : []);
      const values = { permissions: rule.permissions, expiration_date: typeof rule.expiration_date === 'string' ? rule.expiration_date.slice(0, 10) : '' };
      show('permission-edit.njk', { heading: 'Edit permission', rule: { ...rule, who: principalLabel(rule, names) }, permissionOptions: PERMISSION_OPTIONS, values, errors: {} });
    }),
  );

  router.post(
    '/endpoints/:id/permissions/:ruleId/edit',
    ...form,
    permissionTab(async ({ api, ep, show, redirect }, req) => {
      const path = `/endpoint/${String(ep.id)}/access/${String(req.params.ruleId)}`;
      const rule = await itemOrTab(api, path, () => redirect(`/endpoints/${String(ep.id)}/permissions`, 'That permission was deleted.'));
      if (!rule) return;
      const body = req.body as Record<string, unknown>;
      try {
        await api.transfer('PUT', path, { DATA_TYPE: 'access', permissions: text(body.permissions), expiration_date: text(body.expiration_date) || null });
        redirect(`/endpoints/${String(ep.id)}/permissions`, 'Permission saved.');
      } catch (error) {
        const names = await usernamesOf(api, rule.principal_type === 'identity' ? [String(rule.principal)] : []);
        show('permission-edit.njk', { heading: 'Edit permission', rule: { ...rule, who: principalLabel(rule, names) }, permissionOptions: PERMISSION_OPTIONS, values: body, errors: formErrors(error) }, 400);
      }
    }),
  );

  router.post('/endpoints/:id/permissions/:ruleId/delete', ...form, removal('permissions', 'access', 'ruleId', 'Permission deleted.', (page, errors) => showPermissions(page, { principal_type: 'identity', path: '/', permissions: 'r' }, errors, 400), permissionTab));

  return router;
}

/** An item of an endpoint (a server, a permission); when it is gone (back to a page of one removed since), `gone` and null. */
async function itemOrTab(api: PersonApi, path: string, gone: () => void): Promise<Json | null> {
  try {
    return await api.transfer('GET', path);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    gone();
    return null;
  }
}

/** The identity of a username typed in a form, or what to say beside the Username field. */
async function identityOfUsername(api: PersonApi, username: string, purpose: string): Promise<{ id: string; username: string } | { error: string }> {
  if (username === '') return { error: `Give the username of the person ${purpose}.` };
  const [identity] = await api.identities('usernames', [username]);
  return identity ?? { error: `No identity with the username '${username}'.` };
}

/** Usernames by identity id (unknown ids are left out). */
async function usernamesOf(api: PersonApi, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)].slice(0, 100);
  return new Map((await api.identities('ids', unique)).map((i) => [i.id, i.username]));
}

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

/** What a pause rule pauses, in words. */
function pausedActivities(rule: Json): string {
  const what = [['pause_ls', 'listing'], ['pause_mkdir', 'new folders'], ['pause_rename', 'renames'], ['pause_symlink', 'links'], ['pause_task_transfer_write', 'writes'], ['pause_task_transfer_read', 'reads'], ['pause_task_delete', 'deletions']]
    .filter(([field]) => rule[field] === true)
    .map(([, label]) => label);
  return what.length === 0 ? 'nothing' : `pauses ${what.join(', ')}`;
}
