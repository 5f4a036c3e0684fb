import { isMainThread, parentPort, workerData, type Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { searchRank, SEARCHED_FIELDS, type SearchedText } from '@xfer/core';
import { RANKED_IN_MEMORY_UP_TO } from '../searchTerms';
import { literalMaker } from '../objectLiteral';
import { READY, startWorker, type StartReport } from '../workers';

export { RANKED_IN_MEMORY_UP_TO };
import { fts5Match, Fts5Terms, VOCABULARY_SQL, type ExpandedTerm } from './fts5';


/** The searched columns of the endpoint `e`, as rankInMemory reads them. */
export const SEARCHED_COLUMNS = SEARCHED_FIELDS.map(([field]) => `e.${field}`).join(', ');

export type RankedPage = { id: string; rank: number }[];

/**
 * An SQLite search whose matches are ranked: `matches` reads each match's id and searched text (its
 * last parameter, not in matchParams: how many at most), `page` ranks with bm25 when they are more
 * than RANKED_IN_MEMORY_UP_TO. Parameters as better-sqlite3 binds them.
 */
export interface RankedSearch {
  matches: string;
  matchParams: unknown[];
  page: string;
  pageParams: unknown[];
  terms: string[];
  offset: number;
  limit: number;
  /**
   * The terms as expanded, when `matches` reads a narrow scope's endpoints without matching their
   * text: each endpoint's text is then matched here (textMatcher), a few at a time.
   */
  textMatch?: ExpandedTerm[];
}

/** Endpoints whose text is matched between two looks at the other searches waiting (0.2 ms each for 10 KB of text). */
const TEXT_MATCHES_PER_STEP = 10;

/**
 * The matches of a search that still holds every term: all of them without `textMatch`; else
 * those whose searched text holds every term, found a few at a time, yielding in between so that
 * the thread can serve other searches meanwhile.
 */
export function* matchingText<Row extends SearchedText>(matches: readonly Row[], textMatch: readonly ExpandedTerm[] | undefined, terms: Fts5Terms): Generator<void, Row[]> {
  if (!textMatch) return [...matches];
  const holds = terms.textMatcher(textMatch);
  const kept: Row[] = [];
  // a narrow scope holds at most RANKED_IN_MEMORY_UP_TO (one that grew since it was counted: its first), all ranked in memory
  for (let i = 0; i < matches.length && kept.length < RANKED_IN_MEMORY_UP_TO; i++) {
    if (holds(SEARCHED_FIELDS.map(([field]) => matches[i][field] ?? '').join('\n'))) kept.push(matches[i]);
    if ((i + 1) % TEXT_MATCHES_PER_STEP === 0) yield;
  }
  return kept;
}

/** Runs a generator of steps to its end at once (where nothing else waits for the thread). */
export function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The page of `matches` ranked by core's searchRank, or null when they are more than
 * RANKED_IN_MEMORY_UP_TO: bm25 counts, for every term, all the documents that hold it (a whole
 * doclist per term and query: 25 ms for "storage" at 1,000,000 endpoints, however few the
 * matches), while finding the matches seeks; reading a few thousand matches' text costs less
 * (7 ms for 1,600), but past that as much as bm25, and it is wasted when the matches are more
 * still (5,001 rows' text for a 2-digit search at 1,000,000 endpoints: 42-131 ms).
 */
export function rankInMemory(matches: readonly (SearchedText & { id: string })[], search: Pick<RankedSearch, 'terms' | 'offset' | 'limit'>): RankedPage | null {
  if (matches.length > RANKED_IN_MEMORY_UP_TO) return null;
  return matches
    .map((m) => ({ id: m.id, rank: searchRank(m, search.terms, { stemmed: true }) ?? 0 }))
    .sort((a, b) => b.rank - a.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(search.offset, search.offset + search.limit);
}

/** The page's rows: `rows` takes the page's ids as a JSON array, its last parameter. */
export type PageRows = { rows: string; rowsParams: unknown[] };

/**
 * A search expected to find few matches, answered whole on the quick thread: its matches
 * (`matches`, at most `most`), ranked in memory, then the page's rows by `rows`, which takes the
 * page's ids as a JSON array, its last parameter. None when the matches are more than `most`.
 * With `expandAt`, the thread works out the FTS5 query of `terms` itself (expandForFts5Now) into
 * that parameter of `matches`, so that the event loop reads no vocabulary; none either when a term
 * stays a prefix (it may match thousands), and an empty page when one has no word at all.
 */
export interface FewSearch extends PageRows {
  matches: string;
  matchParams: unknown[];
  expandAt?: number;
  most: number;
  terms: string[];
  offset: number;
  limit: number;
}

/** A ranked page with its rows, read by the thread: on the event loop, 25 rows at 100,000 endpoints took 0.8 ms. */
export type PageWithRows<Row> = { page: RankedPage; rows: Row[] };

export type FewAnswer<Row> = PageWithRows<Row> | null;

/**
 * Rows as the thread sends them: the column names once, each row's values in their order. Objects
 * of forty columns cost the thread twice as long to read as arrays (0.26 against 0.12 ms for a
 * page of 25) and twice the bytes to clone; the event loop makes the objects from a literal.
 */
type RawRows = { columns: string[]; values: unknown[][] };
type RawAnswer = { page: RankedPage; rows: RawRows } | null;

type Job = { id: number; search: RankedSearch & PageRows } | { id: number; few: FewSearch };
type Reply = { id: number; answer: RawAnswer } | { id: number; error: string };

/** Makes row objects of raw rows: one function per list of columns, made once (every object of one shape). */
class RowMaker {
  private readonly makers = new Map<string, (values: unknown[]) => unknown>();

  rows<Row>(raw: RawRows): Row[] {
    const key = raw.columns.join('\u0000');
    let make = this.makers.get(key);
    if (!make) this.makers.set(key, (make = literalMaker<unknown[], unknown>(raw.columns, (_column, i) => `from[${i}]`)));
    return raw.values.map(make) as Row[];
  }

  answer<Row>(answer: RawAnswer): FewAnswer<Row> {
    return answer && { page: answer.page, rows: this.rows<Row>(answer.rows) };
  }
}

/**
 * A thread with its own connection to an SQLite file, for searches. There are two: one ranks the
 * searches of thousands of matches (on the one event loop, each held up every other request for
 * as long as it took: "storage 543" at 1,000,000 endpoints 15-20 ms, "storage 54" 120 ms,
 * "storage" 1.8 s); the quick one answers those of few. It sees what is committed, as the main
 * connection does outside a transaction.
 */
export class SearchThread {
  private readonly pending = new Map<number, { resolve: (answer: never) => void; reject: (error: Error) => void }>();
  private lastId = 0;
  private failure: Error | null = null;
  private readonly rowMaker = new RowMaker();

  /** Starts a thread on an SQLite file; rejects when it cannot (start-up then fails, saying so). */
  static async start(file: string, what: string): Promise<SearchThread> {
    return new SearchThread(await startWorker(what, __filename, { searchDatabase: file }));
  }

  private constructor(private readonly worker: Worker) {
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.worker.unref();
      if ('error' in reply) waiting?.reject(new Error(reply.error));
      else waiting?.resolve(reply.answer as never);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the search thread exited (code ${code})`)));
  }

  /** Whether the thread still runs (else searches run on the main thread). */
  get running(): boolean {
    return this.failure === null;
  }

  /** A search of many matches: its page, and the page's rows. */
  async rank<Row>(search: RankedSearch & PageRows): Promise<PageWithRows<Row>> {
    return this.rowMaker.answer<Row>(await this.send<RawAnswer>((id) => ({ id, search })))!;
  }

  /** A search of few matches, whole (see FewSearch). */
  async few<Row>(few: FewSearch): Promise<FewAnswer<Row>> {
    return this.rowMaker.answer<Row>(await this.send<RawAnswer>((id) => ({ id, few })));
  }

  private send<T>(job: (id: number) => Job): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = ++this.lastId;
    // a search waiting here keeps the process alive, as one on the main thread would
    if (this.pending.size === 0) this.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (answer: never) => void, reject });
      this.worker.postMessage(job(id));
    });
  }

  async close(): Promise<void> {
    this.failure ??= new Error('the search thread was closed');
    await this.worker.terminate();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

/** How long the thread works on one search before it looks at the others waiting. */
const SLICE_MS = 3;

/**
 * The thread's side: searches on its own connection, taken in turns. Each search is a sequence of
 * steps; the thread works on one for up to SLICE_MS, then puts it behind the others waiting, so a
 * costly search (the text of a narrow scope's thousand endpoints) never holds up another's answer
 * for more than a slice, whoever asked first.
 */
function serve(file: string, terms: Fts5Terms): void {
  const db = new Database(file, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  // it only reads: a write here would bypass the main connection's transactions and the read cache
  db.pragma('query_only = ON');
  const statements = new Map<string, Database.Statement>();
  const prepared = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  const all = (sql: string, params: unknown[]) => prepared(sql).all(...params);
  // the page's rows as arrays (their statements read nothing else)
  const rawRows = new Map<string, { statement: Database.Statement; columns: string[] }>();
  const withRows = (page: RankedPage, { rows, rowsParams }: PageRows): NonNullable<RawAnswer> => {
    let read = rawRows.get(rows);
    if (!read) {
      const statement = db.prepare(rows).raw(true);
      rawRows.set(rows, (read = { statement, columns: statement.columns().map((c) => c.name) }));
    }
    return { page, rows: { columns: read.columns, values: page.length === 0 ? [] : (read.statement.all(...rowsParams, JSON.stringify(page.map((p) => p.id))) as unknown[][]) } };
  };

  function* answer(job: Job): Generator<void, RawAnswer> {
    if ('few' in job) {
      const { few } = job;
      const matchParams = [...few.matchParams];
      if (few.expandAt !== undefined) {
        const match = fts5Match(terms.expandNow(few.terms, (params) => (all(VOCABULARY_SQL, params) as { term: string }[]).map((r) => r.term)));
        if (match === null) return { page: [], rows: { columns: [], values: [] } };
        if (match.prefixed) return null;
        matchParams[few.expandAt] = match.query;
      }
      const matches = all(few.matches, [...matchParams, few.most + 1]) as (SearchedText & { id: string })[];
      if (matches.length > few.most) return null;
      return withRows(rankInMemory(matches, few)!, few);
    }
    const { search } = job;
    const read = all(search.matches, [...search.matchParams, RANKED_IN_MEMORY_UP_TO + 1]) as (SearchedText & { id: string })[];
    yield;
    const matches = yield* matchingText(read, search.textMatch, terms);
    const page = rankInMemory(matches, search) ?? (all(search.page, search.pageParams) as RankedPage);
    return withRows(page, search);
  }

  const turns: { id: number; steps: Generator<void, RawAnswer> }[] = [];
  let scheduled = false;
  const schedule = () => {
    if (scheduled || turns.length === 0) return;
    scheduled = true;
    // setImmediate: the messages that came meanwhile join the turns before the next slice
    setImmediate(slice);
  };
  function slice() {
    scheduled = false;
    const turn = turns.shift()!;
    const until = performance.now() + SLICE_MS;
    try {
      for (;;) {
        const step = turn.steps.next();
        if (step.done) {
          parentPort!.postMessage({ id: turn.id, answer: step.value } satisfies Reply);
          break;
        }
        if (performance.now() >= until) {
          turns.push(turn);
          break;
        }
      }
    } catch (error) {
      parentPort!.postMessage({ id: turn.id, error: (error as Error).message } satisfies Reply);
    }
    schedule();
  }
  parentPort!.on('message', (job: Job) => {
    turns.push({ id: job.id, steps: answer(job) });
    schedule();
  });
}

if (!isMainThread && (workerData as { searchDatabase?: string } | null)?.searchDatabase) {
  try {
    serve((workerData as { searchDatabase: string }).searchDatabase, new Fts5Terms());
    parentPort!.postMessage(READY satisfies StartReport);
  } catch (error) {
    parentPort!.postMessage({ failed: (error as Error).message } satisfies StartReport);
  }
}
