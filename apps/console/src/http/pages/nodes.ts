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
  /** Whether the person administers the node's GCS endpoint: then its storage gateways and collections. */
  administered: boolean;
  gateways: { id: string; name: string; root: string; collections: { id: string; name: string; type: string }[] }[];
}

/** The data nodes serving the endpoints the person administers, and those whose GCS endpoint it administers (the API shows no others). */
export async function administeredNodes(api: PersonApi): Promise<NodeSummary[]> {
  const answer = await api.transfer('GET', '/data_node_list');
  return (answer.DATA as Json[]).map((node) => ({
    id: String(node.id),
    name: String(node.name),
    url: String(node.url),
    lastContact: node.last_contact ? String(node.last_contact) : null,
    endpoints: (node.endpoints as Json[]).map((endpoint) => ({ id: String(endpoint.id), name: String(endpoint.display_name ?? endpoint.id) })),
    administered: node.gcs_administrator === true,
    // each gateway with its collections, as the node's Manager has them
    gateways: ((node.storage_gateways ?? []) as Json[]).map((gateway) => ({
      id: String(gateway.id),
      name: String(gateway.display_name),
      root: String(gateway.root),
      collections: ((node.collections ?? []) as Json[])
        .filter((collection) => collection.storage_gateway_id === gateway.id)
        .map((collection) => ({ id: String(collection.id), name: String(collection.display_name ?? collection.id), type: collection.collection_type === 'guest' ? 'Guest' : 'Mapped' })),
    })),
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
