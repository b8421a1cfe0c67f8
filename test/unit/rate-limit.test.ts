import { TokenBuckets } from '../../src/domain/rate-limit';

describe('TokenBuckets', () => {
  it('allows a burst, then refuses with a Retry-After, then refills at the rate', () => {
    const buckets = new TokenBuckets({ ratePerSecond: 2, burst: 3 });
    const t = 1_000_000;
    expect([1, 2, 3].map(() => buckets.take('k', t).allowed)).toEqual([true, true, true]);
    expect(buckets.take('k', t)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(buckets.take('k', t + 499).allowed).toBe(false);
    expect(buckets.take('k', t + 500).allowed).toBe(true);
    expect(buckets.take('k', t + 10_000).allowed).toBe(true); // refilled, capped at the burst
    expect([1, 2].map(() => buckets.take('k', t + 10_000).allowed)).toEqual([true, true]);
    expect(buckets.take('k', t + 10_000).allowed).toBe(false);
  });

  it('keeps keys apart: one key exhausted leaves the other untouched', () => {
    const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 2 });
    buckets.take('a', 0); buckets.take('a', 0);
    expect(buckets.take('a', 0).allowed).toBe(false);
    expect(buckets.take('b', 0).allowed).toBe(true);
    expect(buckets.take('b', 0).allowed).toBe(true);
  });

  it('retry-after grows with the deficit at low rates', () => {
    const buckets = new TokenBuckets({ ratePerSecond: 0.1, burst: 1 });
    expect(buckets.take('k', 0).allowed).toBe(true);
    expect(buckets.take('k', 0)).toEqual({ allowed: false, retryAfterSeconds: 10 });
  });

  it('forgets the least recently used keys beyond its capacity', () => {
    const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 1 }, 2);
    buckets.take('a', 0); buckets.take('b', 0); buckets.take('c', 0);
    expect(buckets.take('a', 0).allowed).toBe(true); // forgotten, so full again
  });

  it('knows a key once it took a token, and forgets it with the bucket', () => {
    const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 1 }, 1);
    expect(buckets.knows('a')).toBe(false);
    buckets.take('a', 0);
    expect(buckets.knows('a')).toBe(true);
    buckets.take('b', 0);
    expect(buckets.knows('a')).toBe(false);
  });
});
