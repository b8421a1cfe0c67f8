// Provider answers that prove nothing (docs/quickstart.md, "Test cards"): 429 ->
// rate_limit_exceeded with Retry-After, 502 -> processing_error, 503 -> service_unavailable (with
// Retry-After, as every 503: CONTRACT section 16). The
// Payment is never registered, nothing is cached, and a same-key retry drives the same Payment id
// again.
import { randomUUID } from 'node:crypto';
import { eventually, useTestApi } from '../helpers/api';
import { boundPaymentId, createDirectPayment, expectError, getPayment, paymentRowCount } from '../helpers/payments';
import { clearSandboxFaults, sandboxRecords, setSandboxFaults } from '../helpers/sandbox';
import { TEST_ENV } from '../helpers/test-env';

const t = useTestApi();
afterAll(async () => { await clearSandboxFaults(); });

describe.each([
  ['4000004290000003', 429, 'rate_limit_exceeded', '1'],
  ['4000005020000007', 502, 'processing_error', null],
  ['4000005030000005', 503, 'service_unavailable', '1'],
])('%s -> %i %s', (number, status, code, retryAfter) => {
  it('is not cached, the retry drives the same Payment, and nothing reaches the provider', async () => {
    const key = randomUUID();
    const first = await createDirectPayment(t.api, t.merchant.testKey, {}, { number }, key);
    expectError(first, status, code, null);
    expect(first.headers.get('retry-after')).toBe(retryAfter);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const paymentId = await boundPaymentId(t.api, key);
    expect(paymentId).not.toBeNull();

    const retried = await createDirectPayment(t.api, t.merchant.testKey, {}, { number }, key);
    expectError(retried, status, code, null);
    expect(retried.headers.get('retry-after')).toBe(retryAfter);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.json.error.request_id).not.toBe(first.json.error.request_id);
    expect(await boundPaymentId(t.api, key)).toBe(paymentId);

    expectError(await getPayment(t.api, t.merchant.testKey, paymentId!), 404, 'object_not_found', 'id');
    expect((await sandboxRecords(paymentId!)).authorizations).toHaveLength(0);
  });
});

describe('transient provider faults: the same-key retry completes the same Payment, once', () => {
  it.each<[string, Record<string, unknown>, number, string]>([
    ['a 429 that recorded nothing', { fail_next: 1, fail_status: 429 }, 429, 'rate_limit_exceeded'],
    ['a 503 that recorded nothing', { fail_next: 1, fail_status: 503 }, 503, 'service_unavailable'],
    ['a connection reset before processing', { reset_next: 1 }, 502, 'processing_error'],
    ['a connection reset after the provider acted', { reset_after_next: 1 }, 502, 'processing_error'],
  ])('%s', async (_label, faults, status, code) => {
    const key = randomUUID();
    // Scoped to authorizations: payouts of other tests still polling must not use the fault up.
    await setSandboxFaults({ ...faults, path_prefix: '/v1/authorizations', method: 'POST' });
    try {
      expectError(await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key), status, code);
    } finally {
      await clearSandboxFaults();
    }
    const paymentId = (await boundPaymentId(t.api, key))!;
    const retried = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.json.id).toBe(paymentId);
    expect(retried.json.status).toBe('PROCESSING');
    expect((await sandboxRecords(paymentId)).authorizations).toHaveLength(1);
  });

  it('a request the provider received twice is one authorization', async () => {
    await setSandboxFaults({ duplicate_next: 1, path_prefix: '/v1/authorizations', method: 'POST' });
    let res;
    try {
      res = await createDirectPayment(t.api, t.merchant.testKey);
    } finally {
      await clearSandboxFaults();
    }
    expect(res.status).toBe(201);
    expect((await sandboxRecords(res.json.id)).authorizations).toHaveLength(1);
  });
});

describe('after the provider errors', () => {
  it('no Payment was registered for the test cards that never reach the provider', async () => {
    const rows: Array<{ id: string }> = await t.api.deps.dataSource.query('SELECT id FROM payments WHERE merchant_id = ? AND card_last4 IN (?, ?, ?)', [t.merchant.merchantId, '0003', '0007', '0005']);
    expect(rows).toEqual([]);
    expect(await paymentRowCount(t.api, t.merchant.merchantId)).toBe(5);
  });

  it('a Payment that was never registered is dropped, and its vaulted card with it', async () => {
    const key = randomUUID();
    expectError(await createDirectPayment(t.api, t.merchant.testKey, {}, { number: '4000005030000005' }, key), 503, 'service_unavailable');
    const paymentId = (await boundPaymentId(t.api, key))!;
    const vaulted = () => t.api.deps.dataSource.query('SELECT token FROM card_vault WHERE token = ?', [`tok_${paymentId.slice(4)}`]) as Promise<unknown[]>;
    expect(await vaulted()).toHaveLength(1);
    // The workflow gives up on a create nobody retried after the abandonment delay (the action TTL
    // in tests).
    const handle = t.api.deps.temporal.workflow.getHandle(paymentId);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        handle.result(),
        new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('workflow still open')), (TEST_ENV.actionTtlSeconds + 20) * 1000); }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    expect(await vaulted()).toHaveLength(0);
    expectError(await getPayment(t.api, t.merchant.testKey, paymentId), 404, 'object_not_found', 'id');

    // A same-key retry after that starts the same id afresh, and meets the same provider answer.
    expectError(await createDirectPayment(t.api, t.merchant.testKey, {}, { number: '4000005030000005' }, key), 503, 'service_unavailable');
    expect(await boundPaymentId(t.api, key)).toBe(paymentId);
    expect((await sandboxRecords(paymentId)).authorizations).toHaveLength(0);
  });

  it('a new key with a good card afterwards creates a Payment as usual', async () => {
    const res = await createDirectPayment(t.api, t.merchant.testKey);
    expect(res.status).toBe(201);
    expect(res.json.status).toBe('PROCESSING');
  });
});

it('a create answered 502 after the provider acted, never retried: the workflow asks the provider and registers the Payment', async () => {
  // The acquirer authorizes, then the connection drops before its answer: the create cannot tell.
  await setSandboxFaults({ reset_after_next: 1, path_prefix: '/v1/authorizations', method: 'POST' });
  const key = randomUUID();
  const first = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
  await clearSandboxFaults();
  expectError(first, 502, 'processing_error');
  const paymentId = (await boundPaymentId(t.api, key))!;
  expect((await sandboxRecords(paymentId)).authorizations).toHaveLength(1);
  expectError(await getPayment(t.api, t.merchant.testKey, paymentId), 404, 'object_not_found', 'id');

  // Nobody retries; after the abandonment delay the workflow looks the authorization up by its key.
  const shown = await eventually(() => getPayment(t.api, t.merchant.testKey, paymentId), (res) => res.status === 200, (TEST_ENV.actionTtlSeconds + 30) * 1000, 500);
  expect(['PROCESSING', 'SUCCEEDED']).toContain(shown.json.status);
  expect(shown.json.card.last4).toBe('4242');
  const vaulted = () => t.api.deps.dataSource.query('SELECT token FROM card_vault WHERE token = ?', [`tok_${paymentId.slice(4)}`]) as Promise<unknown[]>;
  await eventually(vaulted, (rows) => rows.length === 0);

  // A late same-key retry answers that Payment; the provider still holds one authorization.
  const retried = await createDirectPayment(t.api, t.merchant.testKey, {}, {}, key);
  expect(retried.status).toBe(201);
  expect(retried.json.id).toBe(paymentId);
  expect((await sandboxRecords(paymentId)).authorizations).toHaveLength(1);
}, 120_000);
