import { SEARCHED_FIELDS } from '@xfer/core';

/** A searched field of the endpoint (core's SEARCHED_FIELDS). */
export type SearchedField = (typeof SEARCHED_FIELDS)[number][0];

/**
 * The weight of each searched field: core's SEARCHED_FIELDS, the one definition of the ranking,
 * from which each engine's index weights are derived (FTS5's bm25 column weights, Postgres's
 * tsvector labels and ts_rank weights), so that the three rank alike.
 */
export const FIELD_WEIGHTS: ReadonlyMap<SearchedField, number> = new Map(SEARCHED_FIELDS);

/** The distinct weights, heaviest first. */
export const DISTINCT_WEIGHTS: readonly number[] = [...new Set(FIELD_WEIGHTS.values())].sort((a, b) => b - a);
