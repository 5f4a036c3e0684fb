import { DISTINCT_WEIGHTS, FIELD_WEIGHTS, type SearchedField } from '../searchWeights';

const LABELS = ['A', 'B', 'C', 'D'] as const;
export type TsvectorLabel = (typeof LABELS)[number];

/**
 * Postgres's tsvector label of each searched field: A for the heaviest weight, then B, C, D (as
 * the trigger of migration EndpointSearch sets them, frozen there; a test holds them together).
 */
export function tsvectorLabel(field: SearchedField): TsvectorLabel {
  const at = DISTINCT_WEIGHTS.indexOf(FIELD_WEIGHTS.get(field)!);
  if (at < 0 || at >= LABELS.length) throw new Error(`no tsvector label for the weight of ${field}`);
  return LABELS[at];
}

/** ts_rank's weights of the labels D, C, B, A: each label's field weight over the heaviest. */
export function tsRankWeights(): string {
  const weightOf = (label: TsvectorLabel) => DISTINCT_WEIGHTS[LABELS.indexOf(label)] ?? 0;
  const heaviest = DISTINCT_WEIGHTS[0];
  return `'{${(['D', 'C', 'B', 'A'] as const).map((l) => weightOf(l) / heaviest).join(',')}}'`;
}
