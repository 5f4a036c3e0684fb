import type { EndpointCriteria, SearchedText, SearchHit } from '@xfer/core';
import { groupWithRoles, SELECT_WITH_ROLES, type EndpointRow } from '../../repositories/endpointRows';
import { EndpointSearch, SearchStatement } from '../EndpointSearch';
import { fts5Match, type ExpandedTerm, type Fts5Terms } from './fts5';
import { matchingText, RANKED_IN_MEMORY_UP_TO, rankInMemory, runToEnd, SEARCHED_COLUMNS, type RankedPage, type RankedSearch, type SearchThread } from './SearchThread';
import { bm25Rank } from './searchIndex';
import type { SqliteSql } from './SqliteSql';

/** A search of at most this many matches is answered whole on the quick thread (most find one or two). */
const FEW_MATCHES = 100;
/** The MATCH expression until it is worked out (never run: matches nothing if it were). */
const UNEXPANDED = '""';

/** The hits of a ranked page from rows of endpoints with roles (in any order; others ignored). */
function inPageOrder(page: RankedPage, rows: readonly EndpointRow[]): SearchHit[] {
  const byId = new Map(groupWithRoles(rows).map((hit) => [hit.endpoint.id, hit]));
  const hits: SearchHit[] = [];
  for (const { id, rank } of page) {
    const hit = byId.get(id);
    if (hit) hits.push({ endpoint: hit.endpoint, assignments: hit.assignments, rank });
  }
  return hits;
}

/** An SQLite search as it is built: how its text is matched, beside the shared conditions. */
class SqliteSearchStatement extends SearchStatement {
  /** Some term is still a prefix, so its matches may be thousands. */
  manyMatches = false;
  /** The MATCH expression's parameter (of matches and page) when the quick thread works it out. */
  unexpandedAt: number | undefined;
  /** The expanded terms, where the matches are a narrow scope's endpoints whose text is yet to match. */
  textMatch: ExpandedTerm[] | undefined;
}

/** The threads and the term expansion an SQLite search uses: the engine's. */
export interface SqliteSearchParts {
  terms: Fts5Terms;
  /** Searches of many matches, off the event loop (null: an in-memory database, searched on it). */
  searchThread: SearchThread | null;
  /** Searches expected to find few matches, whole. */
  quickSearchThread: SearchThread | null;
}

/**
 * SQLite's endpoint search: FTS5 on porter-stemmed tokens, terms expanded to the index's words;
 * matches ranked in memory by core's searchRank where they are few, else by bm25 with the shared
 * field weights; the searches themselves on the engine's threads where it has them.
 */
export class SqliteEndpointSearch extends EndpointSearch<SqliteSql, SqliteSearchStatement> {
  constructor(
    sql: SqliteSql,
    private readonly parts: SqliteSearchParts,
  ) {
    super(sql);
  }

  protected statement(criteria: EndpointCriteria): SqliteSearchStatement {
    return new SqliteSearchStatement(this.sql, criteria);
  }

  protected async matchText(q: SqliteSearchStatement): Promise<boolean> {
    const { criteria } = q;
    if (!criteria.ownedBy && !criteria.holding && this.parts.quickSearchThread?.running) {
      // no scope to narrow to: the quick thread expands the terms itself, with the search
      q.from = `endpoint_search s JOIN endpoints e ON e.rowid = s.rowid`;
      q.rank = bm25Rank();
      q.unexpandedAt = q.leadingParams.length + q.params.length;
      q.cond('endpoint_search MATCH ?', UNEXPANDED);
      return true;
    }
    // FTS5 on porter-stemmed tokens, each term its words or a prefix; bm25 with the column weights (lower is better)
    const expanded = await this.parts.terms.expand(this.sql, criteria.terms);
    const match = fts5Match(expanded);
    if (match === null) return false;
    const { query, prefixed } = match;
    // a prefix of many words is taken to match many: counting would merge all their entries here, on the event loop
    const scope = await this.narrowScope(criteria, prefixed ? 'many' : { sql: 'SELECT rowid FROM endpoint_search WHERE endpoint_search MATCH ?', params: [query] });
    q.manyMatches = scope !== null || prefixed;
    if (scope) {
      // in a narrow scope, its endpoints (CROSS JOIN: in that order), their text matched by the
      // search thread a few at a time (textMatch), never by FTS5 once per endpoint: a term that
      // stays a prefix costs FTS5 a walk of every word it begins, for each endpoint asked (a
      // thousand endpoints and twenty one-letter terms: a minute). At most SCOPE_DRIVEN_UP_TO,
      // so ranked in memory.
      q.from = `(${scope.sql}) sc CROSS JOIN endpoints e`;
      q.leadingParams.push(...scope.params);
      q.cond('e.id = sc.id');
      q.textMatch = expanded;
    } else {
      q.from = `endpoint_search s JOIN endpoints e ON e.rowid = s.rowid`;
      q.rank = bm25Rank();
      q.cond('endpoint_search MATCH ?', query);
    }
    return true;
  }

  /** The page (its matches ranked in memory where they are few), with its rows. */
  protected async hits(q: SqliteSearchStatement): Promise<SearchHit[]> {
    const { criteria } = q;
    const page = q.page();
    const { principalIds } = criteria.visibleTo;
    if (criteria.terms.length === 0) return this.withRows(await this.sql.rows<{ id: string; rank: number }>(page.sql, page.params), principalIds);
    const search: RankedSearch = {
      matches: `SELECT e.id AS id, ${SEARCHED_COLUMNS} FROM ${q.from}${q.whereClause} LIMIT ?`,
      matchParams: [...q.leadingParams, ...q.params],
      page: page.sql,
      pageParams: page.params,
      terms: criteria.terms,
      offset: criteria.offset,
      limit: criteria.limit,
      textMatch: q.textMatch,
    };
    return this.rankedHits(search, q.manyMatches, principalIds, q.unexpandedAt);
  }

  /** The endpoints of a page with the caller's roles; its last parameter is the page's ids as a JSON array. */
  private pageRows(principalIds: readonly string[]): string {
    return `${SELECT_WITH_ROLES} FROM endpoints e LEFT JOIN role_assignments r ON r.endpoint_id = e.id AND r.principal_id IN (${this.sql.list(principalIds)}) WHERE e.id IN (SELECT value FROM json_each(?))`;
  }

  /** A page's endpoints with the caller's roles, in the page's order. */
  private async withRows(hits: RankedPage, principalIds: readonly string[]): Promise<SearchHit[]> {
    if (hits.length === 0) return [];
    const rows = await this.sql.rows<EndpointRow>(this.pageRows(principalIds), [...principalIds, JSON.stringify(hits.map((p) => p.id))]);
    return inPageOrder(hits, rows);
  }

  /**
   * The matches found unranked and ranked by their text, or by bm25 when they are many
   * (rankInMemory), off the event loop where the threads run. A search with a term that is still a
   * prefix of many words goes to the search thread at once; any other to the quick thread first,
   * which answers it whole (its page's rows too) when it finds at most FEW_MATCHES matches, as most
   * do, and else leaves it to the search thread: searches of many matches never hold up the event
   * loop or the searches of few. With `unexpandedAt`, the quick thread also works out the MATCH
   * expression (that parameter); where it does not answer, it is worked out here.
   */
  private async rankedHits(search: RankedSearch, manyMatches: boolean, principalIds: readonly string[], unexpandedAt?: number): Promise<SearchHit[]> {
    const thread = this.parts.searchThread?.running ? this.parts.searchThread : null;
    if (thread && !manyMatches) {
      const few = await this.fewMatches(search, principalIds, unexpandedAt);
      if (few !== null) return few;
    }
    if (unexpandedAt !== undefined) {
      // the quick thread found a prefix, or more than a few matches: the query is worked out here
      const match = fts5Match(await this.parts.terms.expand(this.sql, search.terms));
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
    const matches = runToEnd(matchingText(read, search.textMatch, this.parts.terms));
    return this.withRows(rankInMemory(matches, search) ?? (await this.sql.rows<{ id: string; rank: number }>(search.page, search.pageParams)), principalIds);
  }

  /**
   * The page of a search of at most FEW_MATCHES matches with its rows (null if more), on the quick
   * thread where it runs; `unexpandedAt`: the MATCH parameter that the thread works out (null where
   * it cannot run: the query is then worked out on the event loop).
   */
  private async fewMatches(search: RankedSearch, principalIds: readonly string[], unexpandedAt?: number): Promise<SearchHit[] | null> {
    const quick = this.parts.quickSearchThread?.running ? this.parts.quickSearchThread : null;
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
}
