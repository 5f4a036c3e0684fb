import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { MAX_EXPANSION } from '../searchTerms';

/** What expanding terms reads (the Sql of a repository): rows, and values cached between writes. */
export interface ExpansionReader {
  rows<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  cached<T>(key: string, compute: () => Promise<T>): Promise<T>;
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
  private readonly db: Database.Database;

  constructor() {
    const db = (this.db = new Database(':memory:'));
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

  close(): void {
    this.db.close();
  }
}

/** The vocabulary's words that begin with a stem (parameters: vocabularyParams), at most one past MAX_EXPANSION. */
export const VOCABULARY_SQL = 'SELECT term FROM endpoint_search_terms WHERE term >= ? AND term < ? ORDER BY term LIMIT ?';

function vocabularyParams(stem: string): unknown[] {
  return [stem, after(stem), MAX_EXPANSION + 1];
}

/**
 * Search terms as FTS5 sees them, by FTS5's own tokenizer (on a private in-memory database, opened
 * with this object and closed by `close`): the engine has one, and the search thread one of its own.
 */
export class Fts5Terms {
  private tokenizer: Fts5Tokenizer | null = null;

  /** The tokenizer, made on first use: a process that never searches opens no database for it. */
  private get words(): Fts5Tokenizer {
    return (this.tokenizer ??= new Fts5Tokenizer());
  }

  /**
   * Each term's stem by FTS5, then the vocabulary's words that begin with it. Remembered until the
   * database changes (a search's terms often repeat: "storage" in every request of the bench, a
   * statement of four per search).
   */
  async expand(sql: ExpansionReader, terms: readonly string[]): Promise<ExpandedTerm[]> {
    const expanded: ExpandedTerm[] = [];
    for (const term of terms) expanded.push(await sql.cached(`fts5-expansion\u0000${term}`, () => this.expandTerm(sql, term)));
    return expanded;
  }

  /**
   * expand where the vocabulary is read synchronously (`words`: VOCABULARY_SQL's words for its
   * parameters), as the quick search thread reads it; nothing remembered.
   */
  expandNow(terms: readonly string[], words: (params: unknown[]) => string[]): ExpandedTerm[] {
    return terms.map((term) => {
      const stem = this.stemOf(term);
      return stem === null ? asExpanded(term, null) : this.fromWords(term, words(vocabularyParams(stem)));
    });
  }

  /**
   * Whether a text holds every expanded term as FTS5's MATCH would find it: one of a term's words,
   * or a word that starts with its stem (FTS5 stems a prefix query's term too: "archived"* finds
   * "archiv"). A search in a narrow scope matches its endpoints' text so, once each, instead of
   * asking FTS5 once per endpoint: a term that stays a prefix costs FTS5 a walk of every word it
   * begins for each endpoint asked (tens of milliseconds for one-letter terms).
   */
  textMatcher(expanded: readonly ExpandedTerm[]): (text: string) => boolean {
    const wanted = expanded.map((e): { prefix: string } | { words: Set<string> } => ('prefix' in e ? { prefix: this.stemOf(e.term) ?? e.term } : { words: new Set(e.words) }));
    return (text) => {
      const tokens = this.words.distinctTokens(text);
      return wanted.every((w) => ('prefix' in w ? tokens.some((t) => t.startsWith(w.prefix)) : tokens.some((t) => w.words.has(t))));
    };
  }

  close(): void {
    this.tokenizer?.close();
    this.tokenizer = null;
  }

  /** A term's single stem by FTS5's tokenizer, or null when it has none or several. */
  private stemOf(term: string): string | null {
    const stems = this.words.tokens(term);
    return stems.length === 1 ? stems[0] : null;
  }

  /** A term as the words its stem begins (VOCABULARY_SQL's), or still a prefix. */
  private fromWords(term: string, words: string[]): ExpandedTerm {
    // beyond the limit the words are not checked: the term stays a prefix anyway
    const usable = words.length <= MAX_EXPANSION && words.every((w) => this.words.standsForItself(w));
    return asExpanded(term, usable ? words : null);
  }

  private async expandTerm(sql: ExpansionReader, term: string): Promise<ExpandedTerm> {
    const stem = this.stemOf(term);
    if (stem === null) return asExpanded(term, null);
    return this.fromWords(term, (await sql.rows<{ term: string }>(VOCABULARY_SQL, vocabularyParams(stem))).map((r) => r.term));
  }
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
