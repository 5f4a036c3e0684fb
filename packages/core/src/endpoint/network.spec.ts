import { checkCustomSettings, checkNetworkUse, effectiveNetworkSettings, NETWORK_PRESETS } from './network';

describe('network use', () => {
  it('is one of minimal, normal, aggressive and custom', () => {
    for (const use of ['minimal', 'normal', 'aggressive', 'custom']) expect(checkNetworkUse(use)).toBe(use);
    expect(() => checkNetworkUse('fast')).toThrow("Invalid network_use 'fast': must be one of minimal, normal, aggressive, custom");
  });

  it('reads each preset as its four numbers, custom as its own, and none as null', () => {
    // as max_concurrency/preferred_concurrency/max_parallelism/preferred_parallelism: normal as the hosted service shows it
    expect(effectiveNetworkSettings('minimal', null)).toEqual({ max_concurrency: 2, preferred_concurrency: 1, max_parallelism: 2, preferred_parallelism: 1 });
    expect(effectiveNetworkSettings('normal', null)).toEqual({ max_concurrency: 4, preferred_concurrency: 2, max_parallelism: 8, preferred_parallelism: 4 });
    expect(effectiveNetworkSettings('aggressive', null)).toEqual({ max_concurrency: 16, preferred_concurrency: 8, max_parallelism: 16, preferred_parallelism: 8 });
    const custom = { max_concurrency: 5, preferred_concurrency: 3, max_parallelism: 7, preferred_parallelism: 6 };
    expect(effectiveNetworkSettings('custom', custom)).toBe(custom);
    expect(effectiveNetworkSettings('normal', custom)).toBe(NETWORK_PRESETS.normal);
    expect(effectiveNetworkSettings(null, custom)).toBeNull();
  });

  it('takes custom numbers within their ranges (concurrency 1-128, parallelism 1-64), each preferred value at most its maximum', () => {
    const ok = { max_concurrency: 128, preferred_concurrency: 128, max_parallelism: 64, preferred_parallelism: 64 };
    expect(checkCustomSettings(ok)).toBe(ok);
    const least = { max_concurrency: 1, preferred_concurrency: 1, max_parallelism: 1, preferred_parallelism: 1 };
    expect(checkCustomSettings(least)).toBe(least);
    const below = { max_concurrency: 4, preferred_concurrency: 2, max_parallelism: 2, preferred_parallelism: 1 };
    expect(checkCustomSettings(below)).toBe(below);
    const fails = (patch: Partial<typeof ok>) => () => checkCustomSettings({ ...ok, ...patch });
    expect(fails({ max_concurrency: 0 })).toThrow('Invalid max_concurrency: must be an integer from 1 to 128');
    expect(fails({ preferred_concurrency: 129 })).toThrow('Invalid preferred_concurrency: must be an integer from 1 to 128');
    expect(fails({ max_parallelism: 65 })).toThrow('Invalid max_parallelism: must be an integer from 1 to 64');
    expect(fails({ preferred_parallelism: 0 })).toThrow('Invalid preferred_parallelism: must be an integer from 1 to 64');
    expect(fails({ max_concurrency: 127 })).toThrow('Invalid preferred_concurrency: must be at most max_concurrency');
    expect(fails({ max_parallelism: 63 })).toThrow('Invalid preferred_parallelism: must be at most max_parallelism');
  });
});
