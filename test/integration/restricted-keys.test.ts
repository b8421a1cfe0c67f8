// Restricted keys (admin `key create --no-refunds`; docs/api-reference.md, "Restricted keys"): they
// take and read payments and read everything else; refunds, payouts, webhook endpoint changes and
// event resends are `403 actor_forbidden`, answered before the Idempotency-Key, the body and the
// path id are looked at, and nothing changes.
import { WebhookSecret } from '../../src/db/entities';
import { adminOps, call, directPaymentBody, useTestApi } from '../helpers/api';
import { expectError, waitForStatus } from '../helpers/payments';

const t = useTestApi({ merchant: { name: 'Restricted Key Shop' } });
let restricted: string;
let endpoint: { id: string; url: string };
let paymentId: string;

const FAKE_EVENT = `evt_${'A'.repeat(24)}`;

beforeAll(async () => {
  restricted = (await adminOps(t.api).createKey({ merchantId: t.merchant.merchantId, mode: 'test', refunds: false })).key;
  const made = await call(t.api, 'POST', '/v1/webhook_endpoints', { key: t.merchant.testKey, body: { url: 'https://shop.example/hooks', enabled_events: ['*'], description: 'Orders' } });
  expect(made.status).toBe(201);
  endpoint = made.json;
  const payment = await call(t.api, 'POST', '/v1/payments', { key: restricted, body: directPaymentBody() });
  expect(payment.status).toBe(201);
  paymentId = payment.json.id;
  await waitForStatus(t.api, restricted, paymentId, 'SUCCEEDED');
}, 60_000);

const B = { 'Service-Version': '2024-06-01' };

async function state() {
  const [counts] = await t.api.deps.dataSource.query(
    `SELECT (SELECT COUNT(*) FROM refunds WHERE merchant_id = ?) AS refunds, (SELECT COUNT(*) FROM payouts WHERE merchant_id = ?) AS payouts,
            (SELECT COUNT(*) FROM webhook_endpoints WHERE merchant_id = ? AND deleted_at IS NULL) AS endpoints`,
    [t.merchant.merchantId, t.merchant.merchantId, t.merchant.merchantId],
  );
  const read = await call(t.api, 'GET', `/v1/webhook_endpoints/${endpoint.id}`, { key: t.merchant.testKey });
  return {
    refunds: Number(counts.refunds), payouts: Number(counts.payouts), endpoints: Number(counts.endpoints),
    endpoint: read.json, secrets: await t.api.deps.dataSource.getRepository(WebhookSecret).countBy({ endpoint_id: endpoint.id }),
  };
}

describe('what a restricted key may not do -> 403 actor_forbidden, and nothing changes', () => {
  const payout = { amount: 2500, currency: 'EUR', initiator_ip_address: '203.0.113.7', recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' }, destination: { card_number: '4242424242424242' } };

  it.each<[string, string, () => string, Record<string, unknown> | undefined, Record<string, string>, RegExp]>([
    ['create a refund', 'POST', () => '/v1/refunds', { payment_id: 'x', amount: 100, reason: 'return' }, {}, /cannot create refunds/],
    ['refund in Shape B', 'POST', () => `/v1/payments/${paymentId}/refund`, undefined, B, /cannot create refunds/],
    ['submit a payout', 'POST', () => '/v1/payouts', payout, {}, /cannot submit payouts/],
    ['create a webhook endpoint (sending every event to its own URL)', 'POST', () => '/v1/webhook_endpoints', { url: 'https://attacker.example/h', enabled_events: ['*'] }, {}, /webhook endpoints/],
    ['update an endpoint', 'POST', () => `/v1/webhook_endpoints/${endpoint.id}`, { url: 'https://attacker.example/h' }, {}, /webhook endpoints/],
    ['delete an endpoint', 'DELETE', () => `/v1/webhook_endpoints/${endpoint.id}`, undefined, {}, /webhook endpoints/],
    ['rotate another endpoint\'s secret', 'POST', () => `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { grace_period_seconds: 0 }, {}, /rotate/],
    ['resend an event', 'POST', () => `/v1/events/${FAKE_EVENT}/retry`, {}, {}, /resend events/],
  ])('%s', async (_label, method, path, body, headers, message) => {
    const before = await state();
    const res = await call(t.api, method, path(), { key: restricted, body, headers });
    expect({ status: res.status, code: res.json.error.code }).toEqual({ status: 403, code: 'actor_forbidden' });
    expect(res.json.error.message).toMatch(message);
    if (headers === B) expect(res.json.error.type).toBe('invalid_request_error');
    expect(await state()).toEqual(before);
  });

  it('the refusal comes before the Idempotency-Key, the body and the path id (order of checks, step 5)', async () => {
    expectError(await call(t.api, 'POST', '/v1/webhook_endpoints', { key: restricted, idempotencyKey: null, rawBody: 'not json' }), 403, 'actor_forbidden');
    expectError(await call(t.api, 'POST', '/v1/webhook_endpoints/we_malformed/rotate_secret', { key: restricted, idempotencyKey: null }), 403, 'actor_forbidden');
    expectError(await call(t.api, 'POST', '/v1/events/evt_malformed/retry', { key: restricted, idempotencyKey: null }), 403, 'actor_forbidden');
    expectError(await call(t.api, 'POST', '/v1/payouts', { key: restricted, idempotencyKey: null }), 403, 'actor_forbidden');
    // Authentication still comes first.
    expectError(await call(t.api, 'POST', '/v1/webhook_endpoints', { key: `svc_test_sk_${'x'.repeat(32)}`, body: {} }), 401, 'invalid_api_key');
  });
});

describe('what a restricted key may do', () => {
  it('take and read payments, in both shapes', async () => {
    expect((await call(t.api, 'POST', '/v1/payments/hpp', { key: restricted, body: { amount: 100, currency: 'USD', customer_ip_address: '203.0.113.7', return_url: 'https://shop.example/r' } })).status).toBe(201);
    expect((await call(t.api, 'POST', '/v1/payments/hpp', { key: restricted, headers: B, body: { amount: 100, currency: 'usd', redirect_url: 'https://shop.example/r' } })).status).toBe(201);
    expect((await call(t.api, 'GET', `/v1/payments/${paymentId}`, { key: restricted })).status).toBe(200);
    expect((await call(t.api, 'GET', '/v1/payments', { key: restricted })).json.data.length).toBeGreaterThanOrEqual(3);
  });

  it('read payouts, events and webhook endpoints, never a secret', async () => {
    expect((await call(t.api, 'GET', '/v1/payouts', { key: restricted })).status).toBe(200);
    expect((await call(t.api, 'GET', '/v1/events', { key: restricted })).status).toBe(200);
    const list = await call(t.api, 'GET', '/v1/webhook_endpoints', { key: restricted });
    expect(list.json.data.map((e: { id: string }) => e.id)).toContain(endpoint.id);
    const read = await call(t.api, 'GET', `/v1/webhook_endpoints/${endpoint.id}`, { key: restricted });
    expect(read.status).toBe(200);
    expect(read.json).not.toHaveProperty('secret');
  });

  it('an unrestricted key of the same merchant still does all of it', async () => {
    const refund = await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, body: { payment_id: paymentId, amount: 100, reason: 'return' } });
    expect(refund.status).toBe(201);
    expect((await call(t.api, 'POST', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { key: t.merchant.testKey, body: {} })).status).toBe(200);
  });
});
