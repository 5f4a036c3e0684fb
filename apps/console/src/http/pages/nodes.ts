import type { Json, PersonApi } from '../api';
import { listed, type PageGroup } from './kit';

/** A data node as the Data nodes page and an endpoint's overview show it. */
export interface NodeSummary {
  id: string;
  name: string;
  url: string;
  /** When it last reached the API, as the API says it; null: never. */
  lastContact: string | null;
  endpoints: { id: string; name: string }[];
}

/** The data nodes serving the endpoints the person administers (the API shows no others). */
export async function administeredNodes(api: PersonApi): Promise<NodeSummary[]> {
  const answer = await api.transfer('GET', '/data_node_list');
  return (answer.DATA as Json[]).map((node) => ({
    id: String(node.id),
    name: String(node.name),
    url: String(node.url),
    lastContact: node.last_contact ? String(node.last_contact) : null,
    endpoints: (node.endpoints as Json[]).map((endpoint) => ({ id: String(endpoint.id), name: String(endpoint.display_name ?? endpoint.id) })),
  }));
}

/** Data nodes: those serving the person's endpoints, each with its last contact and those endpoints. */
export const nodePages: PageGroup = (router, { signedIn }) => {
  router.get('/nodes', async (req, res) => {
    const page = signedIn(req, res);
    if (!page) return;
    const { items: nodes, error } = await listed(() => administeredNodes(page.api), []);
    page.render('nodes.njk', { title: 'Data nodes', nodes, error });
  });
};
