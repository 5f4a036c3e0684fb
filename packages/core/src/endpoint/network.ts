import { BadRequestError } from '../shared/errors';
import { checkInteger } from '../shared/text';

export type NetworkUse = 'minimal' | 'normal' | 'aggressive' | 'custom';
export const NETWORK_USES: readonly NetworkUse[] = ['minimal', 'normal', 'aggressive', 'custom'];

/**
 * The four numbers of network use, by the hosted service's names. `max_*` are ceilings (the spec's
 * `min_concurrency` and `min_parallelism` are older names of the same two numbers): the preferred
 * values are at most the maximum ones.
 */
export interface NetworkSettings {
  max_concurrency: number;
  preferred_concurrency: number;
  max_parallelism: number;
  preferred_parallelism: number;
}
export type NetworkNumber = keyof NetworkSettings;
export const NETWORK_NUMBERS: readonly NetworkNumber[] = [
  'max_concurrency',
  'preferred_concurrency',
  'max_parallelism',
  'preferred_parallelism',
];

/** What the four numbers read as under each preset (compat-notes): normal as the hosted service shows it, the others below and above. */
export const NETWORK_PRESETS: Record<Exclude<NetworkUse, 'custom'>, NetworkSettings> = {
  minimal: { max_concurrency: 2, preferred_concurrency: 1, max_parallelism: 2, preferred_parallelism: 1 },
  normal: { max_concurrency: 4, preferred_concurrency: 2, max_parallelism: 8, preferred_parallelism: 4 },
  aggressive: { max_concurrency: 16, preferred_concurrency: 8, max_parallelism: 16, preferred_parallelism: 8 },
};

export function checkNetworkUse(value: string): NetworkUse {
  if (!(NETWORK_USES as readonly string[]).includes(value)) {
    throw new BadRequestError(`Invalid network_use '${value}': must be one of ${NETWORK_USES.join(', ')}`);
  }
  return value as NetworkUse;
}

export function checkCustomSettings(settings: NetworkSettings): NetworkSettings {
  checkInteger('max_concurrency', settings.max_concurrency, 1, 128);
  checkInteger('preferred_concurrency', settings.preferred_concurrency, 1, 128);
  checkInteger('max_parallelism', settings.max_parallelism, 1, 64);
  checkInteger('preferred_parallelism', settings.preferred_parallelism, 1, 64);
  if (settings.preferred_concurrency > settings.max_concurrency) {
    throw new BadRequestError('Invalid preferred_concurrency: must be at most max_concurrency');
  }
  if (settings.preferred_parallelism > settings.max_parallelism) {
    throw new BadRequestError('Invalid preferred_parallelism: must be at most max_parallelism');
  }
  return settings;
}

/** The four numbers as a document shows them. */
export function effectiveNetworkSettings(use: NetworkUse | null, custom: NetworkSettings | null): NetworkSettings | null {
  if (use === null) return null;
  if (use === 'custom') return custom;
  return NETWORK_PRESETS[use];
}
