import { noReadMemo, randomIdGenerator, systemClock } from './ports';

describe('the default adapters', () => {
  it('reads the time from the system clock', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeInstanceOf(Date);
    expect(now.getTime()).toBeGreaterThanOrEqual(before);
    expect(now.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('makes a new random UUID each time', () => {
    const ids = new Set(Array.from({ length: 100 }, () => randomIdGenerator.uuid()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('remembers no read: each one is computed again', async () => {
    let computed = 0;
    const compute = async () => ++computed;
    expect(await noReadMemo.remember('k', compute)).toBe(1);
    expect(await noReadMemo.remember('k', compute)).toBe(2);
  });
});
