import type { Principal } from '../auth/Principal';
import { canViewEndpoint, effectiveRoles, ENDPOINT_ROLES, type EndpointRole } from '../role/Role';
import { BadRequestError } from '../shared/errors';
import type { Endpoint, EndpointKind, EndpointState } from './Endpoint';
import type { EndpointCriteria, SearchHit } from './EndpointRepository';

/** The scopes of endpoint search (catalogue features 1). */
export const SEARCH_SCOPES = ['all', 'my-endpoints', 'my-gcp-endpoints', 'administered-by-me', 'shared-by-me', 'shared-with-me', 'hide-no-permissions', 'recently-used', 'in-use'] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];

export interface EndpointSearchRequest {
  fulltext?: string;
  scope?: string;
  ownerId?: string;
  hostEndpointId?: string;
  nonFunctional?: boolean;
  entityType?: string;
  limit?: number;
  offset?: number;
}

/**
 * What a search asks of the repository, every condition ANDed: the core decides them from the
 * request and the caller; each adapter translates them (SQL, or plain code in memory).
 */
export const DEFAULT_SEARCH_LIMIT = 25;
export const MAX_SEARCH_LIMIT = 100;
export const MAX_SEARCH_WINDOW = 1000;
const VIEWER_ROLES: EndpointRole[] = ['administrator', 'activity_monitor'];
/** A Map, not an object: a name such as `toString` or `__proto__` must not find an inherited member. */
/** Each entity type a search may filter by: its kinds, its host's kind, and whether it is a GCS collection (a node's); null: none such. */
const ENTITY_KINDS = new Map<string, { kinds: EndpointKind[]; hostKind?: EndpointKind; collection?: boolean } | null>([
  ['GCP_mapped_collection', { kinds: ['personal'], collection: false }],
  ['GCP_guest_collection', { kinds: ['shared'], hostKind: 'personal', collection: false }],
  ['GCSv5_endpoint', { kinds: ['gcs_endpoint'] }],
  ['GCSv5_mapped_collection', { kinds: ['server', 'personal', 'object_store'], collection: true }],
  ['GCSv5_guest_collection', { kinds: ['shared'], collection: true }],
  ['GCSv5_host', null],
]);

/** The searched fields and their weights: display_name counts most (catalogue features 1). */
export const SEARCHED_FIELDS = [
  ['display_name', 10], ['canonical_name', 4], ['keywords', 4], ['organization', 2], ['department', 2], ['owner_string', 2], ['description', 1],
] as const satisfies readonly (readonly [keyof EndpointState, number])[];

export type SearchedText = { [K in (typeof SEARCHED_FIELDS)[number][0]]: string | null };

/**
 * How well an endpoint matches: for each term, the weights of the fields with a word that starts
 * with it. null when a term matches no field. `stemmed`: the engine matched stems (an endpoint it
 * found for "storages" says "storage"), so a term counts from its first letters on (all but three
 * of a long term) - only to rank what the engine already matched.
 */
export function searchRank(endpoint: SearchedText, terms: readonly string[], options: { stemmed?: boolean } = {}): number | null {
  // each field split into words once, and only when it holds a term at all: SQLite ranks thousands of matches here
  const fields = SEARCHED_FIELDS.map(([field, weight]) => ({ text: (endpoint[field] ?? '').toLowerCase(), weight, words: null as string[] | null }));
  let rank = 0;
  for (const term of terms) {
    const prefix = options.stemmed && term.length > 5 ? term.slice(0, term.length - 3) : term;
    let matched = false;
    for (const f of fields) {
      // Stryker disable next-line ConditionalExpression: a shortcut: a word that starts with the prefix is in the text, so never skipping changes nothing
      if (!f.text.includes(prefix)) continue;
      if ((f.words ??= wordsOf(f.text)).some((w) => w.startsWith(prefix))) {
        matched = true;
        rank += f.weight;
      }
    }
    if (!matched && !options.stemmed) return null;
  }
  return rank;
}

/** The words of a lower-case text: its runs of letters and digits. */
function wordsOf(lowerCaseText: string): string[] {
  // Stryker disable next-line Regex: splitting at each separator only adds empty words, which are dropped
  return lowerCaseText.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/**
 * What one search may ask, so that its cost is bounded whatever its terms (security review two,
 * finding 1): every term is a prefix of the words it matches, and a short one of a great many.
 */
export const SEARCH_TEXT_LIMITS = {
  /** filter_fulltext's length. */
  characters: 1000,
  /** Distinct terms. */
  terms: 10,
  /** A term's length: longer than any word worth searching. */
  termCharacters: 64,
  /** Terms shorter than `shortBelow` characters, each a prefix of a large part of the vocabulary. */
  shortTerms: 2,
  shortBelow: 3,
} as const;

/**
 * Free text as search terms: punctuation stripped, split on spaces, lower case, each once; a 400
 * naming filter_fulltext past SEARCH_TEXT_LIMITS.
 */
export function searchTerms(fulltext: string | undefined): string[] {
  const text = fulltext ?? '';
  const limits = SEARCH_TEXT_LIMITS;
  if (text.length > limits.characters) throw new BadRequestError(`Invalid filter_fulltext: at most ${limits.characters} characters`);
  const terms = [...new Set(wordsOf(text.toLowerCase()))];
  if (terms.length > limits.terms) throw new BadRequestError(`Invalid filter_fulltext: at most ${limits.terms} distinct terms, not ${terms.length}`);
  const long = terms.find((t) => t.length > limits.termCharacters);
  if (long) throw new BadRequestError(`Invalid filter_fulltext: a term of at most ${limits.termCharacters} characters, not '${long.slice(0, 20)}...'`);
  const short = terms.filter((t) => t.length < limits.shortBelow);
  if (short.length > limits.shortTerms) {
    throw new BadRequestError(`Invalid filter_fulltext: at most ${limits.shortTerms} terms shorter than ${limits.shortBelow} characters (${short.join(', ')}): each is the prefix of too many words`);
  }
  return terms;
}

/**
 * The criteria of a search request for a caller, or null when the answer is an empty page
 * (recently-used and in-use: no transfer activity is recorded; GCSv5 entity types).
 */
export function searchCriteria(caller: Principal, request: EndpointSearchRequest, now: Date): { criteria: EndpointCriteria | null; offset: number; limit: number } {
  const scope = (request.scope ?? 'all') as SearchScope;
  if (!(SEARCH_SCOPES as readonly string[]).includes(scope)) throw new BadRequestError(`Invalid filter_scope '${String(request.scope).slice(0, 40)}': one of ${SEARCH_SCOPES.join(', ')}`);
  const limit = request.limit ?? DEFAULT_SEARCH_LIMIT;
  const offset = request.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) throw new BadRequestError(`Invalid limit: from 1 to ${MAX_SEARCH_LIMIT}`);
  if (!Number.isInteger(offset) || offset < 0 || offset + limit > MAX_SEARCH_WINDOW) throw new BadRequestError(`Invalid offset: offset + limit at most ${MAX_SEARCH_WINDOW}`);
  const terms = searchTerms(request.fulltext);
  if (scope === 'all' && terms.length === 0) throw new BadRequestError("filter_scope 'all' needs filter_fulltext");
  if (request.ownerId !== undefined && ['my-endpoints', 'my-gcp-endpoints', 'shared-by-me'].includes(scope)) {
    throw new BadRequestError(`filter_owner_id cannot be used with filter_scope '${scope}'`);
  }
  let entity: { kinds: EndpointKind[]; hostKind?: EndpointKind; collection?: boolean } | null | undefined;
  if (request.entityType !== undefined) {
    entity = ENTITY_KINDS.get(request.entityType);
    if (entity === undefined) throw new BadRequestError(`Invalid filter_entity_type '${request.entityType.slice(0, 40)}': one of ${[...ENTITY_KINDS.keys()].join(', ')}`);
    if (request.nonFunctional !== undefined) throw new BadRequestError('filter_entity_type cannot be used with filter_non_functional');
  }
  if (scope === 'recently-used' || scope === 'in-use' || entity === null) return { criteria: null, offset, limit };

  const identityIds = [...caller.identityIds];
  const principalIds = caller.principalIds;
  const criteria: EndpointCriteria = { terms, visibleTo: { principalIds, roles: VIEWER_ROLES }, offset, limit: limit + 1 };
  const kinds = (...k: EndpointKind[]) => (criteria.kinds = k);
  switch (scope) {
    case 'my-endpoints':
      criteria.ownedBy = identityIds;
      break;
    case 'my-gcp-endpoints':
      criteria.ownedBy = identityIds;
      kinds('personal');
      break;
    case 'administered-by-me':
      criteria.holding = { principalIds, roles: ['administrator'] };
      break;
    case 'shared-by-me':
      criteria.ownedBy = identityIds;
      kinds('shared');
      break;
    case 'shared-with-me':
      criteria.grantedTo = { principalIds, now };
      criteria.notOwnedBy = identityIds;
      kinds('shared');
      break;
    case 'hide-no-permissions':
      criteria.holding = { principalIds, roles: ENDPOINT_ROLES };
      break;
  }
  if (request.ownerId !== undefined) criteria.ownedBy = [request.ownerId.toLowerCase()];
  if (request.hostEndpointId !== undefined) criteria.hostId = request.hostEndpointId.toLowerCase();
  if (request.nonFunctional !== undefined) criteria.functional = !request.nonFunctional;
  if (entity) {
    // Stryker disable next-line MethodExpression: a scope fixes one kind at most, where some and every agree
    if (criteria.kinds && !criteria.kinds.some((k) => entity.kinds.includes(k))) return { criteria: null, offset, limit };
    criteria.kinds = entity.kinds;
    // Stryker disable next-line ConditionalExpression: an undefined hostKind filters nothing, as an absent one
    if (entity.hostKind) criteria.hostKind = entity.hostKind;
    if (entity.collection !== undefined) criteria.collection = entity.collection;
  }
  return { criteria, offset, limit };
}

/** The hits a caller may see, with their roles: the repository already kept only visible ones; this is the check's second half. */
export function visibleHits(caller: Principal, hits: readonly SearchHit[]): { endpoint: Endpoint; roles: EndpointRole[]; rank: number }[] {
  return hits
    .map((hit) => ({ endpoint: hit.endpoint, roles: effectiveRoles(hit.endpoint, caller, hit.assignments), rank: hit.rank }))
    .filter((hit) => canViewEndpoint(hit.endpoint.isPublic, hit.roles));
}
