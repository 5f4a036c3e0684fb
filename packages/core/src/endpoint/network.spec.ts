import { checkCustomSettings, checkNetworkUse, effectiveNetworkSettings, NETWORK_PRESETS } from './network';

describe('network use', () => {
  it('is one of minimal, normal, aggressive and custom', () => {
    for (const use of ['minimal', 'normal', 'aggressive', 'custom']) expect(checkNetworkUse(use)).toBe(use);
    expect(() => checkNetworkUse('fast')).toThrow("Invalid network_use 'fast': must be one of minimal, normal, aggressive, custom");
  });

  it('reads each preset as its four numbers, custom as its own, and none as null', () => {
    expect(effectiveNetworkSettings('minimal', null)).toEqual({ min_concurrency: 1, preferred_concurrency: 1, min_parallelism: 1, preferred_parallelism: 1 });
    expect(effectiveNetworkSettings('normal', null)).toEqual({ min_concurrency: 1, preferred_concurrency: 2, min_parallelism: 2, preferred_parallelism: 4 });
    expect(effectiveNetworkSettings('aggressive', null)).toEqual({ min_concurrency: 2, preferred_concurrency: 8, min_parallelism: 4, preferred_parallelism: 16 });
    const custom = { min_concurrency: 3, preferred_concurrency: 5, min_parallelism: 6, preferred_parallelism: 7 };
    expect(effectiveNetworkSettings('custom', custom)).toBe(custom);
    expect(effectiveNetworkSettings('normal', custom)).toBe(NETWORK_PRESETS.normal);
    expect(effectiveNetworkSettings(null, custom)).toBeNull();
  });

  it('takes custom numbers within their ranges (concurrency 1-128, parallelism 1-64), each minimum at most its preferred value', () => {
    const ok = { min_concurrency: 128, preferred_concurrency: 128, min_parallelism: 64, preferred_parallelism: 64 };
    expect(checkCustomSettings(ok)).toBe(ok);
    const least = { min_concurrency: 1, preferred_concurrency: 1, min_parallelism: 1, preferred_parallelism: 1 };
    expect(checkCustomSettings(least)).toBe(least);
    const fails = (patch: Partial<typeof ok>) => () => checkCustomSettings({ ...ok, ...patch });
    expect(fails({ min_concurrency: 0 })).toThrow('Invalid min_concurrency: must be an integer from 1 to 128');
    expect(fails({ preferred_concurrency: 129 })).toThrow('Invalid preferred_concurrency: must be an integer from 1 to 128');
    expect(fails({ min_parallelism: 65 })).toThrow('Invalid min_parallelism: must be an integer from 1 to 64');
    expect(fails({ preferred_parallelism: 0 })).toThrow('Invalid preferred_parallelism: must be an integer from 1 to 64');
    expect(fails({ preferred_concurrency: 127 })).toThrow('Invalid min_concurrency: must be at most preferred_concurrency');
    expect(fails({ preferred_parallelism: 63 })).toThrow('Invalid min_parallelism: must be at most preferred_parallelism');
  });
});
