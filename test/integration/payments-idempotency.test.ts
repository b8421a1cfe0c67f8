// Idempotency of POST /v1/payments (docs/api-reference.md, "Idempotency"): replays are
// byte-identical, a changed identity is refused, card fields are not part of the identity, keys are
// scoped by API key and operation, errors are not cached, concurrent duplicates create one Payment
// and one provider authorization, and a request that died holding its claim does not leave the key
// stuck.
import { randomUUID } from 'node:crypto';
import { fingerprint } from '../../src/domain/fingerprint';
import { newId } from '../../src/domain/ids';
import { adminOps, call, createMerchant, directPaymentBody, useTestApi } from '../helpers/api';
import { boundPaymentId, createDirectPayment, expectError, paymentRowCount, waitForStatus } from '../helpers/payments';
import { sandboxRecords } from '../helpers/sandbox';


const t = useTestApi();

describe('replay', () => {
  it('same key and body -> the saved status and bytes, with Idempotent-Replayed: true', async () => {
    const key = randomUUID();
    const first = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const replay = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('content-type')).toMatch(/^application\/json/);

    // Still the creation response after the Payment moved on; the current state is read with GET.
    await waitForStatus(t.api, t.merchant.testKey, first.json.id, 'SUCCEEDED');
    const later = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    expect(later.text).toBe(first.text);
    expect(later.json.status).toBe('PROCESSING');
    expect((await sandboxRecords(first.json.id)).authorizations).toHaveLength(1);
  });

  it('a 201 FAILED is saved and replayed like any 2xx', async () => {
    const key = randomUUID();
    const first = await createDirectPayment(t.api, t.merchant.testKey, {}, { number: '4000000000000002' }, key);
    expect(first.status).toBe(201);
    expect(first.json.status).toBe('FAILED');
    const replay = await createDirectPayment(t.api, t.merchant.testKey, {}, { number: '4000000000000002' }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
  });

  it('property order and whitespace do not change the identity', async () => {
    const key = randomUUID();
    const body = directPaymentBody({ description: 'Order 7', billing_details: { email: 'ada@example.com', address: { city: 'Paris', country: 'FR' } } });
    const first = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body, idempotencyKey: key });
    expect(first.status).toBe(201);
    const reordered = reverseKeys(body);
    const rawBody = `\n  ${JSON.stringify(reordered, null, 4)}\t\n`;
    expect(rawBody).not.toBe(JSON.stringify(body));
    const replay = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, rawBody, headers: { 'Content-Type': 'application/json' }, idempotencyKey: key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
  });

  it('an omitted optional field and an explicit null are the same identity', async () => {
    const key = randomUUID();
    const first = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    const replay = await createDirectPayment(t.api, t.merchant.testKey, { description: null, merchant_reference: null, billing_details: null }, {}, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
  });
});

describe('reuse with a different identity -> 409 idempotency_key_reused', () => {
  it.each<[string, Record<string, unknown>]>([
    ['amount', { amount: 5000 }],
    ['currency text as submitted', { currency: 'USD' }],
    ['description', { description: 'another order' }],
    ['merchant_reference', { merchant_reference: 1234567890 }],
    ['customer_ip_address', { customer_ip_address: '198.51.100.1' }],
    ['return_url', { return_url: 'https://shop.example/other' }],
    ['merchant_customer_id', { merchant_customer_id: 'cus_2' }],
    ['billing_details', { billing_details: { email: 'grace@example.com' } }],
  ])('%s changed', async (_label, change) => {
    const key = randomUUID();
    const first = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    expect(first.status).toBe(201);
    expectError(await createDirectPayment(t.api, t.merchant.testKey, change, {}, key), 409, 'idempotency_key_reused', 'Idempotency-Key');
    // The original is untouched and still replays.
    const replay = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    expect(replay.text).toBe(first.text);
  });
});

describe('card fields are not part of the identity', () => {
  it('a card-only change replays the original without submitting the new card', async () => {
    const key = randomUUID();
    const first = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    expect(first.status).toBe(201);
    const changed = await createDirectPayment(t.api, t.merchant.testKey, {}, { number: '5555555555554444', cvc: '999', exp_month: 3, holder_name: 'Someone Else' }, key);
    expect(changed.status).toBe(201);
    expect(changed.headers.get('idempotent-replayed')).toBe('true');
    expect(changed.text).toBe(first.text);
    expect(changed.json.card.last4).toBe('4242');
    const records = await sandboxRecords(first.json.id);
    expect(records.authorizations).toHaveLength(1);
  });
});

describe('scope', () => {
  it('the same key with another API key of the same merchant creates another Payment', async () => {
    const key = randomUUID();
    const { key: secondApiKey } = await adminOps(t.api).createKey({ merchantId: t.merchant.merchantId, mode: 'test' });
    const first = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    const second = await createDirectPayment(t.api, secondApiKey, {}, {}, key);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.json.id).not.toBe(first.json.id);
  });

  it('the same key on /v1/payments/hpp is independent', async () => {
    const key = randomUUID();
    const direct = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    const hostedBody = { amount: 4999, currency: 'usd', customer_ip_address: '203.0.113.7', return_url: 'https://shop.example/return' };
    const hosted = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, body: hostedBody, idempotencyKey: key });
    expect(direct.status).toBe(201);
    expect(hosted.status).toBe(201);
    expect(hosted.headers.get('idempotent-replayed')).toBeNull();
    expect(hosted.json.integration_type).toBe('HOSTED_PAYMENT_PAGE');
    expect(hosted.json.id).not.toBe(direct.json.id);
    // Each still replays its own response.
    expect((await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key)).text).toBe(direct.text);
  });

  it('equal merchant references with different keys create two Payments', async () => {
    const a = await createDirectPayment(t.api, t.merchant.testKey, { merchant_reference: 5555555555 });
    const b = await createDirectPayment(t.api, t.merchant.testKey, { merchant_reference: 5555555555 });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.json.id).not.toBe(b.json.id);
  });
});

describe('errors are not cached', () => {
  it('a validation error does not bind the key: the corrected body with the same key is created', async () => {
    const key = randomUUID();
    expectError(await createDirectPayment(t.api, t.merchant.testKey, { amount: 0 }, {}, key), 400, 'parameter_invalid', 'amount');
    expect(await boundPaymentId(t.api, key)).toBeNull();
    const corrected = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
    // The invalid body is still answered by validation, which runs before the idempotency state.
    expectError(await createDirectPayment(t.api, t.merchant.testKey, { amount: 0 }, {}, key), 400, 'parameter_invalid', 'amount');
  });

  it('a business-rule error is answered again on retry, not replayed', async () => {
    const key = randomUUID();
    const first = await createDirectPayment(t.api, t.merchant.testKey, { currency: 'AUD' }, {}, key);
    expectError(first, 422, 'currency_not_supported', 'currency');
    const again = await createDirectPayment(t.api, t.merchant.testKey, { currency: 'AUD' }, {}, key);
    expectError(again, 422, 'currency_not_supported', 'currency');
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    // A changed body after currency_not_supported needs a new key (docs/quickstart.md).
    expectError(await createDirectPayment(t.api, t.merchant.testKey, { currency: 'EUR' }, {}, key), 409, 'idempotency_key_reused', 'Idempotency-Key');
  });
});

describe('concurrency', () => {
  it('ten concurrent same-key requests create exactly one Payment and one authorization', async () => {
    const solo = await createMerchant(t.api, { name: 'Concurrent Shop' });
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 10 }, () => createDirectPayment(t.api, solo.testKey, {}, {}, key)));
    const created = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    const replayed = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === 'true');
    const inUse = answers.filter((a) => a.status === 409);
    expect(created).toHaveLength(1);
    expect(replayed.length + inUse.length).toBe(9);
    for (const answer of inUse) expectError(answer, 409, 'idempotency_key_in_use', 'Idempotency-Key');
    for (const answer of replayed) expect(answer.text).toBe(created[0]!.text);

    expect(await paymentRowCount(t.api, solo.merchantId)).toBe(1);
    expect((await sandboxRecords(created[0]!.json.id)).authorizations).toHaveLength(1);
    // Once the first finished, everyone gets the replay.
    const after = await createDirectPayment(t.api, solo.testKey, {}, {}, key);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.text).toBe(created[0]!.text);
  });
});

describe('a request that died holding its claim', () => {
  /** The claim row a request leaves when its process dies after claiming, before saving an answer. */
  async function leaveClaim(idempotencyKey: string, lockedUntilMs: number): Promise<string> {
    const [apiKey] = await t.api.deps.dataSource.query("SELECT id FROM api_keys WHERE merchant_id = ? AND mode = 'test' ORDER BY created_at LIMIT 1", [t.merchant.merchantId]);
    const body = directPaymentBody();
    const identity = { amount: body.amount, currency: body.currency, customer_ip_address: body.customer_ip_address, return_url: body.return_url };
    const objectId = newId('payment');
    const now = Math.floor(Date.now() / 1000);
    await t.api.deps.dataSource.query(
      `INSERT INTO idempotency_records (api_key_id, operation, idempotency_key, fingerprint, object_id, state, response_status, response_body, locked_until_ms, created_at, expires_at)
       VALUES (?, 'payments.create', ?, ?, ?, 'processing', NULL, NULL, ?, ?, ?)`,
      [apiKey.id, idempotencyKey, fingerprint('payments.create', identity), objectId, lockedUntilMs, now, now + 3600],
    );
    return objectId;
  }

  it('while its lease runs, a retry gets 409 idempotency_key_in_use', async () => {
    const key = randomUUID();
    await leaveClaim(key, Date.now() + 60_000);
    expectError(await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key), 409, 'idempotency_key_in_use', 'Idempotency-Key');
  });

  it('after its lease, a same-key retry finishes the same Payment, once', async () => {
    const key = randomUUID();
    const paymentId = await leaveClaim(key, Date.now() - 1);
    const retried = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    expect(retried.status).toBe(201);
    expect(retried.json.id).toBe(paymentId);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    const replay = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(retried.text);
    expect((await sandboxRecords(paymentId)).authorizations).toHaveLength(1);
  });

  it('a different body cannot take over the dead claim', async () => {
    const key = randomUUID();
    await leaveClaim(key, Date.now() - 1);
    expectError(await createDirectPayment(t.api, t.merchant.testKey, { amount: 1 }, {}, key), 409, 'idempotency_key_reused', 'Idempotency-Key');
  });
});

function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reverseKeys(v)]));
}
