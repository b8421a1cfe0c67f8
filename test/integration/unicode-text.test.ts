// Text is kept exactly as sent, or refused. JSON's `\ud800` escape yields an unpaired UTF-16
// surrogate, which no UTF-8 column can hold: it used to be accepted and stored as U+FFFD, so the
// create answer, replays, reads and webhooks disagreed. Every text field of every body (keys
// included) now refuses it with `400 parameter_invalid` and the field's dotted path; bytes that are
// not UTF-8 are `400 request_body_invalid`; the hosted page refuses a form that is not UTF-8.
import { call, createMerchant, directPaymentBody, type TestMerchant, useTestApi } from '../helpers/api';
import { expectError, FUTURE_YEAR } from '../helpers/payments';

/** t.merchant receives only requests that must be refused: it must own nothing afterwards. */
const t = useTestApi({ config: { paymentActionTtlSeconds: 120 }, merchant: { name: 'Refused Shop' }, timeoutMs: 60_000 });
let accepted: TestMerchant;
beforeAll(async () => { accepted = await createMerchant(t.api, { name: 'Accepted Shop' }); });

const LONE = 'a\ud800b';
const B = { 'Service-Version': '2024-06-01' };

const hostedA = (overrides: Record<string, unknown> = {}) => ({
  amount: 4999, currency: 'USD', customer_ip_address: '203.0.113.7', return_url: 'https://shop.example/return',
  billing_details: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', address: { line1: '1 Main St', city: 'London', postal_code: 'N1', country: 'GB' } },
  ...overrides,
});
const hostedB = (overrides: Record<string, unknown> = {}) => ({
  amount: 2500, currency: 'eur', redirect_url: 'https://shop.example/back', description: 'Order #42',
  customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', address: '12 Row', city: 'London', zip: 'N1' },
  metadata: { order_id: '42' },
  ...overrides,
});
const payout = (overrides: Record<string, unknown> = {}, recipient: Record<string, unknown> = {}) => ({
  amount: 2500, currency: 'EUR', initiator_ip_address: '203.0.113.7',
  recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES', ...recipient },
  destination: { card_number: '4242424242424242' },
  ...overrides,
});
const card = (fields: Record<string, unknown>) => directPaymentBody({}, fields);

describe('an unpaired surrogate in any text field -> 400 parameter_invalid, param = the field', () => {
  it.each<[string, string, Record<string, string>, unknown, string]>([
    ['Direct (A) description', '/v1/payments', {}, directPaymentBody({ description: LONE }), 'description'],
    ['Direct (A) holder_name', '/v1/payments', {}, card({ holder_name: LONE }), 'payment_method_data.card.holder_name'],
    ['Direct (A) merchant_customer_id', '/v1/payments', {}, directPaymentBody({ merchant_customer_id: LONE }), 'merchant_customer_id'],
    ['Direct (A) return_url', '/v1/payments', {}, directPaymentBody({ return_url: `https://shop.example/${LONE}` }), 'return_url'],
    ['Direct (A) billing first_name', '/v1/payments', {}, directPaymentBody({ billing_details: { first_name: LONE } }), 'billing_details.first_name'],
    ['Direct (A) billing address line1', '/v1/payments', {}, directPaymentBody({ billing_details: { address: { line1: '\udc00' } } }), 'billing_details.address.line1'],
    ['Hosted (A) description', '/v1/payments/hpp', {}, hostedA({ description: `${LONE}💳` }), 'description'],
    ['Hosted (A) billing last_name', '/v1/payments/hpp', {}, hostedA({ billing_details: { last_name: '\ud83d' } }), 'billing_details.last_name'],
    ['Hosted (A) billing city', '/v1/payments/hpp', {}, hostedA({ billing_details: { address: { city: LONE } } }), 'billing_details.address.city'],
    ['Hosted (B) description', '/v1/payments/hpp', B, hostedB({ description: LONE }), 'description'],
    ['Hosted (B) customer first_name', '/v1/payments/hpp', B, hostedB({ customer: { first_name: LONE } }), 'customer.first_name'],
    ['Hosted (B) customer address', '/v1/payments/hpp', B, hostedB({ customer: { address: LONE } }), 'customer.address'],
    ['Hosted (B) metadata value', '/v1/payments/hpp', B, hostedB({ metadata: { order_id: '42', note: LONE } }), 'metadata.note'],
    ['Hosted (B) metadata key', '/v1/payments/hpp', B, hostedB({ metadata: { [`k${LONE}`]: 'v' } }), 'metadata'],
    ['Hosted (B) callback_url', '/v1/payments/hpp', B, hostedB({ callback_url: `https://shop.example/${LONE}` }), 'callback_url'],
    ['Refund reason', '/v1/refunds', {}, { payment_id: `pay_${'A'.repeat(24)}`, amount: 100, reason: LONE }, 'reason'],
    ['Refund payment_id', '/v1/refunds', {}, { payment_id: `pay_${LONE}`, amount: 100, reason: 'requested_by_customer' }, 'payment_id'],
    ['Payout recipient first_name', '/v1/payouts', {}, payout({}, { first_name: LONE }), 'recipient.first_name'],
    ['Payout recipient last_name', '/v1/payouts', {}, payout({}, { last_name: `${'x'.repeat(200)}\ud800` }), 'recipient.last_name'],
    ['Payout destination card_number', '/v1/payouts', {}, payout({ destination: { card_number: `4242${LONE}` } }), 'destination.card_number'],
  ])('%s', async (_label, path, headers, body, param) => {
    const res = await call(t.api, 'POST', path, { key: t.merchant.testKey, headers, body });
    expectError(res, 400, 'parameter_invalid', param);
    expect(res.json.error.message).toContain('unpaired UTF-16 surrogate');
    if (headers === B) expect(res.json.error.type).toBe('invalid_request_error');
  });

  it('a structural problem elsewhere in the body still wins (request_body_invalid)', async () => {
    const res = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody({ description: LONE, amount: '4999' }) });
    expectError(res, 400, 'request_body_invalid', 'amount');
  });

  it('bytes that are not UTF-8 (an encoded surrogate) -> 400 request_body_invalid', async () => {
    const [before, after] = JSON.stringify(directPaymentBody({ description: 'a@b' })).split('@');
    const body = Buffer.concat([Buffer.from(before!), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(after!)]);
    const response = await fetch(`${t.api.url}/v1/payments`, {
      method: 'POST', body, headers: { Authorization: `Bearer ${t.merchant.testKey}`, 'Idempotency-Key': `bytes-${Date.now()}`, 'Content-Type': 'application/json' },
    });
    const json = await response.json() as any;
    expect({ status: response.status, code: json.error.code }).toEqual({ status: 400, code: 'request_body_invalid' });
    expect(json.error.message).toContain('UTF-8');
  });

  it('the refused requests created nothing and claimed no idempotency key', async () => {
    const [counts] = await t.api.deps.dataSource.query(
      `SELECT (SELECT COUNT(*) FROM payments WHERE merchant_id = ?) AS payments, (SELECT COUNT(*) FROM payouts WHERE merchant_id = ?) AS payouts,
              (SELECT COUNT(*) FROM idempotency_records r JOIN api_keys k ON k.id = r.api_key_id WHERE k.merchant_id = ?) AS claims`,
      [t.merchant.merchantId, t.merchant.merchantId, t.merchant.merchantId],
    );
    expect({ payments: Number(counts.payments), payouts: Number(counts.payouts), claims: Number(counts.claims) }).toEqual({ payments: 0, payouts: 0, claims: 0 });
  });
});

describe('well-formed text outside the BMP is kept exactly', () => {
  const TEXT = 'Zoë 💳 𠀀 e\u0301';

  it('Shape A: the create answer, a replay and a read agree', async () => {
    const idempotencyKey = `emoji-${Date.now()}`;
    const body = directPaymentBody({ description: TEXT, billing_details: { first_name: '😀' } }, { holder_name: `Ada ${TEXT}` });
    const created = await call(t.api, 'POST', '/v1/payments', { key: accepted.testKey, body, idempotencyKey });
    expect(created.status).toBe(201);
    expect(created.json.description).toBe(TEXT);
    const replay = await call(t.api, 'POST', '/v1/payments', { key: accepted.testKey, body, idempotencyKey });
    expect(replay.text).toBe(created.text);
    const read = await call(t.api, 'GET', `/v1/payments/${created.json.id}`, { key: accepted.testKey });
    expect({ description: read.json.description, first_name: read.json.billing_details.first_name, holder: read.json.card.cardholder_name })
      .toEqual({ description: TEXT, first_name: '😀', holder: `Ada ${TEXT}` });
  });

  it('Shape B: metadata keys and values', async () => {
    const created = await call(t.api, 'POST', '/v1/payments/hpp', { key: accepted.testKey, headers: B, body: hostedB({ metadata: { '🔑': TEXT } }) });
    expect(created.status).toBe(201);
    const read = await call(t.api, 'GET', `/v1/payments/${created.json.id}`, { key: accepted.testKey, headers: B });
    expect(read.json.metadata).toEqual({ '🔑': TEXT });
  });
});

describe('the hosted page form', () => {
  async function openCheckout(): Promise<{ id: string; page: string }> {
    const created = await call(t.api, 'POST', '/v1/payments/hpp', { key: accepted.testKey, body: hostedA() });
    expect(created.status).toBe(201);
    return { id: created.json.id, page: `${t.api.url}${new URL(created.json.next_action.redirect_url).pathname}` };
  }

  const exp = `12/${String(FUTURE_YEAR).slice(-2)}`;

  it.each([
    ['a percent-encoded surrogate', `card_number=4242424242424242&exp=${encodeURIComponent(exp)}&cvc=123&cardholder_name=Ada%ED%A0%80`],
    ['a malformed escape', `card_number=4242424242424242&exp=${encodeURIComponent(exp)}&cvc=123&cardholder_name=Ada%zz`],
  ])('%s re-renders the form (400) and takes no card', async (_label, form) => {
    const { id, page } = await openCheckout();
    const response = await fetch(page, { method: 'POST', body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('The form could not be read.');
    const read = await call(t.api, 'GET', `/v1/payments/${id}`, { key: accepted.testKey });
    expect({ status: read.json.status, card: read.json.card }).toEqual({ status: 'REQUIRES_ACTION', card: null });
  });

  it('a name with emoji is kept whole', async () => {
    const { id, page } = await openCheckout();
    // 301 UTF-16 units: a cut at 300 units would leave half an emoji.
    const name = `a${'😀'.repeat(150)}`;
    const form = new URLSearchParams({ card_number: '4242424242424242', exp, cvc: '123', cardholder_name: name }).toString();
    const response = await fetch(page, { method: 'POST', body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect(response.status).toBe(303);
    const read = await call(t.api, 'GET', `/v1/payments/${id}`, { key: accepted.testKey });
    expect(read.json.card.cardholder_name).toBe(name);
  });
});
