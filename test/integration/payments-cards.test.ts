// Direct Payments (Shape A) with every payment row of the test-card table (docs/quickstart.md): the 201
// answer, the masked card, failure codes, status_transitions and the refundable balance, against
// the real sandbox acquirer, Temporal and MariaDB.
import { failureMessage, type FailureCode } from '../../src/domain/failure-codes';
import { useTestApi } from '../helpers/api';
import { FUTURE_YEAR, PAYMENT_ID, createDirectPayment, getPayment, nowSeconds, waitForStatus } from '../helpers/payments';
import { sandboxRecords } from '../helpers/sandbox';


const t = useTestApi();

function expectTimestampNearNow(value: unknown, startedAt: number): void {
  expect(typeof value).toBe('number');
  expect(value as number).toBeGreaterThanOrEqual(startedAt);
  expect(value as number).toBeLessThanOrEqual(nowSeconds());
}

describe('approved cards: 201 PROCESSING, then SUCCEEDED', () => {
  it.each([
    ['4242424242424242', 'VISA', '4242', '123'],
    ['5555555555554444', 'MASTERCARD', '4444', '123'],
    ['378282246310005', 'AMEX', '0005', '1234'],
    ['6011111111111117', 'DISCOVER', '1117', '123'],
    // Refund-behaviour cards pay like any approved card.
    ['4000000000005126', 'VISA', '5126', '123'],
    ['4000009000000003', 'VISA', '0003', '123'],
    // Any other Luhn-valid number behaves like 4242424242424242 for its brand.
    ['4111111111111111', 'VISA', '1111', '123'],
  ])('%s (%s)', async (number, brand, last4, cvc) => {
    const startedAt = nowSeconds();
    const res = await createDirectPayment(t.api, t.merchant.testKey, { amount: 2500, merchant_reference: 1234567890, description: 'Order 42' }, { number, cvc, exp_month: 7, holder_name: 'Grace Hopper' });
    expect(res.status).toBe(201);
    const created = res.json;
    expect(created).toMatchObject({
      amount: 2500,
      currency: 'USD',
      status: 'PROCESSING',
      integration_type: 'DIRECT',
      merchant_reference: 1234567890,
      description: 'Order 42',
      card: { brand, last4, exp_month: 7, exp_year: FUTURE_YEAR, cardholder_name: 'Grace Hopper', country: 'US' },
      billing_details: null,
      failure_code: null,
      failure_message: null,
      amount_refunded: 0,
      amount_refundable: 0,
      refunds: [],
      livemode: false,
      next_action: null,
    });
    expect(created.id).toMatch(PAYMENT_ID);
    expectTimestampNearNow(created.created_at, startedAt);
    expectTimestampNearNow(created.status_transitions.processing_at, startedAt);
    expect(created.status_transitions).toMatchObject({ requires_action_at: null, succeeded_at: null, failed_at: null, expired_at: null });
    // The masked card never carries more than the last four digits.
    expect(res.text).not.toContain(number);
    expect(res.text).not.toContain(`"${cvc}"`);

    const succeeded = await waitForStatus(t.api, t.merchant.testKey, created.id, 'SUCCEEDED');
    expect(succeeded).toMatchObject({ amount_refundable: 2500, amount_refunded: 0, failure_code: null, next_action: null, card: created.card });
    expect(succeeded.status_transitions.processing_at).toBe(created.status_transitions.processing_at);
    expectTimestampNearNow(succeeded.status_transitions.succeeded_at, created.status_transitions.processing_at);
    expect(succeeded.status_transitions).toMatchObject({ requires_action_at: null, failed_at: null, expired_at: null });

    const records = await sandboxRecords(created.id);
    expect(records.authorizations).toHaveLength(1);
    expect(records.authorizations[0]).toMatchObject({ idempotency_key: `${created.id}:authorize`, amount: 2500, currency: 'USD', status: 'succeeded' });
  });
});

describe('declined cards: 201 FAILED with the failure code', () => {
  it.each<[string, FailureCode]>([
    ['4000000000000002', 'generic_decline'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000101', 'do_not_honor'],
    ['4000000000000069', 'expired_card'],
    ['4000000000009987', 'lost_card'],
    ['4000000000009979', 'stolen_card'],
    ['4100000000000019', 'fraud_filter'],
    ['4000000000000127', 'issuer_declined'],
    ['4000000000000119', 'processor_error'],
  ])('%s -> %s', async (number, code) => {
    const startedAt = nowSeconds();
    const res = await createDirectPayment(t.api, t.merchant.testKey, {}, { number });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      status: 'FAILED',
      failure_code: code,
      failure_message: failureMessage(code),
      card: { brand: 'VISA', last4: number.slice(-4), country: 'US' },
      amount_refundable: 0,
      amount_refunded: 0,
      next_action: null,
    });
    expect(res.json.status_transitions).toMatchObject({ requires_action_at: null, processing_at: null, succeeded_at: null, expired_at: null });
    expectTimestampNearNow(res.json.status_transitions.failed_at, startedAt);
    // What GET shows is what the create answered: FAILED is terminal.
    const read = await getPayment(t.api, t.merchant.testKey, res.json.id);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(res.json);
  });
});

describe('3D Secure cards: 201 REQUIRES_ACTION with a redirect', () => {
  it.each([['4000000000003220'], ['4000000000003063'], ['4000008400001629']])('%s', async (number) => {
    const startedAt = nowSeconds();
    const res = await createDirectPayment(t.api, t.merchant.testKey, {}, { number });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ status: 'REQUIRES_ACTION', card: { brand: 'VISA', last4: number.slice(-4), country: 'US' }, amount_refundable: 0, failure_code: null });
    expect(res.json.next_action).toEqual({ type: 'redirect', reason: 'three_d_secure', redirect_url: expect.stringMatching(/^https?:\/\//) });
    expectTimestampNearNow(res.json.status_transitions.requires_action_at, startedAt);
    expect(res.json.status_transitions).toMatchObject({ processing_at: null, succeeded_at: null, failed_at: null, expired_at: null });
  });
});

describe('expired card', () => {
  it('is created FAILED expired_card without reaching the provider', async () => {
    const res = await createDirectPayment(t.api, t.merchant.testKey, {}, { exp_month: 1, exp_year: 2020 });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      status: 'FAILED', failure_code: 'expired_card', failure_message: failureMessage('expired_card'),
      card: { brand: 'VISA', last4: '4242', exp_month: 1, exp_year: 2020 }, amount_refundable: 0,
    });
    expect(typeof res.json.status_transitions.failed_at).toBe('number');
    expect((await sandboxRecords(res.json.id)).authorizations).toHaveLength(0);
  });

  it('a card expiring this month is still valid', async () => {
    const now = new Date();
    const res = await createDirectPayment(t.api, t.merchant.testKey, {}, { exp_month: now.getUTCMonth() + 1, exp_year: now.getUTCFullYear() });
    expect(res.status).toBe(201);
    expect(res.json.status).toBe('PROCESSING');
  });
});

describe('fields of the created Payment', () => {
  it('echoes the billing details and keeps the original currency', async () => {
    const billing = { email: 'ada@example.com', first_name: 'Ada', last_name: null, phone: '+14155550123', address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' } };
    const res = await createDirectPayment(t.api, t.merchant.testKey, { currency: ' jpy ', amount: 4999, billing_details: billing, merchant_customer_id: 'cus_1' });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ currency: 'JPY', amount: 4999, billing_details: billing });
    const done = await waitForStatus(t.api, t.merchant.testKey, res.json.id, 'SUCCEEDED');
    expect(done).toMatchObject({ currency: 'JPY', amount: 4999, amount_refundable: 4999, billing_details: billing });
  });

  it('the largest amount is accepted', async () => {
    const res = await createDirectPayment(t.api, t.merchant.testKey, { amount: 99_999_999_999 });
    expect(res.status).toBe(201);
    expect(res.json.amount).toBe(99_999_999_999);
    const done = await waitForStatus(t.api, t.merchant.testKey, res.json.id, 'SUCCEEDED');
    expect(done.amount_refundable).toBe(99_999_999_999);
  });

  it('omitted optional fields are null', async () => {
    const res = await createDirectPayment(t.api, t.merchant.testKey, {}, { holder_name: undefined });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ merchant_reference: null, description: null, billing_details: null, card: { cardholder_name: null } });
  });
});

describe('latency', () => {
  it('measures a frictionless create (p50 over sequential requests)', async () => {
    const samples: number[] = [];
    for (let i = 0; i < 15; i += 1) {
      const started = performance.now();
      const res = await createDirectPayment(t.api, t.merchant.testKey);
      samples.push(performance.now() - started);
      expect(res.status).toBe(201);
    }
    samples.sort((a, b) => a - b);
    const p50 = samples[Math.floor(samples.length / 2)]!;
    // Reported, not asserted: the machine is shared.
    console.log(`frictionless create latency: p50 ${p50.toFixed(0)} ms, min ${samples[0]!.toFixed(0)} ms, max ${samples[samples.length - 1]!.toFixed(0)} ms over ${samples.length}`);
  });
});
