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

/** At most this many matches SQLite ranks by their text (rankInMemory); more, with bm25. A scope this small drives a search (narrowScope). */
export const RANKED_IN_MEMORY_UP_TO = 2000;
