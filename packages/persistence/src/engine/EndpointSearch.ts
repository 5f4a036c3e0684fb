import { type EndpointCriteria, type SearchHit } from '@xfer/core';
import { toTime } from '../repositories/mapping';
import type { EndpointSearcher } from './Engine';
import { hasShortTerm, RANKED_IN_MEMORY_UP_TO } from './searchTerms';
import type { Sql } from './Sql';

/** A scope of at most this many endpoints drives a search whose text matches more (narrowScope); SQLite ranks them in memory. */
export const SCOPE_DRIVEN_UP_TO = RANKED_IN_MEMORY_UP_TO;

/**
 * One search's statement as it is built: the text's part by the engine's search, every other
 * condition of the criteria here, the same for both engines.
 */
export class SearchStatement {
  readonly where: string[] = [];
  readonly params: unknown[] = [];
  /** The parameters before the WHERE clause's: Postgres's common table expressions, SQLite's scope. */
  readonly leadingParams: unknown[] = [];
  from = 'endpoints e';
  id = 'e.id';
  rank = '0';
  /** The text's part checked visibility already (Postgres, with its matches). */
  visibilityChecked = false;

  constructor(
    protected readonly sql: Sql,
    readonly criteria: EndpointCriteria,
  ) {}

  cond(sql: string, ...values: unknown[]): void {
    this.where.push(sql);
    this.params.push(...values);
  }

  list(values: readonly unknown[]): string {
    return this.sql.list(values);
  }

  /**
   * Whether principals hold one of the roles on the endpoint `of`. `perRow`: looked up for each row;
   * OFFSET 0 keeps Postgres from turning the check into a hash of every role the principals hold,
   * built for each search (990 roles: 4 ms for one match).
   */
  holds(alias: string, h: { principalIds: readonly string[]; roles: readonly string[] }, { of = 'e.id', perRow = false } = {}): string {
    return `EXISTS (SELECT 1 FROM role_assignments ${alias} WHERE ${alias}.endpoint_id = ${of} AND ${alias}.principal_id IN (${this.list(h.principalIds)}) AND ${alias}.role IN (${this.list(h.roles)})${perRow ? ' OFFSET 0' : ''})`;
  }

  /** Public, or visible by the caller's roles: the parameters of that check. */
  get visibilityParams(): unknown[] {
    const { visibleTo } = this.criteria;
    return [true, ...visibleTo.principalIds, ...visibleTo.roles];
  }

  /** Every condition of the criteria but the text's. */
  filter(): void {
    const { criteria } = this;
    const list = (values: readonly unknown[]) => this.list(values);
    if (!this.visibilityChecked) this.cond(`(e.public = ? OR ${this.holds('v', criteria.visibleTo)})`, ...this.visibilityParams);
    if (criteria.ownedBy) this.cond(`e.owner_id IN (${list(criteria.ownedBy)})`, ...criteria.ownedBy);
    if (criteria.notOwnedBy) this.cond(`e.owner_id NOT IN (${list(criteria.notOwnedBy)})`, ...criteria.notOwnedBy);
    if (criteria.kinds) this.cond(`e.kind IN (${list(criteria.kinds)})`, ...criteria.kinds);
    if (criteria.holding) this.cond(this.holds('h', criteria.holding), ...criteria.holding.principalIds, ...criteria.holding.roles);
    if (criteria.grantedTo) {
      const { principalIds, now } = criteria.grantedTo;
      this.cond(
        `EXISTS (SELECT 1 FROM access_rules a WHERE a.endpoint_id = e.id AND (a.principal_type = 'all_authenticated_users' OR (a.principal_type IN ('identity', 'group') AND a.principal IN (${list(principalIds)}))) AND (a.expiration_date IS NULL OR a.expiration_date > ?))`,
        ...principalIds,
        toTime(now),
      );
    }
    if (criteria.hostId !== undefined) this.cond('e.host_endpoint_id = ?', criteria.hostId);
    if (criteria.hostKind) this.cond('EXISTS (SELECT 1 FROM endpoints he WHERE he.id = e.host_endpoint_id AND he.kind = ?)', criteria.hostKind);
    if (criteria.collection !== undefined) this.cond(`e.collection IS ${criteria.collection ? 'NOT ' : ''}NULL`);
    if (criteria.functional !== undefined) this.cond(`${criteria.functional ? 'NOT ' : ''}(e.kind = 'server' AND e.servers = '[]')`);
  }

  /** ` WHERE ...`, or nothing. */
  get whereClause(): string {
    return this.where.length > 0 ? ` WHERE ${this.where.join(' AND ')}` : '';
  }

  /** The page: its ids and ranks in order, best first with text, else oldest first. */
  page(): { sql: string; params: unknown[] } {
    const order = this.criteria.terms.length > 0 ? `rank DESC, ${this.id}` : 'e.created_at, e.id';
    return {
      sql: `SELECT ${this.id} AS id, ${this.rank} AS rank FROM ${this.from}${this.whereClause} ORDER BY ${order} LIMIT ? OFFSET ?`,
      params: [...this.leadingParams, ...this.params, this.criteria.limit, this.criteria.offset],
    };
  }
}

/**
 * The endpoint search of one engine: the engine's own text matching and paging (SqliteEndpointSearch,
 * PostgresEndpointSearch) around the conditions every search shares (SearchStatement).
 */
export abstract class EndpointSearch<S extends Sql, Q extends SearchStatement> implements EndpointSearcher {
  constructor(protected readonly sql: S) {}

  async search(criteria: EndpointCriteria): Promise<SearchHit[]> {
    const statement = this.statement(criteria);
    if (criteria.terms.length > 0 && !(await this.matchText(statement))) return [];
    statement.filter();
    return this.hits(statement);
  }

  protected abstract statement(criteria: EndpointCriteria): Q;

  /** Adds the text's part to the statement; false when nothing can match. */
  protected abstract matchText(statement: Q): Promise<boolean>;

  /** Runs the statement: the page of hits, with the caller's roles. */
  protected abstract hits(statement: Q): Promise<SearchHit[]>;

  /**
   * The ids of the criteria's narrow scope (the owners' endpoints, or those the holder holds one of
   * the roles on), when it holds at most SCOPE_DRIVEN_UP_TO endpoints while the text alone matches
   * more: the search then checks the text of each endpoint in scope, instead of finding every match
   * of a common word to keep the few in scope ("genomics" in my-endpoints at 1,000,000 endpoints:
   * 0.5-0.9 s on SQLite and 0.9-3.9 s on Postgres before, 35-120 ms after). `text` selects the
   * text's matches, or is `many` where they are taken to be more without counting them.
   */
  protected async narrowScope(criteria: EndpointCriteria, text: { sql: string; params: unknown[] } | 'many'): Promise<{ sql: string; params: unknown[] } | null> {
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
}
