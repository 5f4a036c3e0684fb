import type { EndpointCriteria, EndpointWithRoles, SearchHit } from '@xfer/core';
import type { EndpointRecord } from '../../records/schemas';
import { groupRows, ROLE_COLUMNS, type RoleColumns } from '../../repositories/endpointRows';
import { EndpointSearch, SearchStatement } from '../EndpointSearch';
import { hasShortTerm } from '../searchTerms';
import type { PostgresSql } from './PostgresSql';
import { tsRankWeights } from './searchIndex';
import { tsqueryOfTerms } from './tsquery';

/**
 * The endpoint as one JSON column beside the role's. node-postgres builds a template row for every
 * result from its column list (43-45 us per search for SELECT e.* with the roles' 43 columns, 15 us
 * for these 8); the endpoint's values come back alike (JSON true/false, numbers, strings).
 */
const SELECT_JSON_WITH_ROLES = `SELECT row_to_json(e) AS e, ${ROLE_COLUMNS}`;
type PostgresRow = RoleColumns & { e: EndpointRecord };

/** Rows of endpoints with roles whose endpoint is their own JSON column: one entry per endpoint, the record as it came. */
function groupJsonWithRoles(rows: readonly PostgresRow[]): EndpointWithRoles[] {
  return groupRows(rows, (row) => row.e.id, (row) => row.e);
}

/** A Postgres search as it is built: its matches in common table expressions before the page's. */
class PostgresSearchStatement extends SearchStatement {
  /** The common table expressions before the page's, each ending in a comma. */
  prelude = '';

  override filter(): void {
    super.filter();
    // matches that need nothing of the endpoint row are paged without it
    if (this.where.length === 0 && this.prelude !== '') [this.from, this.id] = ['m', 'm.endpoint_id'];
  }
}

/**
 * Postgres's endpoint search: a weighted tsvector per endpoint (labels from the shared field
 * weights), every term a prefix of a stemmed word or the index's own words where few, ranked by
 * ts_rank with the shared weights; the page and its rows in one statement.
 */
export class PostgresEndpointSearch extends EndpointSearch<PostgresSql, PostgresSearchStatement> {
  protected statement(criteria: EndpointCriteria): PostgresSearchStatement {
    return new PostgresSearchStatement(this.sql, criteria);
  }

  /**
   * Every term a prefix of a stemmed word, as the words themselves where few; weights A-D set by
   * the trigger. The visible matches first, on their own: joined under a LIMIT, the planner
   * overestimates a query of many rare words and scans the whole table instead (130 ms instead of
   * 0.7 at 100,000 endpoints); visible by the search row's own flag or the caller's roles.
   */
  protected async matchText(q: PostgresSearchStatement): Promise<boolean> {
    const { criteria } = q;
    const { visibleTo } = criteria;
    const list = (values: readonly unknown[]) => q.list(values);
    const tsquery = tsqueryOfTerms(criteria.terms);
    const scope = await this.narrowScope(criteria, { sql: `SELECT 1 FROM endpoint_search s WHERE s.document @@ (SELECT query FROM (${tsquery.sql}) q)`, params: tsquery.params });
    // in a narrow scope, each of its search rows by key (LATERAL: never a scan of every match)
    const searched = scope ? `(${scope.sql}) sc CROSS JOIN LATERAL (SELECT x.* FROM endpoint_search x WHERE x.endpoint_id = sc.id OFFSET 0) s` : 'endpoint_search s';
    // Where a term stays a prefix, the caller's roles are read once into a hash (the matches may be
    // thousands: "storage 12" at 1,000,000 endpoints, 6,115 of its 18,303 not public, 223 -> 40 ms);
    // else each match not public is looked up, as most searches match a few (a hash would cost more)
    const { principalIds, roles } = visibleTo;
    const heldByCaller = `SELECT h.endpoint_id FROM role_assignments h WHERE h.principal_id IN (${list(principalIds)}) AND h.role IN (${list(roles)})`;
    q.prelude = `q AS MATERIALIZED (${tsquery.sql}),
                 m AS MATERIALIZED (SELECT s.endpoint_id, ts_rank(${tsRankWeights()}::float4[], s.document, (SELECT query FROM q)) AS rank FROM ${searched}
                   WHERE s.document @@ (SELECT query FROM q) AND (s.public = ? OR CASE WHEN (SELECT prefixed FROM q) THEN s.endpoint_id IN (${heldByCaller})
                     ELSE ${q.holds('v', visibleTo, { of: 's.endpoint_id', perRow: true })} END)), `;
    q.leadingParams.push(...tsquery.params, ...(scope?.params ?? []), ...q.visibilityParams, ...principalIds, ...roles);
    q.visibilityChecked = true;
    q.from = 'm JOIN endpoints e ON e.id = m.endpoint_id';
    q.rank = 'm.rank';
    return true;
  }

  /**
   * The page and its endpoints with the caller's roles in one statement, so one round trip per
   * search (on the pool where a short term may make it long). Each page row's endpoint and roles
   * are looked up by key (LATERAL), never joined by a plan made for an unknown number of page rows.
   */
  protected async hits(q: PostgresSearchStatement): Promise<SearchHit[]> {
    const { criteria } = q;
    const page = q.page();
    const { principalIds } = criteria.visibleTo;
    const order = criteria.terms.length > 0 ? 'page.rank DESC, page.id' : 'e.created_at, e.id';
    const rows = await this.sql.rows<PostgresRow & { search_rank: number | string }>(
      `WITH ${q.prelude}page AS MATERIALIZED (${page.sql})
       ${SELECT_JSON_WITH_ROLES}, page.rank AS search_rank
       FROM page CROSS JOIN LATERAL (SELECT * FROM endpoints x WHERE x.id = page.id) e
       LEFT JOIN LATERAL (SELECT * FROM role_assignments y WHERE y.endpoint_id = e.id AND y.principal_id IN (${this.sql.list(principalIds)})) r ON true
       ORDER BY ${order}`,
      [...page.params, ...principalIds],
      { slow: hasShortTerm(criteria.terms) },
    );
    const ranks = new Map(rows.map((row) => [row.e.id, Number(row.search_rank)]));
    return groupJsonWithRoles(rows).map((hit) => ({ ...hit, rank: ranks.get(hit.endpoint.id)! }));
  }
}
