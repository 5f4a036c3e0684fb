import type { Request, RequestHandler, Response, Router } from 'express';
import { ApiError, type Json, type PersonApi } from '../api';
import { administers, kindOf, type EndpointKind } from '../endpoints';
import type { ConsoleSession } from '../sessions';

/** What a page handler gets for a signed-in person. */
export interface PageContext {
  session: ConsoleSession;
  api: PersonApi;
  render: (template: string, context: Record<string, unknown>, status?: number) => void;
  /** To a console path (after /console), with a one-time notice for the next page. */
  redirect: (path: string, notice?: string) => void;
}

/** The form's errors by field name (`_form` for those of no field). */
export type Errors = Record<string, string>;

/** A page of one endpoint: the person's context, the endpoint's document and kind, and `show` within its tabs. */
export type EndpointPage = PageContext & { ep: Json; kind: EndpointKind; show: (template: string, context: Record<string, unknown>, status?: number) => void };
export type EndpointPageHandler = (page: EndpointPage, req: Request) => Promise<void>;

/** What each group of pages is given: the ways into a signed-in page, and the form protection. */
export interface PageKit {
  /** The person's page context; null when the browser was sent to sign in. */
  signedIn: (req: Request, res: Response) => PageContext | null;
  endpointPage: (tab: string, handler: EndpointPageHandler) => RequestHandler;
  removal: (tab: string, apiItem: string, param: keyof typeof PATH_IDS, notice: string, again: (page: EndpointPage, errors: Errors) => Promise<void>, wrap?: (handler: EndpointPageHandler) => RequestHandler) => RequestHandler;
  /** Body parsing and the CSRF check of every form. */
  form: RequestHandler[];
}

export type PageGroup = (router: Router, kit: PageKit) => void;

export const KIND_LABELS: Record<EndpointKind, string> = { server: 'Server', share: 'Share', personal: 'Personal' };

export const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/**
 * What each id in a console path looks like: checked before any call, so that `..`, a slash or
 * anything else never reaches the API as part of its path (a mismatch is the console's 404 page).
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const PATH_IDS: Record<string, RegExp> = { id: UUID, serverId: /^\d{1,9}$/, roleId: UUID, ruleId: UUID, taskId: UUID };

/**
 * The one mapping of the API's refusals to a form: beside the field it names (`fieldNames` maps
 * the API's names to the form's), else at the top of the form. Anything else (the service down, a
 * 404) goes on up to the app's error pages.
 */
export function formErrors(error: unknown, fieldNames: Record<string, string> = {}): Errors {
  if (!(error instanceof ApiError) || error.status >= 500 || error.status === 404) throw error;
  const field = error.field;
  const name = field === null ? null : (fieldNames[field] ?? field);
  return { [name ?? '_form']: error.message };
}

/** The API's refusal as one message for the top of a page (other errors go on up). */
export const refusal = (error: unknown): string => Object.values(formErrors(error))[0];

/** A form's action (which redirects when done), or, refused by the API, `refused` with the errors for the form. */
export async function submitted(action: () => Promise<void>, refused: (errors: Errors) => Promise<void> | void, fieldNames?: Record<string, string>): Promise<void> {
  let errors: Errors;
  try {
    await action();
    return;
  } catch (error) {
    errors = formErrors(error, fieldNames);
  }
  await refused(errors);
}

/** What a page lists, or, refused by the API, nothing and the refusal to say at the top of the page. */
export async function listed<T>(read: () => Promise<T>, none: T): Promise<{ items: T; error: string | null }> {
  try {
    return { items: await read(), error: null };
  } catch (error) {
    return { items: none, error: refusal(error) };
  }
}

/** The tabs of one endpoint's pages; `current`: the page shown. */
function endpointTabs(ep: Json, kind: EndpointKind, current: string) {
  const id = String(ep.id);
  const mayEdit = administers(ep);
  const tabs: { key: string; label: string; href: string; current: boolean }[] = [];
  const add = (key: string, label: string, path: string) => tabs.push({ key, label, href: `/console/endpoints/${id}${path}`, current: key === current });
  add('overview', 'Overview', '');
  add('files', 'Files', '/files');
  if (mayEdit) add('edit', 'Edit', '/edit');
  if (kind === 'server') add('servers', 'Servers', '/servers');
  add('roles', 'Roles', '/roles');
  if (kind === 'share') add('permissions', 'Permissions', '/permissions');
  else add('shares', 'Shares', '/shares');
  if (mayEdit) add('delete', 'Delete', '/delete');
  return tabs;
}

/** The ways into the pages of one signed-in person and one endpoint. */
export function pageKit(signedIn: PageKit['signedIn'], form: RequestHandler[]): PageKit {
  /** A page of one endpoint: loads it (a 404 or 403 of the API becomes that page) and renders within its tabs. */
  const endpointPage = (tab: string, handler: EndpointPageHandler): RequestHandler =>
    async (req, res) => {
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

  /**
   * POST .../<tab>/<item>/delete: the API's DELETE of that item (`apiItem`: its collection's
   * singular in the API), then the tab again with `notice`, or with the API's refusal.
   */
  const removal: PageKit['removal'] = (tab, apiItem, param, notice, again, wrap = (handler) => endpointPage(tab, handler)) =>
    wrap(async (page, req) => {
      const ep = String(page.ep.id);
      await submitted(
        async () => {
          await page.api.transfer('DELETE', `/endpoint/${ep}/${apiItem}/${String(req.params[param])}`);
          page.redirect(`/endpoints/${ep}/${tab}`, notice);
        },
        (errors) => again(page, errors),
      );
    });

  return { signedIn, endpointPage, removal, form };
}

/** An item of an endpoint (a server, a permission); when it is gone (back to a page of one removed since), `gone` and null. */
export async function itemOrTab(api: PersonApi, path: string, gone: () => void): Promise<Json | null> {
  try {
    return await api.transfer('GET', path);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    gone();
    return null;
  }
}

/** The identity of a username typed in a form, or what to say beside the Username field. */
export async function identityOfUsername(api: PersonApi, username: string, purpose: string): Promise<{ id: string; username: string } | { error: string }> {
  if (username === '') return { error: `Give the username of the person ${purpose}.` };
  const [identity] = await api.identities('usernames', [username]);
  return identity ?? { error: `No identity with the username '${username}'.` };
}

/** Usernames by identity id (unknown ids are left out). */
export async function usernamesOf(api: PersonApi, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)].slice(0, 100);
  return new Map((await api.identities('ids', unique)).map((i) => [i.id, i.username]));
}
