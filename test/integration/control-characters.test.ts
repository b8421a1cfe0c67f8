// NUL, other control characters (but tab and line breaks) and the bidirectional overrides and
// isolates are refused in every text of every body, keys included, with `400 parameter_invalid`
// and the field's path; the hosted page form and the admin command's merchant name refuse them
// too. The bidi marks that right-to-left text needs stay allowed (docs/api-reference.md, "Text").
import { randomUUID } from 'node:crypto';
import { AdminError } from '../../src/services/admin-operations';
import { adminOps, call, createMerchant, directPaymentBody, type TestMerchant, useTestApi } from '../helpers/api';
import { expectError, FUTURE_YEAR } from '../helpers/payments';

/** t.merchant receives only requests that must be refused. */
const t = useTestApi({ config: { paymentActionTtlSeconds: 120 }, merchant: { name: 'Control Refused Shop' }, timeoutMs: 60_000 });
let accepted: TestMerchant;
beforeAll(async () => { accepted = await createMerchant(t.api, { name: 'Control Accepted Shop' }); });

const NUL = '\u0000';
const RLO = '\u202e';
const B = { 'Service-Version': '2024-06-01' };
const hostedA = (overrides: Record<string, unknown> = {}) => ({ amount: 4999, currency: 'USD', customer_ip_address: '203.0.113.7', return_url: 'https://shop.example/return', ...overrides });
const hostedB = (overrides: Record<string, unknown> = {}) => ({ amount: 2500, currency: 'eur', redirect_url: 'https://shop.example/back', ...overrides });
const payout = (recipient: Record<string, unknown>) => ({
  amount: 2500, currency: 'EUR', initiator_ip_address: '203.0.113.7',
  recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES', ...recipient }, destination: { card_number: '4242424242424242' },
});

describe('-> 400 parameter_invalid with the field, and nothing is created', () => {
  it.each<[string, string, Record<string, string>, unknown, string, string]>([
    ['NUL in a Direct description', '/v1/payments', {}, directPaymentBody({ description: `Order${NUL}42` }), 'description', 'U+0000'],
    ['RLO in the card holder name', '/v1/payments', {}, directPaymentBody({}, { holder_name: `Ada ${RLO}ecalevol` }), 'payment_method_data.card.holder_name', 'U+202E'],
    ['an isolate in a billing last name', '/v1/payments/hpp', {}, hostedA({ billing_details: { last_name: 'Love\u2067lace' } }), 'billing_details.last_name', 'U+2067'],
    ['an embedding in a Hosted description', '/v1/payments/hpp', {}, hostedA({ description: '\u202bOrder' }), 'description', 'U+202B'],
    ['a C1 control in a billing city', '/v1/payments/hpp', {}, hostedA({ billing_details: { address: { city: 'Lon\u0085don' } } }), 'billing_details.address.city', 'U+0085'],
    ['escape (ESC) in a Shape B customer name', '/v1/payments/hpp', B, hostedB({ customer: { first_name: '\u001b[31mAda' } }), 'customer.first_name', 'U+001B'],
    ['RLO in a Shape B metadata value', '/v1/payments/hpp', B, hostedB({ metadata: { note: `${RLO}gpj.exe` } }), 'metadata.note', 'U+202E'],
    ['NUL in a Shape B metadata key', '/v1/payments/hpp', B, hostedB({ metadata: { [`order${NUL}`]: '1' } }), 'metadata', 'U+0000'],
    ['RLO in a payout recipient name', '/v1/payouts', {}, payout({ first_name: `Ana${RLO}` }), 'recipient.first_name', 'U+202E'],
    ['NUL in a payout recipient last name', '/v1/payouts', {}, payout({ last_name: `D${NUL}` }), 'recipient.last_name', 'U+0000'],
    ['DEL in a refund reason', '/v1/refunds', {}, { payment_id: `pay_${'A'.repeat(24)}`, amount: 100, reason: 'return\u007f' }, 'reason', 'U+007F'],
    ['RLO in a webhook endpoint description', '/v1/webhook_endpoints', {}, { url: 'https://shop.example/h', enabled_events: ['*'], description: `${RLO}sredrO` }, 'description', 'U+202E'],
  ])('%s', async (_label, path, headers, body, param, codePoint) => {
    const res = await call(t.api, 'POST', path, { key: t.merchant.testKey, headers, body });
    expect({ status: res.status, code: res.json.error.code, param: res.json.error.param }).toEqual({ status: 400, code: 'parameter_invalid', param });
    expect(res.json.error.message).toContain(codePoint);
    if (headers === B) expect(res.json.error.type).toBe('invalid_request_error');
  });

  it('an update of a webhook endpoint is checked the same way, and keeps the old description', async () => {
    const created = await call(t.api, 'POST', '/v1/webhook_endpoints', { key: accepted.testKey, body: { url: 'https://shop.example/h', enabled_events: ['*'], description: 'Orders' } });
    expect(created.status).toBe(201);
    const res = await call(t.api, 'POST', `/v1/webhook_endpoints/${created.json.id}`, { key: accepted.testKey, body: { description: `Orders${NUL}` } });
    expectError(res, 400, 'parameter_invalid', 'description');
    expect((await call(t.api, 'GET', `/v1/webhook_endpoints/${created.json.id}`, { key: accepted.testKey })).json.description).toBe('Orders');
  });

  it('the refused requests created nothing and claimed no idempotency key', async () => {
    const [counts] = await t.api.deps.dataSource.query(
      `SELECT (SELECT COUNT(*) FROM payments WHERE merchant_id = ?) AS payments, (SELECT COUNT(*) FROM payouts WHERE merchant_id = ?) AS payouts,
              (SELECT COUNT(*) FROM webhook_endpoints WHERE merchant_id = ?) AS endpoints,
              (SELECT COUNT(*) FROM idempotency_records r JOIN api_keys k ON k.id = r.api_key_id WHERE k.merchant_id = ?) AS claims`,
      [t.merchant.merchantId, t.merchant.merchantId, t.merchant.merchantId, t.merchant.merchantId],
    );
    expect({ payments: Number(counts.payments), payouts: Number(counts.payouts), endpoints: Number(counts.endpoints), claims: Number(counts.claims) })
      .toEqual({ payments: 0, payouts: 0, endpoints: 0, claims: 0 });
  });
});

describe('what stays allowed, kept exactly as sent', () => {
  it('tab and line breaks in a description; the right-to-left mark in a right-to-left name', async () => {
    const description = 'Order 42\n\tGift wrap\r\nThanks';
    const name = '\u200fسارة';
    const res = await call(t.api, 'POST', '/v1/payments', {
      key: accepted.testKey, idempotencyKey: randomUUID(), body: directPaymentBody({ description, billing_details: { first_name: name } }, { holder_name: 'שרה\u200f Cohen' }),
    });
    expect(res.status).toBe(201);
    const read = await call(t.api, 'GET', `/v1/payments/${res.json.id}`, { key: accepted.testKey });
    expect({ description: read.json.description, first: read.json.billing_details.first_name, holder: read.json.card.cardholder_name })
      .toEqual({ description, first: name, holder: 'שרה\u200f Cohen' });
  });
});

describe('outside JSON bodies', () => {
  it('the hosted page form re-renders with a message for a name with an override, and takes no card', async () => {
    const created = await call(t.api, 'POST', '/v1/payments/hpp', { key: accepted.testKey, body: hostedA() });
    expect(created.status).toBe(201);
    const page = `${t.api.url}${new URL(created.json.next_action.redirect_url).pathname}`;
    const form = new URLSearchParams({ card_number: '4242424242424242', exp: `12/${String(FUTURE_YEAR).slice(-2)}`, cvc: '123', cardholder_name: `Ada ${RLO}ecalevol` });
    const response = await fetch(page, { method: 'POST', body: form.toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect(response.status).toBe(422);
    expect(await response.text()).toContain('The name contains characters that are not allowed.');
    const read = await call(t.api, 'GET', `/v1/payments/${created.json.id}`, { key: accepted.testKey });
    expect({ status: read.json.status, card: read.json.card }).toEqual({ status: 'REQUIRES_ACTION', card: null });
  });

  it('the admin command refuses a merchant name with a control character', async () => {
    await expect(adminOps(t.api).createMerchant({ name: `Shop${RLO}` })).rejects.toThrow(AdminError);
    await expect(adminOps(t.api).createMerchant({ name: `Shop${NUL}` })).rejects.toThrow('--name holds the control character U+0000');
  });
});
