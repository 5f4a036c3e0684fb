import {
  ConcurrentModificationError,
  ConflictError,
  Endpoint,
  endpointConflicts,
  type EndpointKind,
  type EndpointRole,
  type EndpointWithRoles,
  type PrincipalType,
  type EndpointRepository,
  type EndpointState,
  type NetworkUse,
  type ReadOptions,
  type ShareCursor,
  type EndpointCriteria,
  type SearchedText,
  type SearchHit,
  type ServerScheme,
  type Tombstone,
} from '@xfer/core';
import { In, type EntityManager } from 'typeorm';
import { EndpointSchema, TombstoneSchema, type EndpointRecord } from '../records/schemas';
import { expandForFts5, fts5Match, hasShortTerm, tsqueryOfTerms, type ExpandedTerm } from '../searchExpansion';
import { matchingText, RANKED_IN_MEMORY_UP_TO, rankInMemory, runToEnd, type RankedPage, type RankedSearch, SEARCHED_COLUMNS } from '../searchThread';
import { insertSql, Sql } from '../sql';
import { bool, boolOrNull, fromTime, toTime, uniqueViolation } from './mapping';

export function endpointToRecord(s: EndpointState): EndpointRecord {
  return {
    ...s,
    created_at: toTime(s.created_at),
    custom_network: s.custom_network === null ? null : JSON.stringify(s.custom_network),
    servers: JSON.stringify(s.servers),
  };
}

export function endpointFromRecord(r: EndpointRecord): Endpoint {
  return Endpoint.adopt({
    ...r,
    kind: r.kind as EndpointKind,
    version: Number(r.version),
    created_at: fromTime(r.created_at),
    public: bool(r.public),
    force_encryption: bool(r.force_encryption),
    disable_verify: bool(r.disable_verify),
    vcp_connected: boolOrNull(r.vcp_connected),
    vcp_paused: boolOrNull(r.vcp_paused),
    local_user_info_available: boolOrNull(r.local_user_info_available),
    subscription_admin_verified: bool(r.subscription_admin_verified),
    network_use: r.network_use as NetworkUse | null,
    custom_network: r.custom_network === null ? null : JSON.parse(r.custom_network),
    servers: (JSON.parse(r.servers) as EndpointState['servers']).map((s) => ({ ...s, scheme: s.scheme as ServerScheme })),
    next_server_id: Number(r.next_server_id),
  });
}

const ENDPOINT_COLUMNS = Object.keys(EndpointSchema.options.columns);
const UPDATED_COLUMNS = ENDPOINT_COLUMNS.filter((c) => c !== 'id');
const INSERT_ENDPOINT = insertSql('endpoints', ENDPOINT_COLUMNS);
const UPDATE_ENDPOINT = `UPDATE endpoints SET ${UPDATED_COLUMNS.map((c) => `"${c}" = ?`).join(', ')} WHERE id = ? AND version = ?`;
/** SQLite: a search of at most this many matches is answered whole on the quick thread (most find one or two). */
const FEW_MATCHES = 100;
/** SQLite: bm25 with the column weights (lower is better, so negated). */
const BM25_RANK = '-bm25(endpoint_search, 10, 4, 1, 2, 2, 4, 2)';
/** SQLite: the MATCH expression until it is worked out (never run: matches nothing if it were). */
const UNEXPANDED = '""';
/** A scope of at most this many endpoints drives a search whose text matches more (narrowScope); SQLite ranks them in memory. */
const SCOPE_DRIVEN_UP_TO = RANKED_IN_MEMORY_UP_TO;

/** The caller's role assignment beside an endpoint `e` (LEFT JOINed as `r`). */
const ROLE_COLUMNS = 'r.id AS r_id, r.role AS r_role, r.principal_type AS r_principal_type, r.principal_id AS r_principal_id, r.created_at AS r_created_at';
const SELECT_WITH_ROLES = `SELECT e.*, ${ROLE_COLUMNS}`;

type RoleColumns = { r_id: string | null; r_role: string | null; r_principal_type: string | null; r_principal_id: string | null; r_created_at: string | null };
type EndpointRow = EndpointRecord & RoleColumns;

/**
 * Postgres: the endpoint as one JSON column beside the role's. node-postgres builds a template row
 * for every result from its column list (43-45 us per search for SELECT e.* with the roles' 43
 * columns, 15 us for these 8); the endpoint's values come back alike (JSON true/false, numbers,
 * strings).
 */
const SELECT_JSON_WITH_ROLES = `SELECT row_to_json(e) AS e, ${ROLE_COLUMNS}`;
type PostgresRow = RoleColumns & { e: EndpointRecord };

/** Rows of endpoints LEFT JOINed with role assignments: one entry per endpoint, in row order. */
function groupWithRoles(rows: readonly EndpointRow[]): EndpointWithRoles[] {
  return groupRows(rows, (row) => row.id, ({ r_id: _i, r_role: _r, r_principal_type: _t, r_principal_id: _p, r_created_at: _c, ...record }) => record);
}

/** groupWithRoles for rows whose endpoint is their own JSON column: the record as it came. */
function groupJsonWithRoles(rows: readonly PostgresRow[]): EndpointWithRoles[] {
  return groupRows(rows, (row) => row.e.id, (row) => row.e);
}

function groupRows<Row extends RoleColumns>(rows: readonly Row[], idOf: (row: Row) => string, recordOf: (row: Row) => EndpointRecord): EndpointWithRoles[] {
  const byId = new Map<string, EndpointWithRoles>();
  for (const row of rows) {
    const id = idOf(row);
    let entry = byId.get(id);
    if (!entry) byId.set(id, (entry = { endpoint: endpointFromRecord(recordOf(row)), assignments: [] }));
    if (row.r_id !== null) {
      entry.assignments.push({
        id: row.r_id,
        endpoint_id: id,
        role: row.r_role as EndpointRole,
        principal_type: row.r_principal_type as PrincipalType,
        principal_id: row.r_principal_id!,
        created_at: fromTime(row.r_created_at!),
      });
    }
  }
  return [...byId.values()];
}

/** The hits of a ranked page from rows of endpoints with roles (in any order; others ignored). */
function inPageOrder(page: RankedPage, rows: readonly EndpointRow[]): SearchHit[] {
  const byId = new Map(groupWithRoles(rows).map((hit) => [hit.endpoint.id, hit]));
  return page.flatMap((p) => {
    const hit = byId.get(p.id);
    return hit ? [{ ...hit, rank: p.rank }] : [];
  });
}

export class TypeormEndpointRepository implements EndpointRepository {
  private readonly sql: Sql;

  constructor(private readonly manager: EntityManager) {
    this.sql = new Sql(manager);
  }

  async findWithRolesOf(key: { id: string } | { canonical_name: string }, principalIds: readonly string[], options: ReadOptions = {}) {
    const column = 'id' in key ? 'id' : 'canonical_name';
    const value = 'id' in key ? key.id : key.canonical_name;
    const lock = options.forUpdate && this.sql.postgres ? ' FOR UPDATE OF e' : '';
    const read = options.forUpdate ? this.sql.rows.bind(this.sql) : this.sql.cachedRows.bind(this.sql);
    const rows = await read<EndpointRow>(
      `${SELECT_WITH_ROLES} FROM endpoints e LEFT JOIN role_assignments r ON r.endpoint_id = e.id AND r.principal_id IN (${this.sql.list(principalIds)}) WHERE e.${column} = ?${lock}`,
      [...principalIds, value],
    );
    return groupWithRoles(rows)[0] ?? null;
  }

  async listSharesHeldBy(hostId: string, holder: { identityIds: readonly string[]; principalIds: readonly string[]; roles: readonly string[] }) {
    const { identityIds, principalIds, roles } = holder;
    // Driven by the holder's own rows on this host (their roles there, their shares there), never by
    // a scan of the host's shares: CROSS JOIN keeps SQLite's planner on that order.
    const rows = await this.sql.rows<EndpointRow>(
      `${SELECT_WITH_ROLES}
       FROM (SELECT x.endpoint_id AS id FROM role_assignments x
             WHERE x.principal_id IN (${this.sql.list(principalIds)}) AND x.host_endpoint_id = ? AND x.role IN (${this.sql.list(roles)})
             UNION SELECT o.id FROM endpoints o WHERE o.owner_id IN (${this.sql.list(identityIds)}) AND o.host_endpoint_id = ?) h
       CROSS JOIN endpoints e
       LEFT JOIN role_assignments r ON r.endpoint_id = e.id AND r.principal_id IN (${this.sql.list(principalIds)})
       WHERE e.id = h.id AND e.host_endpoint_id = ?
       ORDER BY e.created_at, e.id`,
      [...principalIds, hostId, ...roles, ...identityIds, hostId, ...principalIds, hostId],
    );
    return groupWithRoles(rows);
  }

  async search(criteria: EndpointCriteria): Promise<SearchHit[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const cond = (sql: string, ...values: unknown[]) => {
      where.push(sql);
      params.push(...values);
    };
    const list = (values: readonly unknown[]) => this.sql.list(values);
    // `perRow`: looked up for each row; OFFSET 0 keeps Postgres from turning the check into a hash
    // of every role the principals hold, built for each search (990 roles: 4 ms for one match)
    const holds = (alias: string, h: { principalIds: readonly string[]; roles: readonly string[] }, { of = 'e.id', perRow = false } = {}) =>
      `EXISTS (SELECT 1 FROM role_assignments ${alias} WHERE ${alias}.endpoint_id = ${of} AND ${alias}.principal_id IN (${list(h.principalIds)}) AND ${alias}.role IN (${list(h.roles)})${perRow ? ' OFFSET 0' : ''})`;
    const { visibleTo } = criteria;
    const visibilityParams = [true, ...visibleTo.principalIds, ...visibleTo.roles];
    let from = 'endpoints e';
    let id = 'e.id';
    let rank = '0';
    let visibilityChecked = false;
    // SQLite: some term is still a prefix, so its matches may be thousands
    let manyMatches = false;
    // SQLite: the MATCH expression's parameter (of matches and page) when the quick thread works it out
    let unexpandedAt: number | undefined;
    // SQLite: the expanded terms, where the matches are a narrow scope's endpoints whose text is yet to match
    let textMatch: ExpandedTerm[] | undefined;
    // Postgres: the common table expressions before the page's (each ending in a comma)
    let prelude = '';
    // the parameters before the WHERE clause's: Postgres's common table expressions, SQLite's scope
    const leadingParams: unknown[] = [];
    if (criteria.terms.length > 0) {
      if (this.sql.postgres) {
        // every term a prefix of a stemmed word, as the words themselves where few; weights A-D set by
        // the trigger. The visible matches first, on their own: joined under a LIMIT, the planner
        // overestimates a query of many rare words and scans the whole table instead (130 ms instead
        // of 0.7 at 100,000 endpoints); visible by the search row's own flag or the caller's roles.
        const tsquery = tsqueryOfTerms(criteria.terms);
        const scope = await this.narrowScope(criteria, { sql: `SELECT 1 FROM endpoint_search s WHERE s.document @@ (SELECT query FROM (${tsquery.sql}) q)`, params: tsquery.params });
        // in a narrow scope, each of its search rows by key (LATERAL: never a scan of every match)
        const searched = scope ? `(${scope.sql}) sc CROSS JOIN LATERAL (SELECT x.* FROM endpoint_search x WHERE x.endpoint_id = sc.id OFFSET 0) s` : 'endpoint_search s';
        // Where a term stays a prefix, the caller's roles are read once into a hash (the matches may be
        // thousands: "storage 12" at 1,000,000 endpoints, 6,115 of its 18,303 not public, 223 -> 40 ms);
        // else each match not public is looked up, as most searches match a few (a hash would cost more)
        const { principalIds, roles } = visibleTo;
        const heldByCaller = `SELECT h.endpoint_id FROM role_assignments h WHERE h.principal_id IN (${list(principalIds)}) AND h.role IN (${list(roles)})`;
        prelude = `q AS MATERIALIZED (${tsquery.sql}),
                   m AS MATERIALIZED (SELECT s.endpoint_id, ts_rank(s.document, (SELECT query FROM q)) AS rank FROM ${searched}
                     WHERE s.document @@ (SELECT query FROM q) AND (s.public = ? OR CASE WHEN (SELECT prefixed FROM q) THEN s.endpoint_id IN (${heldByCaller})
                       ELSE ${holds('v', visibleTo, { of: 's.endpoint_id', perRow: true })} END)), `;
        leadingParams.push(...tsquery.params, ...(scope?.params ?? []), ...visibilityParams, ...principalIds, ...roles);
        visibilityChecked = true;
        from = 'm JOIN endpoints e ON e.id = m.endpoint_id';
        rank = 'm.rank';
      } else if (!criteria.ownedBy && !criteria.holding && this.sql.quickSearchThread()) {
        // no scope to narrow to: the quick thread expands the terms itself, with the search
        from = `endpoint_search s JOIN endpoints e ON e.rowid = s.rowid`;
        rank = BM25_RANK;
        unexpandedAt = leadingParams.length + params.length;
        cond('endpoint_search MATCH ?', UNEXPANDED);
      } else {
        // FTS5 on porter-stemmed tokens, each term its words or a prefix; bm25 with the column weights (lower is better)
        const expanded = await expandForFts5(this.sql, criteria.terms);
        const match = fts5Match(expanded);
        if (match === null) return [];
        const { query, prefixed } = match;
        // a prefix of many words is taken to match many: counting would merge all their entries here, on the event loop
        const scope = await this.narrowScope(criteria, prefixed ? 'many' : { sql: 'SELECT rowid FROM endpoint_search WHERE endpoint_search MATCH ?', params: [query] });
        manyMatches = scope !== null || prefixed;
        if (scope) {
          // in a narrow scope, its endpoints (CROSS JOIN: in that order), their text matched by the
          // search thread a few at a time (textMatch), never by FTS5 once per endpoint: a term that
          // stays a prefix costs FTS5 a walk of every word it begins, for each endpoint asked (a
          // thousand endpoints and twenty one-letter terms: a minute). At most SCOPE_DRIVEN_UP_TO,
          // so ranked in memory.
          from = `(${scope.sql}) sc CROSS JOIN endpoints e`;
          leadingParams.push(...scope.params);
          cond('e.id = sc.id');
          textMatch = expanded;
        } else {
          from = `endpoint_search s JOIN endpoints e ON e.rowid = s.rowid`;
          rank = BM25_RANK;
          cond('endpoint_search MATCH ?', query);
        }
      }
    }
    if (!visibilityChecked) cond(`(e.public = ? OR ${holds('v', visibleTo)})`, ...visibilityParams);
    if (criteria.ownedBy) cond(`e.owner_id IN (${list(criteria.ownedBy)})`, ...criteria.ownedBy);
    if (criteria.notOwnedBy) cond(`e.owner_id NOT IN (${list(criteria.notOwnedBy)})`, ...criteria.notOwnedBy);
    if (criteria.kinds) cond(`e.kind IN (${list(criteria.kinds)})`, ...criteria.kinds);
    if (criteria.holding) cond(holds('h', criteria.holding), ...criteria.holding.principalIds, ...criteria.holding.roles);
    if (criteria.grantedTo) {
      const { principalIds, now } = criteria.grantedTo;
      cond(
        `EXISTS (SELECT 1 FROM access_rules a WHERE a.endpoint_id = e.id AND (a.principal_type = 'all_authenticated_users' OR (a.principal_type IN ('identity', 'group') AND a.principal IN (${list(principalIds)}))) AND (a.expiration_date IS NULL OR a.expiration_date > ?))`,
        ...principalIds,
        toTime(now),
      );
    }
    if (criteria.hostId !== undefined) cond('e.host_endpoint_id = ?', criteria.hostId);
    if (criteria.hostKind) cond('EXISTS (SELECT 1 FROM endpoints he WHERE he.id = e.host_endpoint_id AND he.kind = ?)', criteria.hostKind);
    if (criteria.functional !== undefined) cond(`${criteria.functional ? 'NOT ' : ''}(e.kind = 'server' AND e.servers = '[]')`);
    // matches that need nothing of the endpoint row are paged without it
    if (where.length === 0 && prelude !== '') [from, id] = ['m', 'm.endpoint_id'];
    const order = criteria.terms.length > 0 ? `rank DESC, ${id}` : 'e.created_at, e.id';
    const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    const page = `SELECT ${id} AS id, ${rank} AS rank FROM ${from}${filter} ORDER BY ${order} LIMIT ? OFFSET ?`;
    const pageParams = [...leadingParams, ...params, criteria.limit, criteria.offset];
    if (this.sql.postgres) return this.pageWithRows(prelude, page, pageParams, criteria);
    // SQLite: the page (its matches ranked in memory where they are few), with its rows
    const { principalIds } = criteria.visibleTo;
    if (criteria.terms.length === 0) return this.withRows(await this.sql.rows<{ id: string; rank: number }>(page, pageParams), principalIds);
    const search: RankedSearch = { matches: `SELECT e.id AS id, ${SEARCHED_COLUMNS} FROM ${from}${filter} LIMIT ?`, matchParams: [...leadingParams, ...params], page, pageParams, terms: criteria.terms, offset: criteria.offset, limit: criteria.limit, textMatch };
    return this.rankedHits(search, manyMatches, principalIds, unexpandedAt);
  }

  /**
   * The ids of the criteria's narrow scope (the owners' endpoints, or those the holder holds one of
   * the roles on), when it holds at most SCOPE_DRIVEN_UP_TO endpoints while the text alone matches
   * more: the search then checks the text of each endpoint in scope, instead of finding every match
   * of a common word to keep the few in scope ("genomics" in my-endpoints at 1,000,000 endpoints:
   * 0.5-0.9 s on SQLite and 0.9-3.9 s on Postgres before, 35-120 ms after). `text` selects the
   * text's matches, or is `many` where they are taken to be more without counting them.
   */
  private async narrowScope(
    criteria: EndpointCriteria,
    text: { sql: string; params: unknown[] } | 'many',
  ): Promise<{ sql: string; params: unknown[] } | null> {
    const list = (values: readonly unknown[]) => this.sql.list(values);
    const { ownedBy, holding } = criteria;
    const scope = ownedBy
      ? { sql: `SELECT o.id FROM endpoints o WHERE o.owner_id IN (${list(ownedBy)})`, params: [...ownedBy] }
      : holding
        ? { sql: `SELECT DISTINCT h.endpoint_id AS id FROM role_assignments h WHERE h.principal_id IN (${list(holding.principalIds)}) AND h.role IN (${list(holding.roles)})`, params: [...holding.principalIds, ...holding.roles] }
        : null;
    if (scope === null) return null;
    const matches = text === 'many' ? { sql: '?', params: [] } : { sql: `(SELECT count(*) FROM (${text.sql} LIMIT ?) t)`, params: text.params };
    const [counted] = await this.sql.rows<{ text: number | string; scope: number | string }>(
      `SELECT ${matches.sql} AS text, (SELECT count(*) FROM (${scope.sql} LIMIT ?) c) AS scope`,
      [...matches.params, SCOPE_DRIVEN_UP_TO + 1, ...scope.params, SCOPE_DRIVEN_UP_TO + 1],
      { slow: hasShortTerm(criteria.terms) },
    );
    return Number(counted.text) > SCOPE_DRIVEN_UP_TO && Number(counted.scope) <= SCOPE_DRIVEN_UP_TO ? scope : null;
  }

  /**
   * Postgres: the page and its endpoints with the caller's roles in one statement, so one round
   * trip per search (on the pool where a short term may make it long). Each page row's endpoint and
   * roles are looked up by key (LATERAL), never joined by a plan made for an unknown number of page
   * rows.
   */
  private async pageWithRows(prelude: string, page: string, pageParams: unknown[], criteria: EndpointCriteria): Promise<SearchHit[]> {
    const { principalIds } = criteria.visibleTo;
    const order = criteria.terms.length > 0 ? 'page.rank DESC, page.id' : 'e.created_at, e.id';
    const rows = await this.sql.rows<PostgresRow & { search_rank: number | string }>(
      `WITH ${prelude}page AS MATERIALIZED (${page})
       ${SELECT_JSON_WITH_ROLES}, page.rank AS search_rank
       FROM page CROSS JOIN LATERAL (SELECT * FROM endpoints x WHERE x.id = page.id) e
       LEFT JOIN LATERAL (SELECT * FROM role_assignments y WHERE y.endpoint_id = e.id AND y.principal_id IN (${this.sql.list(principalIds)})) r ON true
       ORDER BY ${order}`,
      [...pageParams, ...principalIds],
      { slow: hasShortTerm(criteria.terms) },
    );
    const ranks = new Map(rows.map((row) => [row.e.id, Number(row.search_rank)]));
    return groupJsonWithRoles(rows).map((hit) => ({ ...hit, rank: ranks.get(hit.endpoint.id)! }));
  }

  /** SQLite: the endpoints of a page with the caller's roles; its last parameter is the page's ids as a JSON array. */
  private pageRows(principalIds: readonly string[]): string {
    return `${SELECT_WITH_ROLES} FROM endpoints e LEFT JOIN role_assignments r ON r.endpoint_id = e.id AND r.principal_id IN (${this.sql.list(principalIds)}) WHERE e.id IN (SELECT value FROM json_each(?))`;
  }

  /** SQLite: a page's endpoints with the caller's roles, in the page's order. */
  private async withRows(hits: RankedPage, principalIds: readonly string[]): Promise<SearchHit[]> {
    if (hits.length === 0) return [];
    const rows = await this.sql.rows<EndpointRow>(this.pageRows(principalIds), [...principalIds, JSON.stringify(hits.map((p) => p.id))]);
    return inPageOrder(hits, rows);
  }

  /**
   * SQLite: the matches found unranked and ranked by their text, or by bm25 when they are many
   * (rankInMemory), off the event loop where the threads run. A search with a term that is still a
   * prefix of many words goes to the search thread at once; any other to the quick thread first,
   * which answers it whole (its page's rows too) when it finds at most FEW_MATCHES matches, as most
   * do, and else leaves it to the search thread: searches of many matches never hold up the event
   * loop or the searches of few. With `unexpandedAt`, the quick thread also works out the MATCH
   * expression (that parameter); where it does not answer, it is worked out here.
   */
  private async rankedHits(search: RankedSearch, manyMatches: boolean, principalIds: readonly string[], unexpandedAt?: number): Promise<SearchHit[]> {
    const thread = this.sql.searchThread();
    if (thread && !manyMatches) {
      const few = await this.fewMatches(search, principalIds, unexpandedAt);
      if (few !== null) return few;
    }
    if (unexpandedAt !== undefined) {
      // the quick thread found a prefix, or more than a few matches: the query is worked out here
      const match = fts5Match(await expandForFts5(this.sql, search.terms));
      if (match === null) return [];
      const withQuery = (params: unknown[]) => params.map((p, i) => (i === unexpandedAt ? match.query : p));
      search = { ...search, matchParams: withQuery(search.matchParams), pageParams: withQuery(search.pageParams) };
    }
    if (thread) {
      try {
        const { page, rows } = await thread.rank<EndpointRow>({
          ...search,
          matchParams: this.sql.bind(search.matchParams),
          pageParams: this.sql.bind(search.pageParams),
          rows: this.pageRows(principalIds),
          rowsParams: [...principalIds],
        });
        return inPageOrder(page, rows);
      } catch (error) {
        // a thread that stopped leaves its searches to the main thread; a failed search fails
        if (thread.running) throw error;
      }
    }
    const read = await this.sql.rows<SearchedText & { id: string }>(search.matches, [...search.matchParams, RANKED_IN_MEMORY_UP_TO + 1]);
    const matches = runToEnd(matchingText(read, search.textMatch));
    return this.withRows(rankInMemory(matches, search) ?? (await this.sql.rows<{ id: string; rank: number }>(search.page, search.pageParams)), principalIds);
  }

  /**
   * SQLite: the page of a search of at most FEW_MATCHES matches with its rows (null if more), on the
   * quick thread where it runs; `unexpandedAt`: the MATCH parameter that the thread works out (null
   * where it cannot run: the query is then worked out on the event loop).
   */
  private async fewMatches(search: RankedSearch, principalIds: readonly string[], unexpandedAt?: number): Promise<SearchHit[] | null> {
    const quick = this.sql.quickSearchThread();
    if (quick) {
      try {
        const answer = await quick.few<EndpointRow>({
          ...search,
          matchParams: this.sql.bind(search.matchParams),
          ...(unexpandedAt !== undefined ? { expandAt: unexpandedAt } : {}),
          most: FEW_MATCHES,
          rows: this.pageRows(principalIds),
          rowsParams: [...principalIds],
        });
        return answer && inPageOrder(answer.page, answer.rows);
      } catch (error) {
        if (quick.running) throw error;
      }
    }
    if (unexpandedAt !== undefined) return null;
    const few = await this.sql.rows<SearchedText & { id: string }>(search.matches, [...search.matchParams, FEW_MATCHES + 1]);
    return few.length <= FEW_MATCHES ? this.withRows(rankInMemory(few, search)!, principalIds) : null;
  }

  async listSharesOfHost(hostId: string, principalIds: readonly string[], page: { after: ShareCursor | null; limit: number }) {
    const after = page.after === null ? '' : 'AND (s.created_at > ? OR (s.created_at = ? AND s.id > ?))';
    const cursor = page.after === null ? [] : [toTime(page.after.createdAt), toTime(page.after.createdAt), page.after.id];
    // the page's ids first (by the host index, in order), then the shares with the caller's roles
    const rows = await this.sql.rows<EndpointRow>(
      `${SELECT_WITH_ROLES}
       FROM (SELECT s.id FROM endpoints s WHERE s.host_endpoint_id = ? ${after} ORDER BY s.created_at, s.id LIMIT ?) h
       CROSS JOIN endpoints e
       LEFT JOIN role_assignments r ON r.endpoint_id = e.id AND r.principal_id IN (${this.sql.list(principalIds)})
       WHERE e.id = h.id
       ORDER BY e.created_at, e.id`,
      [hostId, ...cursor, page.limit, ...principalIds],
    );
    return groupWithRoles(rows);
  }

  async findById(id: string) {
    const record = await this.manager.findOneBy(EndpointSchema, { id });
    return record ? endpointFromRecord(record) : null;
  }

  async findByCanonicalName(canonicalName: string) {
    const record = await this.manager.findOneBy(EndpointSchema, { canonical_name: canonicalName });
    return record ? endpointFromRecord(record) : null;
  }

  async findTombstone(key: { id: string } | { canonical_name: string }): Promise<Tombstone | null> {
    const record = await this.manager.findOne(TombstoneSchema, { where: key, order: { deleted_at: 'DESC' } });
    return record ? { ...record, deleted_at: fromTime(record.deleted_at) } : null;
  }

  async insert(endpoint: Endpoint) {
    const state = endpoint.toPrimitives();
    const record = endpointToRecord(state) as unknown as Record<string, unknown>;
    await this.translateConflicts(state, () => this.sql.run(INSERT_ENDPOINT, ENDPOINT_COLUMNS.map((c) => record[c])));
  }

  async update(endpoint: Endpoint) {
    const expected = endpoint.version;
    endpoint.nextVersion();
    const state = endpoint.toPrimitives();
    const record = endpointToRecord(state) as unknown as Record<string, unknown>;
    const changed = await this.translateConflicts(state, () =>
      this.sql.run(UPDATE_ENDPOINT, [...UPDATED_COLUMNS.map((c) => record[c]), state.id, expected]),
    );
    if (changed !== 1) {
      throw new ConcurrentModificationError(`Endpoint '${state.id}' was changed by another request`);
    }
  }

  async delete(endpoint: Endpoint, tombstone: Tombstone) {
    const result = await this.manager.delete(EndpointSchema, { id: endpoint.id, version: endpoint.version });
    if (result.affected !== 1) {
      throw new ConcurrentModificationError(`Endpoint '${endpoint.id}' was changed by another request`);
    }
    await this.manager.insert(TombstoneSchema, { ...tombstone, deleted_at: toTime(tombstone.deleted_at) });
  }

  async findByIds(ids: readonly string[]) {
    if (ids.length === 0) return [];
    const records = await this.manager.findBy(EndpointSchema, { id: In([...ids]) });
    const byId = new Map(records.map((r) => [r.id, r]));
    return ids.flatMap((id) => (byId.has(id) ? [endpointFromRecord(byId.get(id)!)] : []));
  }

  private async translateConflicts<T>(state: EndpointState, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const violated = uniqueViolation(error);
      if (violated === null) throw error;
      if (violated.includes('display_name')) throw endpointConflicts.displayName(state.display_name);
      if (violated.includes('canonical_name')) throw endpointConflicts.canonicalName(state.canonical_name);
      throw new ConflictError(`Endpoint '${state.id}' already exists`);
    }
  }
}
