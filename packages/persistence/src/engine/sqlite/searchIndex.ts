import { FIELD_WEIGHTS, type SearchedField } from '../searchWeights';

/** FTS5's columns of `endpoint_search`, in the order migration EndpointSearch created them (frozen). */
export const FTS5_COLUMNS: readonly SearchedField[] = ['display_name', 'canonical_name', 'description', 'organization', 'department', 'keywords', 'owner_string'];

/** bm25 with each column's weight, from the shared field weights (negated: bm25 is lower for better). */
export function bm25Rank(): string {
  return `-bm25(endpoint_search, ${FTS5_COLUMNS.map((c) => FIELD_WEIGHTS.get(c)).join(', ')})`;
}
