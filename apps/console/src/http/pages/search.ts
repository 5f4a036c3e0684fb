import type { Json } from '../api';
import { kindOf } from '../endpoints';
import { KIND_LABELS, listed, text, type PageGroup } from './kit';

/** The search scopes as tabs, in the hosted web app's words. */
const SEARCH_TABS = [
  { scope: 'my-endpoints', label: 'My endpoints' },
  { scope: 'shared-with-me', label: 'Shared with me' },
  { scope: 'administered-by-me', label: 'Administered by me' },
  { scope: 'all', label: 'All' },
] as const;

const PAGE_SIZE = 25;

/** Search: a box, the scopes as tabs, 25 results a page. */
export const searchPages: PageGroup = (router, { signedIn }) => {
  router.get('/search', async (req, res) => {
    const page = signedIn(req, res);
    if (!page) return;
    const q = text(req.query.q).slice(0, 1000);
    const scope = SEARCH_TABS.some((t) => t.scope === req.query.scope) ? String(req.query.scope) : 'my-endpoints';
    const pageNumber = Math.min(Math.max(Number.parseInt(text(req.query.page), 10) || 1, 1), 1000);
    const link = (s: string, p = 1) => `/console/search?${new URLSearchParams({ ...(q && { q }), scope: s, ...(p > 1 && { page: String(p) }) })}`;
    const tabs = SEARCH_TABS.map((t) => ({ label: t.label, href: link(t.scope), current: t.scope === scope }));
    const found =
      scope === 'all' && q === ''
        ? { items: { results: [], hasNext: false }, error: 'Type what you are looking for to search all endpoints.' }
        : await listed(async () => {
            const answer = await page.api.transfer('GET', '/endpoint_search', undefined, { filter_fulltext: q || undefined, filter_scope: scope, limit: PAGE_SIZE, offset: (pageNumber - 1) * PAGE_SIZE });
            const results = (answer.DATA as Json[]).map((ep) => ({ id: ep.id, display_name: ep.display_name ?? ep.id, owner: ep.owner_string, kind: KIND_LABELS[kindOf(ep)], description: ep.description }));
            return { results: results as Record<string, unknown>[], hasNext: answer.has_next_page === true };
          }, { results: [] as Record<string, unknown>[], hasNext: false });
    const { results, hasNext } = found.items;
    const from = (pageNumber - 1) * PAGE_SIZE + 1;
    page.render('search.njk', {
      title: 'Search',
      q,
      scope,
      tabs,
      results,
      error: found.error,
      from,
      to: from + results.length - 1,
      previous: pageNumber > 1 ? link(scope, pageNumber - 1) : null,
      next: hasNext ? link(scope, pageNumber + 1) : null,
    });
  });
};
