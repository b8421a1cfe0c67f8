// The request limits in the process (no REDIS_URL): a burst at once, then the rate; keys and
// addresses each have their own counts; the known keys stay bounded.
import { RequestLimits } from '../../src/web/request-limits';

const limits = (maxKnownKeys?: number) => new RequestLimits({
  perKey: { ratePerSecond: 2, burst: 5 }, perAddress: { ratePerSecond: 1, burst: 3 }, redisUrl: null, redisPrefix: 'unit', redisCommandTimeoutMs: 250,
}, maxKnownKeys);

it('answers a full burst at once, then refuses with a Retry-After of at least a second', async () => {
  const l = limits();
  const decisions = [];
  for (let i = 0; i < 7; i += 1) decisions.push(await l.key('k1'));
  expect(decisions.slice(0, 5).every((d) => d.allowed)).toBe(true);
  expect(decisions.slice(5)).toEqual([{ allowed: false, retryAfterSeconds: expect.any(Number) }, { allowed: false, retryAfterSeconds: expect.any(Number) }]);
  const refused = decisions[5] as { retryAfterSeconds: number };
  expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  // Another key, and an address, keep their own capacity.
  expect(await l.key('k2')).toEqual({ allowed: true });
  expect(await l.address('203.0.113.7')).toEqual({ allowed: true });
});

it('gives the rate back after the window', async () => {
  const l = limits();
  for (let i = 0; i < 5; i += 1) await l.key('k');
  expect((await l.key('k')).allowed).toBe(false);
  await new Promise((r) => setTimeout(r, 1100));
  expect((await l.key('k')).allowed).toBe(true);
});

it('limits addresses with their own settings', async () => {
  const l = limits();
  const decisions = [];
  for (let i = 0; i < 4; i += 1) decisions.push((await l.address('198.51.100.1')).allowed);
  expect(decisions).toEqual([true, true, true, false]);
  expect((await l.address('198.51.100.2')).allowed).toBe(true);
});

it('knows the keys it limited, the most recent ones up to its bound', async () => {
  const l = limits(2);
  expect(l.knows('a')).toBe(false);
  await l.key('a');
  await l.key('b');
  await l.key('a');
  await l.key('c');
  expect([l.knows('a'), l.knows('b'), l.knows('c')]).toEqual([true, false, true]);
  expect(l.shared()).toBe(false);
});
