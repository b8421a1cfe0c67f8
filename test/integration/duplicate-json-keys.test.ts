// A JSON body with one key twice in an object (at any depth) is refused with
// `400 request_body_invalid` and the key's dotted path, and changes nothing: JSON.parse keeps the
// last value while a proxy or a log may read the first (docs/reliability.md, "Findings").
import { randomUUID } from 'node:crypto';
import { call, directPaymentBody, useTestApi } from '../helpers/api';
import { expectError, paymentRowCount } from '../helpers/payments';


const t = useTestApi({ merchant: { name: 'Duplicate Keys Shop' }, timeoutMs: 60_000 });

/** The body of `fields` with `extra` spliced in just after its opening brace (a raw duplicate). */
const withLeading = (fields: Record<string, unknown>, extra: string) => `{${extra},${JSON.stringify(fields).slice(1)}`;

const json = { 'Content-Type': 'application/json' };

describe('a duplicate key -> 400 request_body_invalid with its path, and nothing is created', () => {
  it.each<[string, string, string, string]>([
    ['top level (amount)', '/v1/payments', withLeading(directPaymentBody({ amount: 100 }), '"amount":99999999'), 'amount'],
    ['an escaped spelling of the same key', '/v1/payments', withLeading(directPaymentBody({ amount: 100 }), '"\\u0061mount":99999999'), 'amount'],
    ['nested (payment_method_data.card.number)', '/v1/payments',
      JSON.stringify(directPaymentBody()).replace('"number":"4242424242424242"', '"number":"4000000000000002","number":"4242424242424242"'),
      'payment_method_data.card.number'],
    ['a webhook endpoint create (url twice)', '/v1/webhook_endpoints',
      '{"url":"https://shop.example/h","enabled_events":["*"],"url":"https://evil.example/h"}', 'url'],
    ['a refund', '/v1/refunds', `{"payment_id":"pay_${'A'.repeat(24)}","amount":100,"amount":1,"reason":"return"}`, 'amount'],
    ['a payout recipient', '/v1/payouts',
      '{"amount":2500,"currency":"EUR","initiator_ip_address":"203.0.113.7","recipient":{"first_name":"Ana","last_name":"Díaz","country":"ES","country":"FR"},"destination":{"card_number":"4242424242424242"}}',
      'recipient.country'],
  ])('%s', async (_label, path, rawBody, param) => {
    const res = await call(t.api, 'POST', path, { key: t.merchant.testKey, rawBody, headers: json });
    expectError(res, 400, 'request_body_invalid', param);
    expect(res.json.error.message).toContain('more than once');
  });

  it('a Shape B metadata key twice, and an object inside an array', async () => {
    const hostedB = '{"amount":2500,"currency":"eur","redirect_url":"https://shop.example/back","metadata":{"order_id":"42","order_id":"43"}}';
    const b = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, rawBody: hostedB, headers: { ...json, 'Service-Version': '2024-06-01' } });
    expect({ status: b.status, code: b.json.error.code, param: b.json.error.param, type: b.json.error.type })
      .toEqual({ status: 400, code: 'request_body_invalid', param: 'metadata.order_id', type: 'invalid_request_error' });
    // Not a field of any operation, so only the duplicate check can name it with this path.
    const inArray = await call(t.api, 'POST', '/v1/webhook_endpoints', {
      key: t.merchant.testKey, rawBody: '{"url":"https://shop.example/h","enabled_events":[{"a":1,"a":2}]}', headers: json,
    });
    expectError(inArray, 400, 'request_body_invalid', 'enabled_events.0.a');
  });

  it('an optional body (rotate_secret) is checked too', async () => {
    const created = await call(t.api, 'POST', '/v1/webhook_endpoints', { key: t.merchant.testKey, body: { url: 'https://shop.example/h', enabled_events: ['*'] } });
    expect(created.status).toBe(201);
    const res = await call(t.api, 'POST', `/v1/webhook_endpoints/${created.json.id}/rotate_secret`, {
      key: t.merchant.testKey, rawBody: '{"grace_period_seconds":0,"grace_period_seconds":604800}', headers: json,
    });
    expectError(res, 400, 'request_body_invalid', 'grace_period_seconds');
  });

  it('changes nothing: no Payment, and the Idempotency-Key is still free for the same request sent once', async () => {
    const key = randomUUID();
    const refused = await call(t.api, 'POST', '/v1/payments', {
      key: t.merchant.testKey, idempotencyKey: key, headers: json, rawBody: withLeading(directPaymentBody({ amount: 100 }), '"amount":99999999'),
    });
    expectError(refused, 400, 'request_body_invalid', 'amount');
    expect(await paymentRowCount(t.api, t.merchant.merchantId)).toBe(0);
    const accepted = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, idempotencyKey: key, body: directPaymentBody({ amount: 100 }) });
    expect(accepted.status).toBe(201);
    expect(accepted.headers.get('idempotent-replayed')).toBeNull();
    expect(accepted.json.amount).toBe(100);
  });

  it('the same key in two different objects is no duplicate', async () => {
    const body = { amount: 2500, currency: 'eur', redirect_url: 'https://shop.example/back', customer: { address: '12 Row' }, metadata: { address: 'gift' } };
    const res = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, rawBody: JSON.stringify(body), headers: { ...json, 'Service-Version': '2024-06-01' } });
    expect(res.status).toBe(201);
    expect(res.json.metadata).toEqual({ address: 'gift' });
  });
});
