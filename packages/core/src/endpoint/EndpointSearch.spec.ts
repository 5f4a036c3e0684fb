import { newIdentity } from '../auth/Identity';
import { Endpoint } from './Endpoint';
import { Principal } from '../auth/Principal';
import { ENDPOINT_ROLES } from '../role/Role';
import { BadRequestError } from '../shared/errors';
import { searchCriteria, searchRank, searchTerms, visibleHits, DEFAULT_SEARCH_LIMIT, SEARCH_TEXT_LIMITS, MAX_SEARCH_LIMIT, MAX_SEARCH_WINDOW, SEARCH_SCOPES } from './EndpointSearch';

const now = new Date('2026-05-06T07:08:09.000Z');
const alice = newIdentity({ id: 'a1', username: 'alice', now });
const work = { ...newIdentity({ id: 'a2', username: 'alice@work', now }), set_id: 'a1' };
const caller = new Principal(alice, [alice, work], ['g1']);
const criteriaOf = (request: Parameters<typeof searchCriteria>[1]) => searchCriteria(caller, request, now);

describe('search terms', () => {
  it('lower-cases, strips punctuation, splits on spaces, drops repeats and keeps at most 20', () => {
    expect(searchTerms('  Ocean-Storage, ocean!  Été ')).toEqual(['ocean', 'storage', 'été']);
    expect(searchTerms(undefined)).toEqual([]);
    expect(searchTerms('...')).toEqual([]);
    expect(searchTerms(Array.from({ length: 10 }, (_, i) => `word${i}`).join(' '))).toHaveLength(10);
    expect(searchTerms('ab c storage ab')).toEqual(['ab', 'c', 'storage']);
  });
});

describe('search criteria', () => {
  it('defaults to 25 from 0, reads one more than the page, and sees public endpoints or those the caller administers or monitors', () => {
    const { criteria, offset, limit } = criteriaOf({ fulltext: 'ocean' });
    expect([offset, limit]).toEqual([0, DEFAULT_SEARCH_LIMIT]);
    expect(criteria).toEqual({ terms: ['ocean'], visibleTo: { principalIds: ['a1', 'a2', 'g1'], roles: ['administrator', 'activity_monitor'] }, offset: 0, limit: DEFAULT_SEARCH_LIMIT + 1 });
  });

  it('checks limit, offset and the search window at their edges', () => {
    expect(criteriaOf({ fulltext: 'x', limit: MAX_SEARCH_LIMIT }).limit).toBe(MAX_SEARCH_LIMIT);
    expect(criteriaOf({ fulltext: 'x', limit: 1 }).limit).toBe(1);
    for (const limit of [0, MAX_SEARCH_LIMIT + 1, 1.5]) expect(() => criteriaOf({ fulltext: 'x', limit })).toThrow(/Invalid limit/);
    expect(criteriaOf({ fulltext: 'x', offset: MAX_SEARCH_WINDOW - 100, limit: 100 }).offset).toBe(MAX_SEARCH_WINDOW - 100);
    for (const offset of [-1, MAX_SEARCH_WINDOW - 99, 0.5]) expect(() => criteriaOf({ fulltext: 'x', offset, limit: 100 })).toThrow(/Invalid offset/);
  });

  it('needs full text for the scope all, and knows every scope', () => {
    expect(() => criteriaOf({})).toThrow(/needs filter_fulltext/);
    expect(() => criteriaOf({ fulltext: '!!' })).toThrow(/needs filter_fulltext/);
    expect(() => criteriaOf({ scope: 'everything' })).toThrow(/Invalid filter_scope 'everything'/);
    for (const scope of SEARCH_SCOPES.filter((s) => s !== 'all')) expect(() => criteriaOf({ scope })).not.toThrow();
  });

  it('turns each scope into its conditions', () => {
    const ids = ['a1', 'a2'];
    const principals = ['a1', 'a2', 'g1'];
    const of = (scope: string) => {
      const { criteria } = criteriaOf({ scope });
      const { terms: _t, visibleTo: _v, offset: _o, limit: _l, ...rest } = criteria!;
      return rest;
    };
    expect(of('my-endpoints')).toEqual({ ownedBy: ids });
    expect(of('my-gcp-endpoints')).toEqual({ ownedBy: ids, kinds: ['personal'] });
    expect(of('administered-by-me')).toEqual({ holding: { principalIds: principals, roles: ['administrator'] } });
    expect(of('shared-by-me')).toEqual({ ownedBy: ids, kinds: ['shared'] });
    expect(of('shared-with-me')).toEqual({ grantedTo: { principalIds: principals, now }, notOwnedBy: ids, kinds: ['shared'] });
    expect(of('hide-no-permissions')).toEqual({ holding: { principalIds: principals, roles: ENDPOINT_ROLES } });
    for (const scope of ['recently-used', 'in-use']) expect(criteriaOf({ scope }).criteria).toBeNull();
  });

  it('adds the filters, lower-casing ids, and refuses an owner filter with the scopes that fix the owner', () => {
    const { criteria } = criteriaOf({ fulltext: 'x', ownerId: 'BOB', hostEndpointId: 'ABC', nonFunctional: true });
    expect(criteria).toMatchObject({ ownedBy: ['bob'], hostId: 'abc', functional: false });
    expect(criteriaOf({ fulltext: 'x', nonFunctional: false }).criteria).toMatchObject({ functional: true });
    for (const scope of ['my-endpoints', 'my-gcp-endpoints', 'shared-by-me']) expect(() => criteriaOf({ scope, ownerId: 'bob' })).toThrow(/filter_owner_id cannot be used/);
    expect(criteriaOf({ scope: 'administered-by-me', ownerId: 'bob' }).criteria).toMatchObject({ ownedBy: ['bob'] });
  });

  it('maps entity types to kinds and to being a GCS collection, and answers an empty page for the types xfer has none of', () => {
    expect(criteriaOf({ fulltext: 'x', entityType: 'GCP_mapped_collection' }).criteria).toMatchObject({ kinds: ['personal'], collection: false });
    const guest = criteriaOf({ fulltext: 'x', entityType: 'GCP_guest_collection' }).criteria!;
    expect(guest).toMatchObject({ kinds: ['shared'], hostKind: 'personal', collection: false });
    const gcsEndpoint = criteriaOf({ fulltext: 'x', entityType: 'GCSv5_endpoint' }).criteria!;
    expect(gcsEndpoint.kinds).toEqual(['gcs_endpoint']);
    expect(gcsEndpoint.collection).toBeUndefined();
    expect(criteriaOf({ fulltext: 'x', entityType: 'GCSv5_mapped_collection' }).criteria).toMatchObject({ kinds: ['server', 'personal', 'object_store'], collection: true });
    const guestCollection = criteriaOf({ fulltext: 'x', entityType: 'GCSv5_guest_collection' }).criteria!;
    expect(guestCollection).toMatchObject({ kinds: ['shared'], collection: true });
    expect(guestCollection.hostKind).toBeUndefined();
    expect(criteriaOf({ fulltext: 'x', entityType: 'GCSv5_host' }).criteria).toBeNull();
    expect(criteriaOf({ scope: 'my-gcp-endpoints', entityType: 'GCP_guest_collection' }).criteria).toBeNull();
    expect(criteriaOf({ scope: 'my-gcp-endpoints', entityType: 'GCP_mapped_collection' }).criteria).toMatchObject({ kinds: ['personal'] });
    expect(() => criteriaOf({ fulltext: 'x', entityType: 'nope' })).toThrow(/Invalid filter_entity_type 'nope'/);
    expect(() => criteriaOf({ fulltext: 'x', entityType: 'GCP_mapped_collection', nonFunctional: true })).toThrow(BadRequestError);
  });
});

describe('search rank', () => {
  const text = { display_name: 'Ocean Storage', canonical_name: null, keywords: 'sea,storage', organization: 'Oceanic Lab', department: null, owner_string: 'alice', description: 'stores data' };

  it('weighs each field a term starts a word of: display_name 10, keywords 4, organization 2, description 1', () => {
    expect(searchRank(text, [])).toBe(0);
    expect(searchRank(text, ['ocean'])).toBe(10 + 2);
    expect(searchRank(text, ['storage'])).toBe(10 + 4);
    expect(searchRank(text, ['stor'])).toBe(10 + 4 + 1);
    expect(searchRank(text, ['ali'])).toBe(2);
    expect(searchRank(text, ['ocean', 'sea'])).toBe(12 + 4);
  });

  it('is null when a term matches no word, unless the engine matched stems', () => {
    expect(searchRank(text, ['ocean', 'desert'])).toBeNull();
    expect(searchRank(text, ['cean'])).toBeNull();
    expect(searchRank(text, ['ocean', 'desert'], { stemmed: true })).toBe(12);
    // stemmed: a long term counts from its first letters ("storages" as "stora")
    expect(searchRank(text, ['storages'], { stemmed: true })).toBe(10 + 4);
    expect(searchRank(text, ['storages'])).toBeNull();
  });
});

describe('search details', () => {
  const fields = { display_name: null, canonical_name: null, description: null, organization: null, department: null, keywords: null, owner_string: null };

  it('lets a stemmed term of six letters or more count from all but its last three, a shorter one whole', () => {
    expect(searchRank({ ...fields, display_name: 'abcxyz' }, ['abcdef'], { stemmed: true })).toBe(10);
    expect(searchRank({ ...fields, display_name: 'abxyz' }, ['abcde'], { stemmed: true })).toBe(0);
    expect(searchRank({ ...fields, display_name: 'abcde' }, ['abcde'], { stemmed: true })).toBe(10);
    expect(searchRank({ ...fields, display_name: 'zz' }, ['ab'], { stemmed: true })).toBe(0);
  });

  it('matches nothing in a field that is not set', () => {
    expect(searchRank(fields, ['stryker'])).toBeNull();
    expect(searchRank(fields, ['here'])).toBeNull();
  });

  it('quotes at most 40 characters of a bad scope or entity type, and lists the scopes', () => {
    const scope = 'x'.repeat(60);
    expect(() => criteriaOf({ scope, fulltext: 'a' })).toThrow(`Invalid filter_scope '${'x'.repeat(40)}': one of ${SEARCH_SCOPES.join(', ')}`);
    expect(() => criteriaOf({ fulltext: 'a', entityType: 'y'.repeat(60) })).toThrow(`Invalid filter_entity_type '${'y'.repeat(40)}'`);
    expect(() => criteriaOf({ fulltext: 'a', entityType: 'GCP_mapped_collection', nonFunctional: true })).toThrow('filter_entity_type cannot be used with filter_non_functional');
  });

  it('keeps of the hits those the caller may see, with their roles', () => {
    const make = (id: string, isPublic: boolean) =>
      Endpoint.create({ display_name: id, personal: false, public: isPublic }, { id, owner: newIdentity({ id: `owner-${id}`, username: `owner-${id}`, now }), now, subscriptionId: null, setupKey: 'k' });
    const hits = [
      { endpoint: make('open', true), assignments: [], rank: 3 },
      { endpoint: make('closed', false), assignments: [], rank: 2 },
      { endpoint: make('monitored', false), assignments: [{ id: 'r', endpoint_id: 'monitored', role: 'activity_monitor' as const, principal_type: 'group' as const, principal_id: 'g1', created_at: now }], rank: 1 },
    ];
    expect(visibleHits(caller, hits).map((h) => [h.endpoint.id, h.roles, h.rank])).toEqual([
      ['open', [], 3],
      ['monitored', ['activity_monitor'], 1],
    ]);
  });

  it('bounds what one search may ask: a 400 naming filter_fulltext past the limits (security review two, finding 1)', () => {
    const { characters, terms, termCharacters, shortTerms } = SEARCH_TEXT_LIMITS;
    expect(() => searchTerms(Array.from({ length: terms + 1 }, (_, i) => `word${i}`).join(' '))).toThrow(`Invalid filter_fulltext: at most ${terms} distinct terms, not ${terms + 1}`);
    expect(() => searchTerms('a b c')).toThrow('Invalid filter_fulltext: at most 2 terms shorter than 3 characters (a, b, c): each is the prefix of too many words');
    expect(searchTerms('a b cat')).toHaveLength(shortTerms + 1);
    expect(() => searchTerms('x'.repeat(termCharacters + 1))).toThrow(/a term of at most 64 characters/);
    expect(searchTerms('x'.repeat(termCharacters))).toHaveLength(1);
    expect(() => searchTerms(' '.repeat(characters + 1))).toThrow(`Invalid filter_fulltext: at most ${characters} characters`);
    expect(() => searchTerms('a b c d e f g h i j k l m n o p q r s t')).toThrow(BadRequestError);
    for (const fulltext of ['a b c', 'x'.repeat(65)]) expect(() => criteriaOf({ fulltext, scope: 'my-endpoints' })).toThrow(/filter_fulltext/);
  });
});
