// POST /v1/refunds (docs/api-reference.md, "Refunds") against a real MariaDB, a real
// Temporal server and the sandbox acquirer, through the in-process API.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { AmountMinorKey, CurrencyKey, MerchantIdKey, ObjectStatusKey, ObjectTypeKey } from '../../contracts/search-attributes';
import { adminOps, call, type CallResult, createMerchant, directPaymentBody, eventually, startTestApi, useTestApi } from '../helpers/api';
import { expectError, pay, readPayment, succeededPayment as paid } from '../helpers/payments';
import { clearSandboxFaults, sandboxRecords, SANDBOX_URL, setSandboxFaults } from '../helpers/sandbox';

const CARD = {
  visa: '4242424242424242',
  declined: '4000000000000002',
  challenge: '4000000000003220',
  refundFailsLater: '4000000000005126',
  refundRejected: '4000009000000003',
} as const;

const REFUND_ID = /^ref_[A-Za-z0-9]{24}$/;

const t = useTestApi();
afterEach(async () => { await clearSandboxFaults(); });

function refund(body: Record<string, unknown>, options: { key?: string; idempotencyKey?: string; headers?: Record<string, string> } = {}): Promise<CallResult> {
  return call(t.api, 'POST', '/v1/refunds', { key: options.key ?? t.merchant.testKey, body, idempotencyKey: options.idempotencyKey, headers: options.headers });
}

// Shape A requests, whatever the merchant's default version.
const SHAPE_A = '2025-09-01';
const getPayment = (id: string, key = t.merchant.testKey) => readPayment(t.api, key, id, SHAPE_A);
const createPayment = (amount: number, card: string, key = t.merchant.testKey) => pay(t.api, key, { body: { amount }, card: { number: card }, version: SHAPE_A });
const succeededPayment = (amount = 1000, card: string = CARD.visa, key = t.merchant.testKey) =>
  paid(t.api, key, { body: { amount }, card: { number: card }, version: SHAPE_A });

const terminal = (status: string) => status === 'SUCCEEDED' || status === 'FAILED';

/** Waits until no refund of the Payment is in progress. */
function settledPayment(id: string, key = t.merchant.testKey): Promise<any> {
  return eventually(() => getPayment(id, key), (p) => p.refunds.every((r: any) => terminal(r.status)));
}

describe('request checks and their precedence', () => {
  let paymentId: string;
  beforeAll(async () => { paymentId = (await succeededPayment()).id; });

  it('a key created without the refund permission -> 403 actor_forbidden, before the Idempotency-Key', async () => {
    const { key } = await adminOps(t.api).createKey({ merchantId: t.merchant.merchantId, mode: 'test', refunds: false });
    expectError(await refund({ payment_id: paymentId, amount: 1, reason: 'x' }, { key }), 403, 'actor_forbidden', null);
    const res = await call(t.api, 'POST', '/v1/refunds', { key, body: { payment_id: paymentId, amount: 1, reason: 'x' }, idempotencyKey: null });
    expectError(res, 403, 'actor_forbidden', null);
  });

  it('authentication and the version header come first', async () => {
    expectError(await call(t.api, 'POST', '/v1/refunds', { body: {} }), 401, 'invalid_api_key');
    expectError(await refund({}, { headers: { 'Service-Version': '2025-13' } }), 400, 'parameter_invalid', 'Service-Version');
  });

  it('the Idempotency-Key header is required, and comes before the body', async () => {
    const missing = await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, rawBody: 'not json', idempotencyKey: null });
    expectError(missing, 400, 'parameter_missing', 'Idempotency-Key');
    const tooLong = await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, rawBody: 'not json', idempotencyKey: 'k'.repeat(256) });
    expectError(tooLong, 400, 'parameter_invalid', 'Idempotency-Key');
  });

  it('an unreadable body -> 400 request_body_invalid', async () => {
    expectError(await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, rawBody: '{"amount":', headers: { 'Content-Type': 'application/json' } }), 400, 'request_body_invalid');
    expectError(await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, rawBody: '[]', headers: { 'Content-Type': 'application/json' } }), 400, 'request_body_invalid');
    expectError(await call(t.api, 'POST', '/v1/refunds', { key: t.merchant.testKey, rawBody: 'payment_id=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }), 400, 'request_body_invalid');
  });

  // Changes to a valid body; an undefined value leaves the field out.
  it.each([
    ['payment_id missing', { payment_id: undefined }, 'payment_id'],
    ['payment_id null', { payment_id: null }, 'payment_id'],
    ['payment_id a number', { payment_id: 42 }, 'payment_id'],
    ['amount missing', { amount: undefined }, 'amount'],
    ['amount a string', { amount: '100' }, 'amount'],
    ['amount a fraction', { amount: 1.5 }, 'amount'],
    ['reason missing', { reason: undefined }, 'reason'],
    ['reason null', { reason: null }, 'reason'],
    ['reason an object', { reason: { text: 'x' } }, 'reason'],
    ['merchant_reference a string', { merchant_reference: '1234567890' }, 'merchant_reference'],
    ['a currency (inherited from the Payment)', { currency: 'USD' }, 'currency'],
    ['an unknown field', { metadata: {} }, 'metadata'],
  ])('%s -> 400 request_body_invalid', async (_label, change, param) => {
    expectError(await refund({ payment_id: paymentId, amount: 1, reason: 'x', ...change }), 400, 'request_body_invalid', param);
  });

  it.each([
    ['amount 0', { amount: 0 }, 'amount'],
    ['a negative amount', { amount: -5 }, 'amount'],
    ['an amount above the bound', { amount: 100_000_000_000 }, 'amount'],
    ['a reason of 51 characters', { reason: 'r'.repeat(51) }, 'reason'],
    ['a reason of 51 emoji', { reason: '😀'.repeat(51) }, 'reason'],
    ['merchant_reference of 9 digits', { merchant_reference: 123456789 }, 'merchant_reference'],
    ['merchant_reference of 11 digits', { merchant_reference: 12345678901 }, 'merchant_reference'],
  ])('%s -> 400 parameter_invalid', async (_label, change, param) => {
    expectError(await refund({ payment_id: paymentId, amount: 1, reason: 'x', ...change }), 400, 'parameter_invalid', param);
  });

  it('a reason of 50 characters is accepted however many UTF-16 units they take (50 emoji), and kept exactly', async () => {
    const reason = '😀'.repeat(50);
    const res = await refund({ payment_id: paymentId, amount: 1, reason });
    expect(res.status).toBe(201);
    expect(res.json.reason).toBe(reason);
  });

  it('the body comes before business rules, and merchant_not_provisioned comes before the Payment lookup', async () => {
    const unprovisioned = await createMerchant(t.api);
    await adminOps(t.api).updateMerchant(unprovisioned.merchantId, { provisioned: false });
    expectError(await refund({ payment_id: paymentId, amount: 'x', reason: 'x' }, { key: unprovisioned.testKey }), 400, 'request_body_invalid', 'amount');
    expectError(await refund({ payment_id: paymentId, amount: 1, reason: 'x' }, { key: unprovisioned.testKey }), 422, 'merchant_not_provisioned', null);
  });

  it('always answers in Shape A, whatever version the merchant or the header asks for', async () => {
    const older = await createMerchant(t.api, { defaultVersion: '2024-06-01' });
    const payment = await succeededPayment(500, CARD.visa, older.testKey);
    const res = await refund({ payment_id: payment.id, amount: 100, reason: 'shape' }, { key: older.testKey, headers: { 'Service-Version': '2024-06-01' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('service-version')).toBe('2025-09-01');
    expect(res.json.status).toBe('PROCESSING');
    const error = await refund({ payment_id: payment.id, amount: 1000, reason: 'shape' }, { key: older.testKey });
    expectError(error, 422, 'amount_exceeds_refundable', 'amount');
  });
});

describe('the parent Payment', () => {
  it('an unknown payment id -> 404 object_not_found', async () => {
    expectError(await refund({ payment_id: 'pay_AAAAAAAAAAAAAAAAAAAAAAAA', amount: 1, reason: 'x' }), 404, 'object_not_found', 'payment_id');
    expectError(await refund({ payment_id: 'not-a-payment', amount: 1, reason: 'x' }), 404, 'object_not_found', 'payment_id');
  });

  it("another merchant's Payment -> 404 object_not_found", async () => {
    const other = await createMerchant(t.api);
    const theirs = await succeededPayment(700, CARD.visa, other.testKey);
    expectError(await refund({ payment_id: theirs.id, amount: 1, reason: 'x' }), 404, 'object_not_found', 'payment_id');
    expect((await getPayment(theirs.id, other.testKey)).refunds).toEqual([]);
  });

  it('a Payment of the other mode -> 404 object_not_found', async () => {
    // A live provider makes live keys provisioned, so the lookup itself is what answers.
    const liveApi = await startTestApi({ liveProviderUrl: SANDBOX_URL });
    try {
      const testPayment = await succeededPayment(700);
      const res = await call(liveApi, 'POST', '/v1/refunds', { key: t.merchant.liveKey, body: { payment_id: testPayment.id, amount: 1, reason: 'x' } });
      expectError(res, 404, 'object_not_found', 'payment_id');
    } finally {
      await liveApi.close();
    }
  });

  it('a FAILED Payment (declined card, its workflow closed) -> 422 payment_not_refundable', async () => {
    const payment = await createPayment(1000, CARD.declined);
    expect(payment.status).toBe('FAILED');
    expectError(await refund({ payment_id: payment.id, amount: 1, reason: 'x' }), 422, 'payment_not_refundable', 'payment_id');
  });

  it('a REQUIRES_ACTION Payment -> 422 payment_not_refundable', async () => {
    const payment = await createPayment(1000, CARD.challenge);
    expect(payment.status).toBe('REQUIRES_ACTION');
    expect(payment.amount_refundable).toBe(0);
    expectError(await refund({ payment_id: payment.id, amount: 1, reason: 'x' }), 422, 'payment_not_refundable', 'payment_id');
  });

  it('a PROCESSING Payment -> 422 payment_not_refundable', async () => {
    // A slow acquirer keeps the Payment PROCESSING until its settlement check is answered.
    await setSandboxFaults({ latency_ms: 2500 });
    const payment = await createPayment(1000, CARD.visa);
    expect(payment.status).toBe('PROCESSING');
    expectError(await refund({ payment_id: payment.id, amount: 1, reason: 'x' }), 422, 'payment_not_refundable', 'payment_id');
    await clearSandboxFaults();
    const settled = await eventually(() => getPayment(payment.id), (p) => p.status === 'SUCCEEDED');
    expect(settled.refunds).toEqual([]);
  });
});

describe('the refund window', () => {
  it('a SUCCEEDED Payment whose refund window has closed -> 422 payment_not_refundable', async () => {
    const shortWindow = await startTestApi({ refundWindowSeconds: 1 });
    try {
      const created = await call(shortWindow, 'POST', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody({ amount: 1000 }) });
      expect(created.status).toBe(201);
      await eventually(() => getPayment(created.json.id), (p) => p.status === 'SUCCEEDED');
      const handle = t.api.deps.temporal.workflow.getHandle(created.json.id);
      await eventually(() => handle.describe(), (d) => d.status.name === 'COMPLETED');
      expectError(await refund({ payment_id: created.json.id, amount: 1, reason: 'too late' }), 422, 'payment_not_refundable', 'payment_id');
    } finally {
      await shortWindow.close();
    }
  });
});

describe('creating refunds', () => {
  it('a FULL refund: 201 PROCESSING, then SUCCEEDED, and nothing is left to refund', async () => {
    const payment = await succeededPayment(1000);
    const res = await refund({ payment_id: payment.id, amount: 1000, reason: 'requested_by_customer', merchant_reference: 1234567890 });
    expect(res.status).toBe(201);
    const created = res.json;
    expect(created).toEqual({
      id: expect.stringMatching(REFUND_ID),
      payment_id: payment.id,
      amount: 1000,
      currency: 'USD',
      merchant_reference: 1234567890,
      reason: 'requested_by_customer',
      refund_type: 'FULL',
      status: 'PROCESSING',
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      completed_at: null,
      livemode: false,
    });

    // The in-progress refund already holds its amount.
    const during = await getPayment(payment.id);
    expect(during.amount_refundable).toBe(0);
    expect(during.refunds.map((r: any) => r.id)).toEqual([created.id]);

    const after = await eventually(() => getPayment(payment.id), (p) => p.refunds[0].status === 'SUCCEEDED');
    expect(after.amount_refunded).toBe(1000);
    expect(after.amount_refundable).toBe(0);
    const done = after.refunds[0];
    expect(done.completed_at).toEqual(expect.any(Number));
    expect(done.updated_at).toBeGreaterThanOrEqual(created.updated_at);
    expect(done.failure).toBeUndefined();

    expectError(await refund({ payment_id: payment.id, amount: 1, reason: 'again' }), 422, 'amount_exceeds_refundable', 'amount');
  });

  it('partial refunds: the remainder is PARTIAL, the refunds array is oldest first, and zero remaining refuses any amount', async () => {
    const payment = await succeededPayment(1000);
    const first = await refund({ payment_id: payment.id, amount: 300, reason: 'damaged' });
    expect(first.status).toBe(201);
    expect(first.json.refund_type).toBe('PARTIAL');
    expect((await getPayment(payment.id)).amount_refundable).toBe(700);

    expectError(await refund({ payment_id: payment.id, amount: 701, reason: 'too much' }), 422, 'amount_exceeds_refundable', 'amount');

    await eventually(() => getPayment(payment.id), (p) => p.refunds[0].status === 'SUCCEEDED');
    // amount_refundable returns all that is left; after a partial it is PARTIAL.
    const { amount_refundable: remaining } = await getPayment(payment.id);
    const second = await refund({ payment_id: payment.id, amount: remaining, reason: 'the rest' });
    expect(second.status).toBe(201);
    expect(second.json.amount).toBe(700);
    expect(second.json.refund_type).toBe('PARTIAL');

    const after = await settledPayment(payment.id);
    expect(after.refunds.map((r: any) => r.id)).toEqual([first.json.id, second.json.id]);
    expect(after.amount_refunded).toBe(1000);
    expect(after.amount_refundable).toBe(0);
    expectError(await refund({ payment_id: payment.id, amount: 1, reason: 'nothing left' }), 422, 'amount_exceeds_refundable', 'amount');
  });

  it('an amount above the Payment amount -> 422 amount_exceeds_refundable', async () => {
    const payment = await succeededPayment(1000);
    expectError(await refund({ payment_id: payment.id, amount: 1001, reason: 'x' }), 422, 'amount_exceeds_refundable', 'amount');
    expect((await getPayment(payment.id)).refunds).toEqual([]);
  });

  it('a refund that fails later gives its amount back, and a FULL refund is possible afterwards', async () => {
    const payment = await succeededPayment(1000, CARD.refundFailsLater);
    const first = await refund({ payment_id: payment.id, amount: 400, reason: 'partial' });
    expect(first.status).toBe(201);
    expect(first.json.status).toBe('PROCESSING');
    expect((await getPayment(payment.id)).amount_refundable).toBe(600);

    const after = await eventually(() => getPayment(payment.id), (p) => p.refunds[0].status === 'FAILED');
    const failed = after.refunds[0];
    expect(failed.failure).toEqual({ code: 'processor_error', message: expect.any(String) });
    expect(failed.failure.message.length).toBeGreaterThan(0);
    expect(failed.completed_at).toEqual(expect.any(Number));
    expect(after.amount_refunded).toBe(0);
    expect(after.amount_refundable).toBe(1000);

    // A failed partial refund does not prevent a later FULL one.
    const full = await refund({ payment_id: payment.id, amount: 1000, reason: 'full' });
    expect(full.status).toBe(201);
    expect(full.json.refund_type).toBe('FULL');
  });

  it('a refund rejected at submission -> 201 FAILED not_permitted, and the balance is untouched', async () => {
    const payment = await succeededPayment(1000, CARD.refundRejected);
    const res = await refund({ payment_id: payment.id, amount: 250, reason: 'rejected' });
    expect(res.status).toBe(201);
    expect(res.json.status).toBe('FAILED');
    expect(res.json.failure).toEqual({ code: 'not_permitted', message: expect.any(String) });
    expect(res.json.completed_at).toEqual(expect.any(Number));

    const after = await getPayment(payment.id);
    expect(after.refunds).toEqual([res.json]);
    expect(after.amount_refundable).toBe(1000);
    expect(after.amount_refunded).toBe(0);
  });

  it('the Refund workflow carries the search attributes, and the provider key is derived from the refund id', async () => {
    const payment = await succeededPayment(1000);
    const res = await refund({ payment_id: payment.id, amount: 600, reason: 'attributes' });
    expect(res.status).toBe(201);
    const refundId: string = res.json.id;
    await eventually(() => getPayment(payment.id), (p) => p.refunds[0].status === 'SUCCEEDED');

    const handle = t.api.deps.temporal.workflow.getHandle(refundId);
    const description = await eventually(() => handle.describe(), (d) => d.typedSearchAttributes.get(ObjectStatusKey) === 'SUCCEEDED');
    expect(description.type).toBe('RefundWorkflow');
    const attributes = description.typedSearchAttributes;
    expect(attributes.get(ObjectTypeKey)).toBe('refund');
    expect(attributes.get(MerchantIdKey)).toBe(t.merchant.merchantId);
    expect(attributes.get(AmountMinorKey)).toBe(600);
    expect(attributes.get(CurrencyKey)).toBe('USD');

    const records = await sandboxRecords(refundId);
    expect(records.refunds).toEqual([expect.objectContaining({ idempotency_key: `${refundId}:refund`, amount: 600, currency: 'USD', status: 'succeeded' })]);
  });
});

describe('idempotency', () => {
  it('the same key and body replays the saved answer byte for byte and creates nothing twice', async () => {
    const payment = await succeededPayment(1000);
    const key = randomUUID();
    const body = { payment_id: payment.id, amount: 100, reason: 'replay' };
    const first = await refund(body, { idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    await eventually(() => getPayment(payment.id), (p) => p.refunds[0].status === 'SUCCEEDED');
    // Omitted and null merchant_reference are one identity; property order does not matter.
    const replay = await refund({ reason: 'replay', merchant_reference: null, amount: 100, payment_id: payment.id }, { idempotencyKey: key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect((await getPayment(payment.id)).refunds).toHaveLength(1);
  });

  it('the same key while the first request still runs -> 409 idempotency_key_in_use at once', async () => {
    const payment = await succeededPayment(1000);
    const key = randomUUID();
    const body = { payment_id: payment.id, amount: 100, reason: 'in use' };
    // A slow acquirer keeps the first request waiting for the refund's first report.
    await setSandboxFaults({ latency_ms: 1500 });
    const first = refund(body, { idempotencyKey: key });
    await eventually(() => t.api.deps.dataSource.query("SELECT 1 FROM idempotency_records WHERE idempotency_key = ? AND operation = 'refunds.create'", [key]), (rows: unknown[]) => rows.length === 1, 10_000, 50);
    expectError(await refund(body, { idempotencyKey: key }), 409, 'idempotency_key_in_use', 'Idempotency-Key');
    expect((await first).status).toBe(201);
    await clearSandboxFaults();
    expect((await settledPayment(payment.id)).refunds).toHaveLength(1);
  });

  it('the same key with another identity -> 409 idempotency_key_reused', async () => {
    const payment = await succeededPayment(1000);
    const key = randomUUID();
    expect((await refund({ payment_id: payment.id, amount: 100, reason: 'first' }, { idempotencyKey: key })).status).toBe(201);
    for (const change of [{ amount: 101 }, { reason: 'second' }, { merchant_reference: 1234567890 }]) {
      expectError(await refund({ payment_id: payment.id, amount: 100, reason: 'first', ...change }, { idempotencyKey: key }), 409, 'idempotency_key_reused', 'Idempotency-Key');
    }
    expect((await getPayment(payment.id)).refunds).toHaveLength(1);
  });

  it('errors are not saved: the same key succeeds once the balance allows it', async () => {
    const payment = await succeededPayment(1000, CARD.refundFailsLater);
    expect((await refund({ payment_id: payment.id, amount: 300, reason: 'fails later' })).status).toBe(201);
    const key = randomUUID();
    const body = { payment_id: payment.id, amount: 800, reason: 'retried' };
    expectError(await refund(body, { idempotencyKey: key }), 422, 'amount_exceeds_refundable', 'amount');
    await eventually(() => getPayment(payment.id), (p) => p.refunds[0].status === 'FAILED');
    const retried = await refund(body, { idempotencyKey: key });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a key is scoped to the operation: the key of a Payment create is free for a refund', async () => {
    const key = randomUUID();
    const created = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody({ amount: 900 }), idempotencyKey: key });
    expect(created.status).toBe(201);
    await eventually(() => getPayment(created.json.id), (p) => p.status === 'SUCCEEDED');
    const res = await refund({ payment_id: created.json.id, amount: 900, reason: 'same key' }, { idempotencyKey: key });
    expect(res.status).toBe(201);
    expect(res.json.id).toMatch(REFUND_ID);
  });
});

describe('concurrency', () => {
  it('20 parallel refunds of a tenth of the amount: exactly 10 accepted, 10 refused', async () => {
    const payment = await succeededPayment(1000);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => refund({ payment_id: payment.id, amount: 100, reason: `parallel ${i}` })));
    const accepted = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    expect(accepted).toHaveLength(10);
    expect(refused).toHaveLength(10);
    for (const answer of refused) expectError(answer, 422, 'amount_exceeds_refundable', 'amount');
    for (const answer of accepted) expect(answer.json.refund_type).toBe('PARTIAL');

    const after = await settledPayment(payment.id);
    expect(after.refunds).toHaveLength(10);
    expect(after.refunds.every((r: any) => r.status === 'SUCCEEDED')).toBe(true);
    expect(after.amount_refunded).toBe(1000);
    expect(after.amount_refundable).toBe(0);
    const providerRefunds = await Promise.all(accepted.map((a) => sandboxRecords(a.json.id)));
    expect(providerRefunds.map((r) => r.refunds.length)).toEqual(Array(10).fill(1));
  });

  it('property: concurrent refunds never exceed the Payment amount, and the balance ends consistent', async () => {
    const amount = 1000;
    await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 2, maxLength: 8 }), async (amounts) => {
      const payment = await succeededPayment(amount);
      const answers = await Promise.all(amounts.map((value, i) => refund({ payment_id: payment.id, amount: value, reason: `property ${i}` })));
      let acceptedSum = 0;
      for (const answer of answers) {
        if (answer.status === 201) acceptedSum += answer.json.amount;
        else expectError(answer, 422, 'amount_exceeds_refundable', 'amount');
      }
      expect(acceptedSum).toBeLessThanOrEqual(amount);
      // The balance only went down, so a refused amount exceeded even the final balance.
      answers.forEach((answer, i) => { if (answer.status !== 201) expect(amounts[i]!).toBeGreaterThan(amount - acceptedSum); });
      expect(answers.filter((a) => a.status === 201).length).toBeGreaterThan(0);

      const after = await settledPayment(payment.id);
      expect(after.amount_refunded).toBe(acceptedSum);
      expect(after.amount_refundable).toBe(amount - acceptedSum);
      expect(after.refunds.reduce((sum: number, r: any) => sum + r.amount, 0)).toBe(acceptedSum);
    }), { numRuns: 6 });
  });
});
