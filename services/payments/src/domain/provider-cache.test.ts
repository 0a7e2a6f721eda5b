import { describe, expect, it } from '@jest/globals';
import { ProviderLookupCache } from './provider-cache.js';

describe('provider look-ups', () => {
  it('asks the provider once per key while an answer is fresh, and again after a failure', async () => {
    const cache = new ProviderLookupCache(60_000);
    let calls = 0;
    const load = async () => ++calls;
    expect(
      await Promise.all([cache.get('s1', load), cache.get('s1', load), cache.get('s1', load)]),
    ).toEqual([1, 1, 1]);
    expect(await cache.get('s2', load)).toBe(2);
    const failing = cache.get('s3', async () => {
      throw new Error('provider down');
    });
    await expect(failing).rejects.toThrow('provider down');
    expect(await cache.get('s3', load)).toBe(3);
  });

  it('keeps nothing with a lifetime of 0', async () => {
    const cache = new ProviderLookupCache(0);
    let calls = 0;
    await cache.get('s', async () => ++calls);
    await cache.get('s', async () => ++calls);
    expect(calls).toBe(2);
  });
});
