// Shape B (Service-Version 2024-06-01) Direct payments, reads, lists, the Shape B refund, versions
// and key expiry, against the real sandbox, Temporal and MariaDB (docs/shape-b.md). One Payment
// engine underneath: the same Payment reads in both shapes.
import { randomUUID } from 'node:crypto';
import type { RunningApi } from '../../src/api/server';
import { adminOps, call, type CallResult, createMerchant, eventually, startTestApi, type TestMerchant, useTestApi } from '../helpers/api';
import { validateResponse } from '../helpers/openapi';
import { FUTURE_YEAR, PAYMENT_ID, REQUEST_ID, expectError, getPayment } from '../helpers/payments';
import { sandboxRecords } from '../helpers/sandbox';

const B = { 'Service-Version': '2024-06-01' };
const A = { 'Service-Version': '2025-09-01' };


const t = useTestApi({ merchant: { name: 'Shape B Shop' } });

function directBodyB(number = '4242424242424242', overrides: Record<string, unknown> = {}) {
  return { amount: 4999, currency: 'usd', card: { number, exp_month: 12, exp_year: FUTURE_YEAR, cvc: '123' }, ...overrides };
}

function payB(number = '4242424242424242', options: { key?: string; idempotencyKey?: string; body?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
  return call(t.api, 'POST', '/v1/payments', {
    key: options.key ?? t.merchant.testKey, headers: options.headers ?? B, body: options.body ?? directBodyB(number), idempotencyKey: options.idempotencyKey,
  });
}

/** Checks an answer against the OpenAPI document (the Shape B schema for Service-Version 2024-06-01). */
function documented(method: string, template: string, res: CallResult): CallResult {
  validateResponse(method, template, res.status, res.json, res.headers);
  return res;
}

/** The Shape B error envelope (docs/api-reference.md, "Errors"). */
function expectErrorB(res: CallResult, status: number, code: string, param: string | null = null): void {
  const summary = `${res.status} ${res.text}`;
  expect({ status: res.status, code: res.json?.error?.code, param: res.json?.error?.param, summary }).toEqual({ status, code, param, summary });
  const type = code === 'card_declined' ? 'card_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  expect(res.json.error.type).toBe(type);
  expect(typeof res.json.error.message).toBe('string');
  expect(res.json.error.doc_url).toMatch(new RegExp(`/docs#error-${code}$`));
  expect(res.json.error.request_id).toMatch(REQUEST_ID);
  expect(res.headers.get('request-id')).toBe(res.json.error.request_id);
  expect(res.headers.get('service-version')).toBe('2024-06-01');
}

async function boundObjectId(operation: string, idempotencyKey: string): Promise<string | null> {
  const rows: Array<{ object_id: string }> = await t.api.deps.dataSource.query(
    'SELECT object_id FROM idempotency_records WHERE idempotency_key = ? AND operation = ?', [idempotencyKey, operation],
  );
  return rows[0]?.object_id ?? null;
}

describe('POST /v1/payments (Shape B Direct)', () => {
  it('201 succeeded: waits for the outcome, Shape B fields only', async () => {
    const res = documented('POST', '/v1/payments', await payB());
    expect(res.status).toBe(201);
    expect(res.headers.get('service-version')).toBe('2024-06-01');
    const payment = res.json;
    expect(payment).toEqual({
      id: expect.stringMatching(PAYMENT_ID), object: 'payment', amount: 4999, currency: 'usd', status: 'succeeded', description: null,
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: FUTURE_YEAR, country: 'US' },
      customer: { email: null, name: null }, metadata: {}, decline_code: null, decline_message: null, redirect_url: null,
      refunded_at: null, succeeded_at: expect.any(Number), failed_at: null, created: expect.any(Number), livemode: false,
    });
  });

  it('the same Payment reads in both shapes; GET under B equals the create answer', async () => {
    const created = (await payB('5555555555554444')).json;
    const readB = documented('GET', '/v1/payments/{id}', await call(t.api, 'GET', `/v1/payments/${created.id}`, { key: t.merchant.testKey, headers: B }));
    expect(readB.status).toBe(200);
    expect(readB.json).toEqual(created);
    const readA = await call(t.api, 'GET', `/v1/payments/${created.id}`, { key: t.merchant.testKey, headers: A });
    expect(readA.headers.get('service-version')).toBe('2025-09-01');
    expect(readA.json).toMatchObject({
      id: created.id, amount: 4999, currency: 'USD', status: 'SUCCEEDED', integration_type: 'DIRECT',
      card: { brand: 'MASTERCARD', last4: '4444', country: 'US' }, failure_code: null, amount_refundable: 4999, next_action: null,
    });
    expect(readA.json.status_transitions.succeeded_at).toBe(created.succeeded_at);
    expect(readA.json).not.toHaveProperty('object');
    expect(readB.json).not.toHaveProperty('integration_type');
  });

  it.each([
    ['4000000000000002', 'generic_decline', 'generic_decline'],
    ['4000000000009995', 'insufficient_funds', 'insufficient_funds'],
    ['4000000000000069', 'expired_card', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc', 'issuer_declined'],
    ['4000000000000119', 'processing_error', 'processor_error'],
    ['4000000000000101', 'do_not_honor', 'do_not_honor'],
  ])('card %s: 402 card_declined with decline_code %s; the Payment is FAILED (%s)', async (number, declineCode, failureCode) => {
    const idempotencyKey = randomUUID();
    const res = documented('POST', '/v1/payments', await payB(number, { idempotencyKey }));
    expectErrorB(res, 402, 'card_declined');
    expect(res.json.error.decline_code).toBe(declineCode);
    expect(Object.keys(res.json.error).sort()).toEqual(['code', 'decline_code', 'doc_url', 'message', 'param', 'request_id', 'type']);
    const paymentId = (await boundObjectId('payments.create', idempotencyKey))!;
    const readA = (await call(t.api, 'GET', `/v1/payments/${paymentId}`, { key: t.merchant.testKey, headers: A })).json;
    expect(readA).toMatchObject({ status: 'FAILED', failure_code: failureCode });
    const readB = documented('GET', '/v1/payments/{id}', await call(t.api, 'GET', `/v1/payments/${paymentId}`, { key: t.merchant.testKey, headers: B }));
    expect(readB.json).toMatchObject({ status: 'failed', decline_code: declineCode, decline_message: res.json.error.message, failed_at: expect.any(Number) });
  });

  it('an expired card (by its date) is 402 expired_card', async () => {
    const res = await payB('4242424242424242', { body: directBodyB('4242424242424242', { card: { number: '4242424242424242', exp_month: 1, exp_year: 2020, cvc: '123' } }) });
    expectErrorB(res, 402, 'card_declined');
    expect(res.json.error.decline_code).toBe('expired_card');
  });

  it.each([['4000000000003220'], ['4000000000003063'], ['4000008400001629']])('a card that needs 3D Secure (%s) is 402 generic_decline, with no customer step', async (number) => {
    const idempotencyKey = randomUUID();
    const res = await payB(number, { idempotencyKey });
    expectErrorB(res, 402, 'card_declined');
    expect(res.json.error.decline_code).toBe('generic_decline');
    const paymentId = (await boundObjectId('payments.create', idempotencyKey))!;
    const readA = (await call(t.api, 'GET', `/v1/payments/${paymentId}`, { key: t.merchant.testKey, headers: A })).json;
    expect(readA).toMatchObject({ status: 'FAILED', failure_code: 'generic_decline', next_action: null });
    expect(readA.status_transitions.requires_action_at).toBeNull();
  });

  it('a 402 is not saved: a same-key retry answers 402 again from the same FAILED Payment, authorizing once', async () => {
    const idempotencyKey = randomUUID();
    const first = await payB('4000000000009995', { idempotencyKey });
    const second = await payB('4000000000009995', { idempotencyKey });
    expectErrorB(first, 402, 'card_declined');
    expectErrorB(second, 402, 'card_declined');
    expect(second.json.error.decline_code).toBe('insufficient_funds');
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    const paymentId = (await boundObjectId('payments.create', idempotencyKey))!;
    expect((await sandboxRecords(paymentId)).authorizations).toHaveLength(1);
  });

  it('a same-key retry of a success replays the saved answer byte for byte', async () => {
    const idempotencyKey = randomUUID();
    const first = await payB('4242424242424242', { idempotencyKey });
    const again = await payB('4242424242424242', { idempotencyKey });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const changed = await payB('4242424242424242', { idempotencyKey, body: directBodyB('4242424242424242', { amount: 5000 }) });
    expectErrorB(changed, 409, 'idempotency_key_reused', 'Idempotency-Key');
  });

  describe('one key across shapes (a retry after the merchant or an operator changed the version)', () => {
    const bodyA = (number = '4242424242424242') => ({
      amount: 4999, currency: 'USD', customer_ip_address: '203.0.113.7', return_url: 'https://shop.example/return',
      payment_method_data: { type: 'card', card: { number, exp_month: 12, exp_year: FUTURE_YEAR, cvc: '123' } },
    });
    const payA = (idempotencyKey: string, number?: string) => call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, headers: A, body: bodyA(number), idempotencyKey });
    const paymentsOfMerchant = async () => Number(((await t.api.deps.dataSource.query(
      'SELECT COUNT(*) AS n FROM payments WHERE merchant_id = ?', [t.merchant.merchantId],
    )) as Array<{ n: number | string }>)[0]!.n);

    it('a key first used in Shape A is idempotency_key_reused in Shape B: no second Payment', async () => {
      const idempotencyKey = randomUUID();
      const first = await payA(idempotencyKey);
      expect(first.status).toBe(201);
      const before = await paymentsOfMerchant();
      expectErrorB(await payB('4242424242424242', { idempotencyKey }), 409, 'idempotency_key_reused', 'Idempotency-Key');
      expect(await paymentsOfMerchant()).toBe(before);
      expect((await payA(idempotencyKey)).headers.get('idempotent-replayed')).toBe('true');
    });

    it('a key whose Shape B attempt was declined (not saved) is idempotency_key_reused in Shape A: no second authorization', async () => {
      const idempotencyKey = randomUUID();
      expectErrorB(await payB('4000000000000002', { idempotencyKey }), 402, 'card_declined');
      const paymentId = (await boundObjectId('payments.create', idempotencyKey))!;
      const before = await paymentsOfMerchant();
      expectError(await payA(idempotencyKey), 409, 'idempotency_key_reused', 'Idempotency-Key');
      expect(await paymentsOfMerchant()).toBe(before);
      expect((await sandboxRecords(paymentId)).authorizations).toHaveLength(1);
    });

    it('hosted creates share one scope too', async () => {
      const idempotencyKey = randomUUID();
      const hostedA = { amount: 4999, currency: 'USD', customer_ip_address: '203.0.113.7', return_url: 'https://shop.example/return' };
      const first = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, headers: A, body: hostedA, idempotencyKey });
      expect(first.status).toBe(201);
      const inB = await call(t.api, 'POST', '/v1/payments/hpp', {
        key: t.merchant.testKey, headers: B, body: { amount: 4999, currency: 'usd', redirect_url: 'https://shop.example/return' }, idempotencyKey,
      });
      expectErrorB(inB, 409, 'idempotency_key_reused', 'Idempotency-Key');
    });
  });

  it.each([
    ['4000004290000003', 429, 'rate_limit_exceeded'],
    ['4000005020000007', 502, 'processing_error'],
    ['4000005030000005', 503, 'service_unavailable'],
  ])('provider answer of card %s: %i %s in the Shape B envelope, not saved', async (number, status, code) => {
    const res = documented('POST', '/v1/payments', await payB(number));
    expectErrorB(res, status, code);
    if (status === 429) expect(res.headers.get('retry-after')).toBe('1');
  });

  it.each([
    ['no card', 400, 'request_body_invalid', 'card', { amount: 4999, currency: 'usd' }],
    ['uppercase currency', 400, 'parameter_invalid', 'currency', directBodyB('4242424242424242', { currency: 'USD' })],
    ['a Shape A field', 400, 'request_body_invalid', 'customer_ip_address', directBodyB('4242424242424242', { customer_ip_address: '203.0.113.7' })],
    ['a Shape A body', 400, 'request_body_invalid', 'card', { amount: 4999, currency: 'usd', payment_method_data: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: FUTURE_YEAR, cvc: '123' } } }],
    ['amount 0', 400, 'parameter_invalid', 'amount', directBodyB('4242424242424242', { amount: 0 })],
    ['amount as a string', 400, 'request_body_invalid', 'amount', directBodyB('4242424242424242', { amount: '4999' })],
    ['a card number failing Luhn', 400, 'parameter_invalid', 'card.number', directBodyB('4242424242424241')],
    ['a 2-digit cvc', 400, 'parameter_invalid', 'card.cvc', directBodyB('4242424242424242', { card: { number: '4242424242424242', exp_month: 12, exp_year: FUTURE_YEAR, cvc: '12' } })],
    ['a currency not enabled', 422, 'currency_not_supported', 'currency', directBodyB('4242424242424242', { currency: 'aud' })],
  ])('%s: %i %s in the Shape B envelope', async (_name, status, code, param, body) => {
    const res = documented('POST', '/v1/payments', await payB('4242424242424242', { body: body as Record<string, unknown> }));
    expectErrorB(res, status, code, param);
  });

  it('a missing Idempotency-Key is parameter_missing in the Shape B envelope', async () => {
    const res = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, headers: B, body: directBodyB(), idempotencyKey: null });
    expectErrorB(res, 400, 'parameter_missing', 'Idempotency-Key');
  });
});

describe('Service-Version', () => {
  it.each([['2023-01-01'], ['2024-6-1'], ['latest']])('%s is 400 parameter_invalid (param Service-Version)', async (version) => {
    const res = await call(t.api, 'GET', '/v1/payments', { key: t.merchant.testKey, headers: { 'Service-Version': version } });
    expectError(res, 400, 'parameter_invalid', 'Service-Version');
  });

  it('every answer carries the version it used', async () => {
    expect((await call(t.api, 'GET', '/v1/payments', { key: t.merchant.testKey })).headers.get('service-version')).toBe('2025-09-01');
    expect((await call(t.api, 'GET', '/v1/payments', { key: t.merchant.testKey, headers: B })).headers.get('service-version')).toBe('2024-06-01');
  });

  it('a merchant defaulting to 2024-06-01 gets Shape B without the header, Shape A with 2025-09-01', async () => {
    const older = await createMerchant(t.api, { name: 'Older Integration', defaultVersion: '2024-06-01' });
    const created = await call(t.api, 'POST', '/v1/payments', { key: older.testKey, body: directBodyB() });
    expect(created.status).toBe(201);
    expect(created.headers.get('service-version')).toBe('2024-06-01');
    expect(created.json).toMatchObject({ object: 'payment', status: 'succeeded', currency: 'usd' });
    const readDefault = await getPayment(t.api, older.testKey, created.json.id);
    expect(readDefault.json).toEqual(created.json);
    const readA = await call(t.api, 'GET', `/v1/payments/${created.json.id}`, { key: older.testKey, headers: A });
    expect(readA.headers.get('service-version')).toBe('2025-09-01');
    expect(readA.json).toMatchObject({ id: created.json.id, status: 'SUCCEEDED', currency: 'USD' });
    // A Shape A body under the default is refused the Shape B way.
    const shapeABody = await call(t.api, 'POST', '/v1/payments', { key: older.testKey, body: { amount: 100, currency: 'USD', customer_ip_address: '203.0.113.7' } });
    expectErrorB(shapeABody, 400, 'request_body_invalid', 'card');
  });
});

describe('GET /v1/payments/{id} (Shape B)', () => {
  it('a well-formed id that does not exist is 404 object_not_found; a malformed one 400 invalid_request', async () => {
    expectErrorB(await call(t.api, 'GET', '/v1/payments/pay_does-not-exist', { key: t.merchant.testKey, headers: B }), 404, 'object_not_found', 'id');
    expectErrorB(await call(t.api, 'GET', '/v1/payments/pay_bad!id', { key: t.merchant.testKey, headers: B }), 400, 'invalid_request', 'id');
    expectErrorB(await call(t.api, 'GET', '/v1/payments/ref_abc', { key: t.merchant.testKey, headers: B }), 400, 'invalid_request', 'id');
  });

  it("another merchant's payment is 404", async () => {
    const other = await createMerchant(t.api, { name: 'Someone Else' });
    const created = (await payB()).json;
    expectErrorB(await call(t.api, 'GET', `/v1/payments/${created.id}`, { key: other.testKey, headers: B }), 404, 'object_not_found', 'id');
  });
});

describe('POST /v1/payments/{id}/refund (Shape B)', () => {
  const refundB = (id: string, options: { key?: string; idempotencyKey?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) =>
    call(t.api, 'POST', `/v1/payments/${id}/refund`, { key: options.key ?? t.merchant.testKey, headers: options.headers ?? B, body: options.body, rawBody: options.rawBody, idempotencyKey: options.idempotencyKey });

  it('refunds the whole amount through the Refund path: 200 refunded with refunded_at; a second call is charge_already_refunded', async () => {
    const payment = (await payB()).json;
    const idempotencyKey = randomUUID();
    const res = documented('POST', '/v1/payments/{id}/refund', await refundB(payment.id, { idempotencyKey }));
    expect(res.status).toBe(200);
    expect(res.headers.get('service-version')).toBe('2024-06-01');
    expect(res.json).toEqual({ ...payment, status: 'refunded', refunded_at: expect.any(Number) });

    // The same Refund the Shape A endpoint makes: FULL, in the Payment's refunds, then SUCCEEDED.
    const readA = await eventually(() => call(t.api, 'GET', `/v1/payments/${payment.id}`, { key: t.merchant.testKey, headers: A }), (r) => r.json.refunds[0]?.status === 'SUCCEEDED');
    expect(readA.json).toMatchObject({ status: 'SUCCEEDED', amount_refunded: 4999, amount_refundable: 0 });
    expect(readA.json.refunds).toHaveLength(1);
    expect(readA.json.refunds[0]).toMatchObject({ amount: 4999, currency: 'USD', refund_type: 'FULL', id: await boundObjectId('payments.refund_b', idempotencyKey) });
    const readB = (await call(t.api, 'GET', `/v1/payments/${payment.id}`, { key: t.merchant.testKey, headers: B })).json;
    expect(readB).toEqual(res.json);

    const replay = await refundB(payment.id, { idempotencyKey });
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(res.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const second = documented('POST', '/v1/payments/{id}/refund', await refundB(payment.id));
    expectErrorB(second, 400, 'charge_already_refunded', 'id');
  });

  it('takes what remains when the workflow decides: a refund reserved after its read shrinks it instead of failing it', async () => {
    const payment = (await payB()).json;
    const partial = await call(t.api, 'POST', '/v1/refunds', {
      key: t.merchant.testKey, headers: A, body: { payment_id: payment.id, amount: 1000, reason: 'requested_by_customer' }, idempotencyKey: randomUUID(),
    });
    expect(partial.status).toBe(201);
    // The Shape B refund's read of the Payment comes before that refund shows (a read model a
    // moment behind).
    await t.api.deps.dataSource.query('UPDATE payments SET amount_refundable = ? WHERE id = ?', [4999, payment.id]);
    const res = await refundB(payment.id);
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('refunded');
    const readA = await eventually(() => call(t.api, 'GET', `/v1/payments/${payment.id}`, { key: t.merchant.testKey, headers: A }), (r) => r.json.refunds.length === 2);
    expect(readA.json.refunds.map((r: { amount: number }) => r.amount).sort()).toEqual([1000, 3999]);
    expect(readA.json.amount_refundable).toBe(0);
    expectErrorB(await refundB(payment.id), 400, 'charge_already_refunded', 'id');
  });

  it('takes no body: none, or {} (also without the Service-Version header, and with Shape A asked for)', async () => {
    const withEmptyObject = (await payB()).json;
    const res = await refundB(withEmptyObject.id, { body: {}, headers: {} });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('refunded');
    const askedForA = (await payB()).json;
    const resA = await refundB(askedForA.id, { headers: A });
    expect(resA.status).toBe(200);
    expect(resA.headers.get('service-version')).toBe('2024-06-01');
    expect(resA.json).toMatchObject({ object: 'payment', status: 'refunded' });
  });

  it('errors: body fields, missing key, malformed, unknown and foreign ids, unrefundable payments', async () => {
    const payment = (await payB()).json;
    expectErrorB(documented('POST', '/v1/payments/{id}/refund', await refundB(payment.id, { body: { amount: 100 } })), 400, 'request_body_invalid', 'amount');
    expectErrorB(await refundB(payment.id, { rawBody: 'not json', headers: { ...B, 'Content-Type': 'application/json' } }), 400, 'request_body_invalid');
    expectErrorB(await refundB(payment.id, { idempotencyKey: null }), 400, 'parameter_missing', 'Idempotency-Key');
    expectErrorB(await refundB(payment.id, { idempotencyKey: 'k'.repeat(256) }), 400, 'parameter_invalid', 'Idempotency-Key');
    expectErrorB(await refundB('pay_bad!id'), 400, 'invalid_request', 'id');
    expectErrorB(documented('POST', '/v1/payments/{id}/refund', await refundB('pay_does-not-exist')), 404, 'object_not_found', 'id');
    const other = await createMerchant(t.api, { name: 'Other Refunder' });
    expectErrorB(await refundB(payment.id, { key: other.testKey }), 404, 'object_not_found', 'id');

    const idempotencyKey = randomUUID();
    expectErrorB(await payB('4000000000000002', { idempotencyKey }), 402, 'card_declined');
    const failedId = (await boundObjectId('payments.create', idempotencyKey))!;
    expectErrorB(documented('POST', '/v1/payments/{id}/refund', await refundB(failedId)), 422, 'payment_not_refundable', 'id');

    // Untouched by all of that.
    expect((await call(t.api, 'GET', `/v1/payments/${payment.id}`, { key: t.merchant.testKey, headers: B })).json.status).toBe('succeeded');
  });

  it('a key without the refund permission is 403 actor_forbidden', async () => {
    const { key } = await adminOps(t.api).createKey({ merchantId: t.merchant.merchantId, mode: 'test', refunds: false });
    const payment = (await payB()).json;
    expectErrorB(await refundB(payment.id, { key }), 403, 'actor_forbidden');
  });

  it('a refund the provider rejects at submission leaves the payment succeeded (a 200 outcome, not an error)', async () => {
    const payment = (await payB('4000009000000003')).json;
    const res = await refundB(payment.id);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: payment.id, status: 'succeeded', refunded_at: null });
    const readA = (await call(t.api, 'GET', `/v1/payments/${payment.id}`, { key: t.merchant.testKey, headers: A })).json;
    expect(readA.refunds[0]).toMatchObject({ status: 'FAILED', failure: { code: 'not_permitted' } });
  });

  it('POST /v1/refunds stays Shape A under Service-Version 2024-06-01', async () => {
    const payment = (await payB()).json;
    const res = await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, headers: B, body: { payment_id: payment.id, amount: 1000, reason: 'partial return' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('service-version')).toBe('2025-09-01');
    expect(res.json).toMatchObject({ payment_id: payment.id, amount: 1000, currency: 'USD', status: 'PROCESSING', refund_type: 'PARTIAL' });
    const invalid = await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, headers: B, body: { payment_id: payment.id } });
    expectError(invalid, 400, 'request_body_invalid');
    expect(invalid.json.error.type).toBeUndefined();
    // The Shape B refund then takes what remains.
    const rest = await refundB(payment.id);
    expect(rest.json).toMatchObject({ status: 'refunded' });
    const readA = await eventually(() => call(t.api, 'GET', `/v1/payments/${payment.id}`, { key: t.merchant.testKey, headers: A }), (r) => r.json.refunds.length === 2);
    expect(readA.json.refunds.map((r: { amount: number }) => r.amount)).toEqual([1000, 3999]);
  });
});

describe('GET /v1/payments (Shape B list)', () => {
  let shop: TestMerchant;
  const ids: Record<string, string> = {};
  const listB = (query: string) => call(t.api, 'GET', `/v1/payments${query}`, { key: shop.testKey, headers: B });

  beforeAll(async () => {
    shop = await createMerchant(t.api, { name: 'List Shop', defaultVersion: '2024-06-01' });
    const pay = (number: string, idempotencyKey = randomUUID()) => call(t.api, 'POST', '/v1/payments', { key: shop.testKey, body: directBodyB(number), idempotencyKey });
    ids.succeeded = (await pay('4242424242424242')).json.id;
    const declinedKey = randomUUID();
    expect((await pay('4000000000000002', declinedKey)).status).toBe(402);
    ids.failed = (await boundObjectId('payments.create', declinedKey))!;
    const hosted = await call(t.api, 'POST', '/v1/payments/hpp', { key: shop.testKey, body: { amount: 1200, currency: 'eur', redirect_url: 'https://shop.example/back' } });
    ids.pending = hosted.json.id;
    ids.refunded = (await pay('5555555555554444')).json.id;
    expect((await call(t.api, 'POST', `/v1/payments/${ids.refunded}/refund`, { key: shop.testKey })).json.status).toBe('refunded');
  });

  let order: string[] = [];

  it('lists newest first in the Shape B envelope', async () => {
    const res = documented('GET', '/v1/payments', await listB(''));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ object: 'list', has_more: false, url: '/v1/payments' });
    order = res.json.data.map((p: { id: string }) => p.id);
    // Newest first in the order they were created above, whatever their seconds and ids.
    expect(order).toEqual([ids.refunded, ids.pending, ids.failed, ids.succeeded]);
    const statusOf = Object.fromEntries(res.json.data.map((p: { id: string; status: string }) => [p.id, p.status]));
    expect(statusOf).toEqual({ [ids.refunded]: 'refunded', [ids.pending]: 'pending', [ids.failed]: 'failed', [ids.succeeded]: 'succeeded' });
  });

  it.each([['pending'], ['succeeded'], ['failed'], ['refunded']])('status=%s selects exactly those payments', async (status) => {
    const res = documented('GET', '/v1/payments', await listB(`?status=${status}`));
    expect(res.json.data.map((p: { id: string }) => p.id)).toEqual([ids[status]]);
  });

  it('status repeats as a union', async () => {
    const res = await listB('?status=succeeded&status=refunded');
    expect(res.json.data.map((p: { id: string }) => p.id)).toEqual(order.filter((id) => id === ids.refunded || id === ids.succeeded));
  });

  it('Shape A spellings are invalid under Shape B, and Shape B spellings under Shape A', async () => {
    expectErrorB(await listB('?status=SUCCEEDED'), 400, 'invalid_search_criteria', 'status');
    expectErrorB(await listB('?status=processing'), 400, 'invalid_search_criteria', 'status');
    expectError(await call(t.api, 'GET', '/v1/payments?status=succeeded', { key: shop.testKey, headers: A }), 400, 'invalid_search_criteria', 'status');
    const readA = await call(t.api, 'GET', '/v1/payments?status=SUCCEEDED', { key: shop.testKey, headers: A });
    expect(readA.json.data.map((p: { id: string }) => p.id)).toEqual(order.filter((id) => id === ids.refunded || id === ids.succeeded));
  });

  it('paginates with starting_after and ending_before; has_more alone says whether more exist', async () => {
    const idsOf = (res: CallResult) => res.json.data.map((p: { id: string }) => p.id);
    const first = documented('GET', '/v1/payments', await listB('?limit=2'));
    expect(idsOf(first)).toEqual(order.slice(0, 2));
    expect(first.json.has_more).toBe(true);
    const second = await listB(`?limit=2&starting_after=${order[1]}`);
    expect(idsOf(second)).toEqual(order.slice(2));
    expect(second.json.has_more).toBe(false);
    const back = await listB(`?limit=2&ending_before=${order[2]}`);
    expect(idsOf(back)).toEqual(order.slice(0, 2));
    const pendingOrFailed = order.filter((id) => id === ids.pending || id === ids.failed);
    const filtered = await listB('?limit=1&status=pending&status=failed');
    expect(filtered.json.has_more).toBe(true);
    expect(idsOf(filtered)).toEqual(pendingOrFailed.slice(0, 1));
    const filteredNext = await listB(`?limit=1&status=pending&status=failed&starting_after=${pendingOrFailed[0]}`);
    expect(filteredNext.json.has_more).toBe(false);
    expect(idsOf(filteredNext)).toEqual(pendingOrFailed.slice(1));
    expectErrorB(await listB(`?starting_after=${order[0]}&ending_before=${order[1]}`), 400, 'invalid_search_criteria', 'ending_before');
    expectErrorB(await listB('?limit=101'), 400, 'invalid_search_criteria', 'limit');
  });
});

describe('Shape B idempotency keys expire', () => {
  let shortLived: RunningApi;
  beforeAll(async () => { shortLived = await startTestApi({ shapeBIdempotencyTtlSeconds: 2 }); });
  afterAll(async () => { await shortLived.close(); });

  it('after the configured period a key can be used anew (a new payment); Shape A keys are kept', async () => {
    const keyB = randomUUID();
    const keyA = randomUUID();
    const post = (headers: Record<string, string>, body: unknown, idempotencyKey: string) => call(shortLived, 'POST', '/v1/payments', { key: t.merchant.testKey, headers, body, idempotencyKey });
    const retention = async (idempotencyKey: string) => {
      const rows: Array<{ created_at: number | string; expires_at: number | string }> = await t.api.deps.dataSource.query(
        'SELECT created_at, expires_at FROM idempotency_records WHERE idempotency_key = ? AND operation = ?', [idempotencyKey, 'payments.create'],
      );
      return Number(rows[0]!.expires_at) - Number(rows[0]!.created_at);
    };
    const first = await post(B, directBodyB(), keyB);
    expect(first.status).toBe(201);
    expect(await retention(keyB)).toBe(2);
    const shapeA = { amount: 4999, currency: 'USD', customer_ip_address: '203.0.113.7', return_url: 'https://shop.example/return', payment_method_data: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: FUTURE_YEAR, cvc: '123' } } };
    const firstA = await post(A, shapeA, keyA);
    expect(firstA.status).toBe(201);
    expect(await retention(keyA)).toBeGreaterThanOrEqual(30 * 24 * 3600);

    await new Promise((resolve) => setTimeout(resolve, 3000));
    const again = await post(B, directBodyB(), keyB);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.json.id).not.toBe(first.json.id);
    expect((await getPayment(t.api, t.merchant.testKey, first.json.id)).status).toBe(200);
    const againA = await post(A, shapeA, keyA);
    expect(againA.headers.get('idempotent-replayed')).toBe('true');
    expect(againA.json.id).toBe(firstA.json.id);
  });
});
