// The request limits with REDIS_URL: one limit per key across API replicas, a limit per client
// address that random keys cannot get around, and what happens while Redis does not answer (each
// process limits on its own, every request is still answered).
import net from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RunningApi } from '../../src/api/server';
import { call, createMerchant, eventually, startTestApi } from '../helpers/api';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

const REDIS = { host: '127.0.0.1', port: Number(process.env.TEST_REDIS_PORT ?? 6379) };
const redisUrl = (port = REDIS.port) => `redis://${REDIS.host}:${port}`;
/** Every test counts under a prefix of its own, so runs and tests never share counts. */
const prefix = () => `test-rl-${randomUUID()}`;

const apis: RunningApi[] = [];
async function api(overrides: Parameters<typeof startTestApi>[0]): Promise<RunningApi> {
  // A loaded test machine may take Redis past the production time-out; the fallback has tests of its own.
  const started = await startTestApi({ rateLimitPerSecond: 1, rateLimitBurst: 5, redisCommandTimeoutMs: 3000, ...overrides });
  apis.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(apis.splice(0).map((a) => a.close()));
});

async function storeUp(a: RunningApi): Promise<number> {
  return (await a.deps.metrics.rateLimitStoreUp.get()).values[0]!.value;
}

/** `count` requests of one key, spread over `targets` in turn, all at once or one after another. */
async function statuses(targets: RunningApi[], key: string, count: number, together = false): Promise<{ seen: number[]; seconds: number }> {
  const started = Date.now();
  const send = (i: number) => call(targets[i % targets.length]!, 'GET', '/v1/payments', { key }).then((r) => r.status);
  const seen: number[] = [];
  if (together) seen.push(...await Promise.all(Array.from({ length: count }, (_, i) => send(i))));
  else for (let i = 0; i < count; i += 1) seen.push(await send(i));
  return { seen, seconds: (Date.now() - started) / 1000 };
}

/**
 * The limit of rate 1/s and burst 5 held: the burst, plus one per second window the requests
 * spanned (a loaded machine may take seconds), and the rest refused.
 */
function expectOneLimit({ seen, seconds }: { seen: number[]; seconds: number }): void {
  const allowed = seen.filter((s) => s === 200).length;
  expect(allowed).toBeGreaterThanOrEqual(5);
  expect(allowed).toBeLessThanOrEqual(5 + Math.ceil(seconds));
  expect(seen.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
}

it('two API replicas sharing REDIS_URL allow one key the one limit between them', async () => {
  const shared = { redisUrl: redisUrl(), redisKeyPrefix: prefix() };
  const a = await api(shared);
  const b = await api(shared);
  const merchant = await createMerchant(a);
  // 10 requests to each replica at once: each alone would allow its 10 five at least.
  const result = await statuses([a, b], merchant.testKey, 20, true);
  expect(result.seconds).toBeLessThan(4);
  expectOneLimit(result);
  expect((await a.deps.metrics.rateLimitStoreFallbacks.get()).values[0]!.value).toBe(0);
  // Both replicas refused some, as they count the same requests.
  expect(result.seen.filter((s, i) => s === 429 && i % 2 === 0).length).toBeGreaterThan(0);
  expect(result.seen.filter((s, i) => s === 429 && i % 2 === 1).length).toBeGreaterThan(0);
  expect(await storeUp(a)).toBe(1);
});

it('random keys from one address are refused by the address limit before they each cost a look-up', async () => {
  // Behind a balancer the client address comes from X-Forwarded-For.
  const a = await api({ redisUrl: redisUrl(), redisKeyPrefix: prefix(), trustProxy: true, rateLimitPerAddressPerSecond: 2, rateLimitAddressBurst: 20 });
  const started = Date.now();
  const answers: Array<Awaited<ReturnType<typeof call>>> = [];
  for (let batch = 0; batch < 10; batch += 1) {
    answers.push(...await Promise.all(Array.from({ length: 30 }, () => call(a, 'GET', '/v1/payments', {
      key: `svc_test_sk_${randomBytes(16).toString('hex')}`, headers: { 'X-Forwarded-For': '198.51.100.77' },
    }))));
  }
  const seconds = (Date.now() - started) / 1000;
  const looked = answers.filter((r) => r.status === 401).length;
  // Only what the address may send got as far as the database (each 401 is one key look-up).
  expect(looked).toBeLessThanOrEqual(20 + Math.ceil(seconds + 1) * 2);
  const refused = answers.filter((r) => r.status === 429);
  expect(refused.length).toBe(300 - looked);
  expect(refused[0]!.json.error.code).toBe('rate_limit_exceeded');
  expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  // Another address is not slowed: its merchant's key works.
  const merchant = await createMerchant(a);
  expect((await call(a, 'GET', '/v1/payments', { key: merchant.testKey, headers: { 'X-Forwarded-For': '198.51.100.78' } })).status).toBe(200);
  // A client cannot pick its address: the balancer's (last) entry counts, not one it wrote first
  // (a fresh address would have a burst of 20 for these).
  const forged = await Promise.all(Array.from({ length: 5 }, () => call(a, 'GET', '/v1/payments', {
    key: merchant.testKey, headers: { 'X-Forwarded-For': '203.0.113.9, 198.51.100.77' },
  })));
  expect(forged.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(2);
});

it('with Redis unreachable from the start, requests are answered and each process limits on its own', async () => {
  const closed = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const a = await api({ redisUrl: redisUrl(closed), redisKeyPrefix: prefix() });
  const merchant = await createMerchant(a);
  const result = await statuses([a], merchant.testKey, 10);
  expect(result.seconds).toBeLessThan(5);
  expectOneLimit(result);
  expect(result.seen.at(-1)).toBe(429);
  expect(await storeUp(a)).toBe(0);
  // Each check of each request (address and key) was counted in the process.
  expect((await a.deps.metrics.rateLimitStoreFallbacks.get()).values[0]!.value).toBeGreaterThanOrEqual(20);
});

describe('Redis cut while the API runs', () => {
  let proxy: TcpProxy;
  beforeAll(async () => { proxy = await startTcpProxy(REDIS); });
  afterAll(async () => { await proxy.close(); });

  it('falls back to the process\'s own counts at once, and shares again once Redis is back', async () => {
    const keyPrefix = prefix();
    const a = await api({ redisUrl: `redis://${proxy.address}`, redisKeyPrefix: keyPrefix });
    const merchant = await createMerchant(a);
    await eventually(async () => a.deps.rateLimiter.shared(), (up) => up, 5_000);
    expect((await statuses([a], merchant.testKey, 2)).seen).toEqual([200, 200]);
    const direct = new Redis(redisUrl());
    try {
      expect((await direct.keys(`${keyPrefix}:*`)).length).toBeGreaterThan(0);
    } finally {
      direct.disconnect();
    }

    proxy.cut();
    await eventually(() => storeUp(a), (up) => up === 0, 5_000);
    // The process's own counts start afresh: a burst of 5, then 429.
    const result = await statuses([a], merchant.testKey, 10);
    expect(result.seconds).toBeLessThan(5);
    expect(result.seen.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expectOneLimit(result);

    proxy.restore();
    await eventually(() => storeUp(a), (up) => up === 1, 10_000);
    expect(a.deps.rateLimiter.shared()).toBe(true);
  });
});
