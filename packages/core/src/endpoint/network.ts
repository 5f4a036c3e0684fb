import { BadRequestError } from '../shared/errors';
import { checkInteger } from '../shared/text';

export type NetworkUse = 'minimal' | 'normal' | 'aggressive' | 'custom';
export const NETWORK_USES: readonly NetworkUse[] = ['minimal', 'normal', 'aggressive', 'custom'];

export interface NetworkSettings {
  min_concurrency: number;
  preferred_concurrency: number;
  min_parallelism: number;
  preferred_parallelism: number;
}
export type NetworkNumber = keyof NetworkSettings;
export const NETWORK_NUMBERS: readonly NetworkNumber[] = [
  'min_concurrency',
  'preferred_concurrency',
  'min_parallelism',
  'preferred_parallelism',
];

/** What the four numbers read as under each preset (compat-notes). */
export const NETWORK_PRESETS: Record<Exclude<NetworkUse, 'custom'>, NetworkSettings> = {
  minimal: { min_concurrency: 1, preferred_concurrency: 1, min_parallelism: 1, preferred_parallelism: 1 },
  normal: { min_concurrency: 1, preferred_concurrency: 2, min_parallelism: 2, preferred_parallelism: 4 },
  aggressive: { min_concurrency: 2, preferred_concurrency: 8, min_parallelism: 4, preferred_parallelism: 16 },
};

export function checkNetworkUse(value: string): NetworkUse {
  if (!(NETWORK_USES as readonly string[]).includes(value)) {
    throw new BadRequestError(`Invalid network_use '${value}': must be one of ${NETWORK_USES.join(', ')}`);
  }
  return value as NetworkUse;
}

export function checkCustomSettings(settings: NetworkSettings): NetworkSettings {
  checkInteger('min_concurrency', settings.min_concurrency, 1, 128);
  checkInteger('preferred_concurrency', settings.preferred_concurrency, 1, 128);
  checkInteger('min_parallelism', settings.min_parallelism, 1, 64);
  checkInteger('preferred_parallelism', settings.preferred_parallelism, 1, 64);
  if (settings.min_concurrency > settings.preferred_concurrency) {
    throw new BadRequestError('Invalid min_concurrency: must be at most preferred_concurrency');
  }
  if (settings.min_parallelism > settings.preferred_parallelism) {
    throw new BadRequestError('Invalid min_parallelism: must be at most preferred_parallelism');
  }
  return settings;
}

/** The four numbers as a document shows them. */
export function effectiveNetworkSettings(use: NetworkUse | null, custom: NetworkSettings | null): NetworkSettings | null {
  if (use === null) return null;
  if (use === 'custom') return custom;
  return NETWORK_PRESETS[use];
}
