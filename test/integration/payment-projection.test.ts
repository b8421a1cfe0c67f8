// The Payment read model has two writers of a create (the API, from the update's answer, and the
// workflow's projector) and may see retried or reordered writes: the highest version always wins.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../../src/db/data-source';
import { emptyTransitions, type PaymentView, type RefundView } from '../../src/domain/payment';
import { findPayment, recordPaymentProjection } from '../../src/read-models/payments';
import { TEST_BOX } from '../helpers/payments';
import { statementsOf } from '../helpers/statements';
import { TEST_ENV } from '../helpers/test-env';

let dataSource: DataSource;
beforeAll(async () => { dataSource = await openDataSource(TEST_ENV.databaseUrl); });
afterAll(async () => { await dataSource.destroy(); });

const scope = { merchantId: 'mer_projection_test', livemode: false };

function view(id: string, version: number, patch: Partial<PaymentView> = {}): PaymentView {
  return {
    id, merchant_id: scope.merchantId, livemode: false, amount: 4999, currency: 'USD', status: 'SUCCEEDED',
    integration_type: 'DIRECT', merchant_reference: null, description: `version ${version}`,
    card: { brand: 'VISA', last4: '4242', exp_month: 12, exp_year: 2030, cardholder_name: 'Ada', country: 'US' },
    billing_details: null, failure_code: null, failure_message: null, amount_refunded: 0, amount_refundable: 4999, refunds: [],
    status_transitions: { ...emptyTransitions(), succeeded_at: 100 }, next_action: null, refunded_at: null,
    return_url: null, customer_ip_address: null, merchant_customer_id: null, metadata: null, customer: null, callback_url: null,
    hosted_token: null, hosted_page_url: null, api_version: null, created_at: 99, updated_at: 100 + version, version,
    ...patch,
  };
}

const newId = () => `pay_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

it.each([
  ['the API first, then the projector', [{ version: 1, likelyNew: true }, { version: 2, likelyNew: false }]],
  ['the projector first, then the API', [{ version: 2, likelyNew: false }, { version: 1, likelyNew: true }]],
  ['the same version twice', [{ version: 1, likelyNew: true }, { version: 1, likelyNew: false }]],
  ['an old snapshot retried after a newer one', [{ version: 3, likelyNew: false }, { version: 1, likelyNew: false }, { version: 2, likelyNew: true }]],
])('%s: the highest version stays', async (_name, writes) => {
  const id = newId();
  for (const write of writes) await recordPaymentProjection(dataSource, TEST_BOX, view(id, write.version), { likelyNew: write.likelyNew });
  const highest = Math.max(...writes.map((w) => w.version));
  expect(await findPayment(dataSource, TEST_BOX, scope, id)).toMatchObject({ version: highest, description: `version ${highest}` });
});

it('writers racing on a new Payment leave one row at the highest version', async () => {
  const id = newId();
  await Promise.all([1, 2, 3, 4].map((version) => recordPaymentProjection(dataSource, TEST_BOX, view(id, version), { likelyNew: version % 2 === 1 })));
  const rows: unknown[] = await dataSource.query('SELECT id FROM payments WHERE id = ?', [id]);
  expect(rows).toHaveLength(1);
  expect(await findPayment(dataSource, TEST_BOX, scope, id)).toMatchObject({ version: 4 });
});

it('a Payment with refunds is written with its refunds, and an older snapshot moves neither', async () => {
  const id = newId();
  const refund: RefundView = {
    id: `ref_${randomUUID().replace(/-/g, '').slice(0, 24)}`, payment_id: id, amount: 1000, currency: 'USD', merchant_reference: null,
    reason: 'requested_by_customer', refund_type: 'PARTIAL', status: 'SUCCEEDED', failure_code: null, failure_message: null,
    created_at: 101, updated_at: 102, completed_at: 102,
  };
  await recordPaymentProjection(dataSource, TEST_BOX, view(id, 1), { likelyNew: true });
  await recordPaymentProjection(dataSource, TEST_BOX, view(id, 3, { refunds: [refund], amount_refunded: 1000, amount_refundable: 3999 }));
  await recordPaymentProjection(dataSource, TEST_BOX, view(id, 2, { refunds: [{ ...refund, status: 'PROCESSING', completed_at: null }] }));
  const shown = await findPayment(dataSource, TEST_BOX, scope, id);
  expect(shown).toMatchObject({ version: 3, amount_refunded: 1000, amount_refundable: 3999 });
  expect(shown!.refunds).toMatchObject([{ id: refund.id, status: 'SUCCEEDED' }]);
});

it('a change writes only the refunds whose state moved; a missing refund row is written again', async () => {
  const id = newId();
  const refund = (n: number, patch: Partial<RefundView> = {}): RefundView => ({
    id: `ref_${id.slice(4, 24)}${n}`, payment_id: id, amount: 1000, currency: 'USD', merchant_reference: null,
    reason: 'requested_by_customer', refund_type: 'PARTIAL', status: 'SUCCEEDED', failure_code: null, failure_message: null,
    created_at: 101, updated_at: 102, completed_at: 102, ...patch,
  });
  const settled = refund(1);
  const pending = refund(2, { status: 'PENDING', updated_at: 103, completed_at: null });
  await recordPaymentProjection(dataSource, TEST_BOX, view(id, 1), { likelyNew: true });
  await recordPaymentProjection(dataSource, TEST_BOX, view(id, 2, { refunds: [settled, pending] }));
  // Mark the settled refund's row: a rewrite would put the snapshot's reason back.
  await dataSource.query('UPDATE refunds SET reason = ? WHERE id = ?', ['untouched', settled.id]);
  await dataSource.query('DELETE FROM refunds WHERE id = ?', [pending.id]);
  const nowSucceeded = { ...pending, status: 'SUCCEEDED' as const, updated_at: 104, completed_at: 104 };
  await recordPaymentProjection(dataSource, TEST_BOX, view(id, 3, { refunds: [settled, nowSucceeded] }));

  const rows: Array<{ id: string; reason: string; status: string; version: number | string }> = await dataSource.query(
    'SELECT id, reason, status, version FROM refunds WHERE payment_id = ? ORDER BY seq', [id]);
  expect(rows.map((r) => ({ ...r, version: Number(r.version) }))).toEqual([
    { id: settled.id, reason: 'untouched', status: 'SUCCEEDED', version: 2 },
    { id: pending.id, reason: 'requested_by_customer', status: 'SUCCEEDED', version: 3 },
  ]);
  expect((await findPayment(dataSource, TEST_BOX, scope, id))!.refunds.map((r) => r.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
});

describe('a refund the read model does not hold yet', () => {
  const refundOf = (id: string, patch: Partial<RefundView> = {}): RefundView => ({
    id: `ref_${id.slice(4, 24)}9`, payment_id: id, amount: 1000, currency: 'USD', merchant_reference: null,
    reason: 'requested_by_customer', refund_type: 'PARTIAL', status: 'PROCESSING', failure_code: null, failure_message: null,
    created_at: 101, updated_at: 102, completed_at: null, ...patch,
  });

  it('is inserted with one statement after the read of the stored refunds', async () => {
    const id = newId();
    await recordPaymentProjection(dataSource, TEST_BOX, view(id, 1), { likelyNew: true });
    const sent = await statementsOf(dataSource, () => recordPaymentProjection(dataSource, TEST_BOX, view(id, 2, { refunds: [refundOf(id)] })));
    const onRefunds = sent.filter((sql) => /`?refunds`?/.test(sql));
    expect(onRefunds.map((sql) => sql.split(' ')[0]!.toUpperCase())).toEqual(['SELECT', 'INSERT']);
    expect((await findPayment(dataSource, TEST_BOX, scope, id))!.refunds).toMatchObject([{ status: 'PROCESSING' }]);
  });

  it('written by two racing writers ends as one row at the higher version', async () => {
    for (let round = 0; round < 5; round += 1) {
      const id = newId();
      await recordPaymentProjection(dataSource, TEST_BOX, view(id, 1), { likelyNew: true });
      await Promise.all([
        recordPaymentProjection(dataSource, TEST_BOX, view(id, 3, { refunds: [refundOf(id, { status: 'SUCCEEDED', updated_at: 103, completed_at: 103 })] })),
        recordPaymentProjection(dataSource, TEST_BOX, view(id, 2, { refunds: [refundOf(id)] })),
      ]);
      const rows: Array<{ status: string; version: number | string }> = await dataSource.query('SELECT status, version FROM refunds WHERE payment_id = ?', [id]);
      expect(rows.map((r) => ({ status: r.status, version: Number(r.version) }))).toEqual([{ status: 'SUCCEEDED', version: 3 }]);
    }
  });
});

describe('a snapshot no newer than the stored Payment', () => {
  const refundOf = (id: string, patch: Partial<RefundView> = {}): RefundView => ({
    id: `ref_${id.slice(4, 24)}7`, payment_id: id, amount: 1000, currency: 'USD', merchant_reference: null,
    reason: 'requested_by_customer', refund_type: 'PARTIAL', status: 'SUCCEEDED', failure_code: null, failure_message: null,
    created_at: 101, updated_at: 102, completed_at: 102, ...patch,
  });

  it('writes none of its refunds: the writer of the stored version wrote them with it', async () => {
    const id = newId();
    await recordPaymentProjection(dataSource, TEST_BOX, view(id, 1), { likelyNew: true });
    await recordPaymentProjection(dataSource, TEST_BOX, view(id, 2, { refunds: [refundOf(id)] }));
    // The other writer of version 2, or an older one retried, with the refund as it saw it.
    for (const version of [2, 1]) {
      const sent = await statementsOf(dataSource, () => recordPaymentProjection(dataSource, TEST_BOX, view(id, version, { refunds: [refundOf(id, { status: 'PROCESSING', completed_at: null })] })));
      expect(sent.filter((sql) => /`?refunds`?/.test(sql))).toEqual([]);
    }
    expect((await findPayment(dataSource, TEST_BOX, scope, id))!.refunds).toMatchObject([{ status: 'SUCCEEDED' }]);
  });

  it('costs one guarded update when its row is known to exist (a refund\'s answer)', async () => {
    const id = newId();
    await recordPaymentProjection(dataSource, TEST_BOX, view(id, 1), { likelyNew: true });
    await recordPaymentProjection(dataSource, TEST_BOX, view(id, 2, { refunds: [refundOf(id)] }));
    const sent = await statementsOf(dataSource, () => recordPaymentProjection(dataSource, TEST_BOX, view(id, 2, { refunds: [refundOf(id)] }), { exists: true }));
    expect(sent.map((sql) => sql.split(/\s+/)[0]!.toUpperCase())).toEqual(['UPDATE']);
  });

  it('a newer one with `exists` still writes the Payment and its refunds', async () => {
    const id = newId();
    await recordPaymentProjection(dataSource, TEST_BOX, view(id, 1), { likelyNew: true });
    await recordPaymentProjection(dataSource, TEST_BOX, view(id, 2, { refunds: [refundOf(id)], amount_refunded: 1000 }), { exists: true });
    expect(await findPayment(dataSource, TEST_BOX, scope, id)).toMatchObject({ version: 2, amount_refunded: 1000, refunds: [{ status: 'SUCCEEDED' }] });
  });
});
