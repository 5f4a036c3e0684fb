import { MAX_EXPANSION } from '../searchTerms';

/**
 * Postgres: the search's tsquery, worked out inside the search's own statement (a statement of its
 * own was a round trip more per search; at 1,000,000 endpoints the socket writes of the round trips
 * took a third of the API's time). Each term's lexeme by the `english` configuration, then the
 * vocabulary's words that begin with it, as a tsquery literal (the index's own lexemes, not stemmed
 * again); or a prefix for `to_tsquery` (stemmed) when they are too many or the term has no single
 * lexeme. A SELECT of one row: `query`, NULL when a term has no word at all (nothing matches), and
 * `prefixed`, whether some term stays a prefix (it may match thousands).
 */
export function tsqueryOfTerms(terms: readonly string[]): { sql: string; params: unknown[] } {
  // a word as a tsquery literal: in quotes, with its quotes doubled and its backslashes escaped
  const literal = String.raw`'''' || replace(replace(w.term, '\', '\\'), '''', '''''') || ''''`;
  const sql = `SELECT CASE WHEN bool_or(x.nothing) THEN NULL
                   WHEN count(x.prefix) = 0 THEN string_agg(x.words, ' & ')::tsquery
                   WHEN count(x.words) = 0 THEN to_tsquery('english', string_agg(x.prefix, ' & '))
                   ELSE to_tsquery('english', string_agg(x.prefix, ' & ')) && string_agg(x.words, ' & ')::tsquery END AS query,
                 count(x.prefix) > 0 AS prefixed
     FROM (SELECT v.stem IS NOT NULL AND w.count = 0 AS nothing,
                  CASE WHEN v.stem IS NULL OR w.count > ? THEN q.term || ':*' END AS prefix,
                  CASE WHEN w.count BETWEEN 1 AND ? THEN '(' || w.alternatives || ')' END AS words
           FROM unnest(?::text[]) q(term)
           CROSS JOIN LATERAL (SELECT CASE WHEN count(*) = 1 THEN min(x.lexeme) END AS stem FROM unnest(to_tsvector('english', q.term)) x) v
           CROSS JOIN LATERAL (SELECT count(*) AS count, string_agg(${literal}, ' | ') AS alternatives
                               FROM (SELECT t.term FROM endpoint_search_terms t WHERE t.term >= v.stem AND t.term < v.stem || chr(1114111) ORDER BY t.term LIMIT ?) w) w) x`;
  return { sql, params: [MAX_EXPANSION, MAX_EXPANSION, terms, MAX_EXPANSION + 1] };
}
