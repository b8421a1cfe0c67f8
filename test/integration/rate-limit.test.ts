// The service's own per-API-key rate limit (OWASP API4): 429 with Retry-After, and one key's burst
// leaves other keys and merchants untouched.
import { adminOps, call, createMerchant, useTestApi } from '../helpers/api';

const t = useTestApi({ config: { rateLimitPerSecond: 1, rateLimitBurst: 5 } });

it('a burst beyond the limit gets 429 rate_limit_exceeded with Retry-After; others are not slowed', async () => {
  const noisy = await createMerchant(t.api);
  const quiet = await createMerchant(t.api);
  const statuses = [];
  for (let i = 0; i < 8; i += 1) statuses.push((await call(t.api, 'GET', '/v1/payments', { key: noisy.testKey })).status);
  expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
  expect(statuses.slice(5)).toEqual([429, 429, 429]);

  const limited = await call(t.api, 'GET', '/v1/payments', { key: noisy.testKey });
  expect(limited.status).toBe(429);
  expect(limited.json.error.code).toBe('rate_limit_exceeded');
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(limited.headers.get('request-id')).toBe(limited.json.error.request_id);

  // Another merchant, and another key of the same merchant, keep their full capacity.
  expect((await call(t.api, 'GET', '/v1/payments', { key: quiet.testKey })).status).toBe(200);
  const { key } = await adminOps(t.api).createKey({ merchantId: noisy.merchantId, mode: 'test' });
  expect((await call(t.api, 'GET', '/v1/payments', { key })).status).toBe(200);

  // Capacity comes back at the configured rate.
  await new Promise((r) => setTimeout(r, 1100 * Number(limited.headers.get('retry-after'))));
  expect((await call(t.api, 'GET', '/v1/payments', { key: noisy.testKey })).status).toBe(200);
});

it('unauthenticated requests are refused before they can use anyone\'s capacity', async () => {
  const res = await call(t.api, 'GET', '/v1/payments', { key: 'svc_test_sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
  expect(res.status).toBe(401);
});

it('an unknown key is always 401, never 429: only keys that authenticated get a bucket', async () => {
  const statuses = [];
  for (let i = 0; i < 8; i += 1) statuses.push((await call(t.api, 'GET', '/v1/payments', { key: 'svc_test_sk_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' })).status);
  expect(statuses).toEqual(Array(8).fill(401));
});

it('a revoked key is refused with 401 once its bucket lets a request through', async () => {
  const merchant = await createMerchant(t.api);
  const { key } = await adminOps(t.api).createKey({ merchantId: merchant.merchantId, mode: 'test' });
  expect((await call(t.api, 'GET', '/v1/payments', { key })).status).toBe(200);
  await adminOps(t.api).revokeKey(key);
  expect((await call(t.api, 'GET', '/v1/payments', { key })).status).toBe(401);
});
