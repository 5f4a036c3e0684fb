import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
/** What expanding terms reads (the Sql of a repository): rows, and values cached between writes. */
export interface ExpansionReader {
  rows<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  cached<T>(key: string, compute: () => Promise<T>): Promise<T>;
}

/**
 * Search terms as exact words of the index's vocabulary (`endpoint_search_terms`). A term is a
 * prefix of a word; both engines answer a prefix by merging the posting lists of every word it
 * covers (a common word's: most of the catalogue), but seek in an exact word's. So each term
 * becomes the words that begin with its stem, when they are few; otherwise it stays a prefix.
 */

/** More words than this and a term stays a prefix (its posting lists are then small, or it is too short to help). */
export const MAX_EXPANSION = 64;

/**
 * Whether some term is so short that it is a prefix of much of the vocabulary, so that its search
 * may take long. At 1,000,000 endpoints, one request at a time on Postgres: "storage" and a number
 * of six digits 5 ms, of three 13-31 ms, of two 45-80 ms, of one 330-370 ms.
 */
export function hasShortTerm(terms: readonly string[]): boolean {
  return terms.some((term) => term.length <= 3);
}

/** What a search term became: `words` (exact, none means nothing matches), or still a prefix. */
export type ExpandedTerm = { term: string; words: string[] } | { term: string; prefix: true };

/** A term as its words, or still a prefix when they are too many (or its stem is unknown: null). */
function asExpanded(term: string, words: string[] | null): ExpandedTerm {
  return words === null || words.length > MAX_EXPANSION ? { term, prefix: true } : { term, words };
}

/** The exclusive upper bound of the words that begin with `stem`, in byte order. */
function after(stem: string): string {
  return `${stem}\u{10FFFF}`;
}

/**
 * FTS5's own tokenizer (the index's: porter over unicode61), on a private in-memory database so
 * that tokenizing writes nothing to the catalogue. Synchronous, like better-sqlite3.
 */
class Fts5Tokenizer {
  private readonly insert: Database.Statement;
  private readonly read: Database.Statement;
  private readonly clear: Database.Statement;
  private readonly readDistinct: Database.Statement;
  private readonly known = new LRUCache<string, string[]>({ max: 10_000 });

  constructor() {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE scratch USING fts5(text, content='', tokenize='porter unicode61 remove_diacritics 2');
             CREATE VIRTUAL TABLE scratch_tokens USING fts5vocab(scratch, instance)`);
    this.insert = db.prepare('INSERT INTO scratch (rowid, text) VALUES (1, ?)');
    this.read = db.prepare('SELECT term FROM scratch_tokens ORDER BY "offset"').pluck();
    this.readDistinct = db.prepare('SELECT DISTINCT term FROM scratch_tokens').pluck();
    this.clear = db.prepare(`INSERT INTO scratch (scratch) VALUES ('delete-all')`);
  }

  /** The index's distinct words of a long text (an endpoint's searched fields), not remembered: 0.2 ms for 10 KB. */
  distinctTokens(text: string): string[] {
    this.insert.run(text);
    const tokens = this.readDistinct.all() as string[];
    this.clear.run();
    return tokens;
  }

  /** The index's words for `text`, in order. */
  tokens(text: string): string[] {
    // lower-case ASCII letters and digits ending in a digit: one token that porter leaves as it is
    // (each of its rules removes or changes letters at the end of a word)
    if (/^[a-z0-9]*[0-9]$/.test(text)) return [text];
    let tokens = this.known.get(text);
    if (!tokens) {
      this.insert.run(text);
      tokens = this.read.all() as string[];
      this.clear.run();
      this.known.set(text, tokens);
    }
    return tokens;
  }

  /**
   * Whether `word` in a MATCH expression means exactly that word: the query is tokenized again,
   * and porter is not idempotent ("agreed" is indexed as "agre", which it stems to "agr").
   */
  standsForItself(word: string): boolean {
    const tokens = this.tokens(word);
    return tokens.length === 1 && tokens[0] === word;
  }
}

let tokenizer: Fts5Tokenizer | undefined;

/**
 * SQLite: each term's stem by FTS5, then the vocabulary's words that begin with it. Remembered
 * until the database changes (a search's terms often repeat: "storage" in every request of the
 * bench, a statement of four per search).
 */
export async function expandForFts5(sql: ExpansionReader, terms: readonly string[]): Promise<ExpandedTerm[]> {
  const expanded: ExpandedTerm[] = [];
  for (const term of terms) expanded.push(await sql.cached(`fts5-expansion\u0000${term}`, () => expandTermForFts5(sql, term)));
  return expanded;
}

/** The vocabulary's words that begin with a stem (parameters: vocabularyParams), at most one past MAX_EXPANSION. */
export const VOCABULARY_SQL = 'SELECT term FROM endpoint_search_terms WHERE term >= ? AND term < ? ORDER BY term LIMIT ?';

function vocabularyParams(stem: string): unknown[] {
  return [stem, after(stem), MAX_EXPANSION + 1];
}

/** A term's single stem by FTS5's tokenizer, or null when it has none or several. */
function stemOf(term: string): string | null {
  tokenizer ??= new Fts5Tokenizer();
  const stems = tokenizer.tokens(term);
  return stems.length === 1 ? stems[0] : null;
}

/** A term as the words its stem begins (VOCABULARY_SQL's), or still a prefix. */
function fromWords(term: string, words: string[]): ExpandedTerm {
  // beyond the limit the words are not checked: the term stays a prefix anyway
  const usable = words.length <= MAX_EXPANSION && words.every((w) => tokenizer!.standsForItself(w));
  return asExpanded(term, usable ? words : null);
}

async function expandTermForFts5(sql: ExpansionReader, term: string): Promise<ExpandedTerm> {
  const stem = stemOf(term);
  if (stem === null) return asExpanded(term, null);
  return fromWords(term, (await sql.rows<{ term: string }>(VOCABULARY_SQL, vocabularyParams(stem))).map((r) => r.term));
}

/**
 * expandForFts5 where the vocabulary is read synchronously (`words`: VOCABULARY_SQL's words for its
 * parameters), as the quick search thread reads it; nothing remembered.
 */
export function expandForFts5Now(terms: readonly string[], words: (params: unknown[]) => string[]): ExpandedTerm[] {
  return terms.map((term) => {
    const stem = stemOf(term);
    return stem === null ? asExpanded(term, null) : fromWords(term, words(vocabularyParams(stem)));
  });
}

/**
 * Whether a text holds every expanded term as FTS5's MATCH would find it: one of a term's words,
 * or a word that starts with its stem (FTS5 stems a prefix query's term too: "archived"* finds
 * "archiv"). A search in a narrow scope matches its endpoints' text so, once each, instead of
 * asking FTS5 once per endpoint: a term that stays a prefix costs FTS5 a walk of every word it
 * begins for each endpoint asked (tens of milliseconds for one-letter terms).
 */
export function textMatcher(expanded: readonly ExpandedTerm[]): (text: string) => boolean {
  const wanted = expanded.map((e): { prefix: string } | { words: Set<string> } => ('prefix' in e ? { prefix: stemOf(e.term) ?? e.term } : { words: new Set(e.words) }));
  return (text) => {
    const tokens = (tokenizer ??= new Fts5Tokenizer()).distinctTokens(text);
    return wanted.every((w) => ('prefix' in w ? tokens.some((t) => t.startsWith(w.prefix)) : tokens.some((t) => w.words.has(t))));
  };
}

/**
 * The FTS5 MATCH expression of expanded terms (every term AND, each its words OR or a prefix), and
 * whether some term stays a prefix (it may match thousands); null when a term has no word at all,
 * so nothing matches.
 */
export function fts5Match(expanded: readonly ExpandedTerm[]): { query: string; prefixed: boolean } | null {
  if (expanded.some((e) => !('prefix' in e) && e.words.length === 0)) return null;
  const quoted = (s: string) => `"${s.replace(/"/g, '""')}"`;
  return {
    query: expanded.map((e) => ('prefix' in e ? `${quoted(e.term)}*` : `(${e.words.map(quoted).join(' OR ')})`)).join(' AND '),
    prefixed: expanded.some((e) => 'prefix' in e),
  };
}

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
