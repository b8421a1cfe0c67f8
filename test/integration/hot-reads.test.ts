// Hot reads (src/db/entity-columns.ts) write their SQL once and hydrate rows through the driver
// instead of TypeORM's query builder: on MariaDB and on the embedded SQLite default, they must
// give exactly what the repository gives (types, nulls, JSON, booleans, bigints, the refunds'
// order) and keep the scope.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../../src/db/data-source';
import { ApiKey, Merchant, Payment, Refund } from '../../src/db/entities';
import { entityColumns } from '../../src/db/entity-columns';
import { migrate } from '../../src/db/migrate';
import { emptyTransitions, type PaymentView, type RefundView } from '../../src/domain/payment';
import { findPayment, recordPaymentProjection, rowToPayment } from '../../src/read-models/payments';
import { TEST_BOX } from '../helpers/payments';
import { TEST_ENV } from '../helpers/test-env';

const sqliteFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hot-reads-')), 'payments.sqlite');
const ENGINES: Array<[string, string]> = [['MariaDB', TEST_ENV.databaseUrl], ['SQLite', `sqlite:${sqliteFile}`]];
const token = () => randomUUID().replace(/-/g, '').slice(0, 24);

function refund(paymentId: string, i: number, patch: Partial<RefundView> = {}): RefundView {
  return {
    id: `ref_${token()}`, payment_id: paymentId, amount: 100 + i, currency: 'EUR', merchant_reference: i === 0 ? 9_007_199_254_740_991 : null,
    reason: 'requested_by_customer', refund_type: 'PARTIAL', status: 'SUCCEEDED', failure_code: null, failure_message: null,
    created_at: 1_800_000_100 + i, updated_at: 1_800_000_200 + i, completed_at: 1_800_000_200 + i, ...patch,
  };
}

function payment(merchantId: string, livemode: boolean): PaymentView {
  const id = `pay_${token()}`;
  const refunds = [refund(id, 0), refund(id, 1, { status: 'FAILED', failure_code: 'processor_error', failure_message: 'The provider refused.', completed_at: null })];
  return {
    id, merchant_id: merchantId, livemode, amount: 123_456_789_012, currency: 'EUR', status: 'SUCCEEDED',
    integration_type: 'HOSTED_PAYMENT_PAGE', merchant_reference: 4_294_967_297, description: 'Zoë’s order',
    card: { brand: 'MASTERCARD', last4: '4444', exp_month: 1, exp_year: 2031, cardholder_name: 'Zoë Ñandú', country: 'ES' },
    billing_details: { email: 'zoe@example.com', first_name: 'Zoë', last_name: null, address: { line1: 'Calle 1', country: 'ES' } },
    failure_code: null, failure_message: null, amount_refunded: 100, amount_refundable: 123_456_788_912, refunds,
    status_transitions: { ...emptyTransitions(), processing_at: 1_800_000_001, succeeded_at: 1_800_000_002 },
    next_action: null, refunded_at: null, return_url: 'https://shop.example/return', customer_ip_address: '2001:db8::1',
    merchant_customer_id: 'cus_42', metadata: { order: '42' }, customer: { email: 'zoe@example.com', name: null },
    callback_url: null, hosted_token: `hpt_${token()}`, hosted_page_url: 'https://pay.example/hpp/1', api_version: '2024-06-01',
    created_at: 1_800_000_000, updated_at: 1_800_000_300, version: 3,
  };
}

describe.each(ENGINES)('%s', (engine, url) => {
  let dataSource: DataSource;
  beforeAll(async () => {
    if (engine === 'SQLite') await migrate(url);
    dataSource = await openDataSource(url);
  });
  afterAll(async () => { await dataSource.destroy(); });

  it('findPayment gives what the repository gives, refunds in their order, only in its own scope', async () => {
    const merchantId = `mer_hot_${token()}`;
    const view = payment(merchantId, true);
    await recordPaymentProjection(dataSource, TEST_BOX, view, { likelyNew: true });

    const row = await dataSource.getRepository(Payment).findOneByOrFail({ id: view.id });
    const refunds = await dataSource.getRepository(Refund).find({ where: { payment_id: view.id }, order: { seq: 'ASC' } });
    const found = await findPayment(dataSource, TEST_BOX, { merchantId, livemode: true }, view.id);
    expect(found).toEqual(rowToPayment(row, refunds, TEST_BOX));
    expect(found).toEqual(view);
    expect(found!.refunds.map((r) => r.id)).toEqual(view.refunds.map((r) => r.id));

    expect(await findPayment(dataSource, TEST_BOX, { merchantId, livemode: false }, view.id)).toBeNull();
    expect(await findPayment(dataSource, TEST_BOX, { merchantId: `mer_hot_${token()}`, livemode: true }, view.id)).toBeNull();
  });

  it('a Payment without refunds comes back with none (the outer join found nothing)', async () => {
    const merchantId = `mer_hot_${token()}`;
    const view = { ...payment(merchantId, false), refunds: [], amount_refunded: 0, amount_refundable: 123_456_789_012, card: null, billing_details: null, metadata: null, customer: null };
    await recordPaymentProjection(dataSource, TEST_BOX, view, { likelyNew: true });
    expect(await findPayment(dataSource, TEST_BOX, { merchantId, livemode: false }, view.id)).toEqual(view);
  });

  it('an API key and its merchant hydrate as the repository reads them', async () => {
    const merchantId = `mer_hot_${token()}`;
    await dataSource.getRepository(Merchant).insert({
      id: merchantId, name: 'Hot reads', default_version: '2024-06-01', currencies: 'EUR,USD', payments_enabled: true,
      payouts_enabled: false, provisioned: true, webhook_url: null, created_at: 1_800_000_000, updated_at: 1_800_000_001,
    });
    const keyId = `key_${token()}`;
    await dataSource.getRepository(ApiKey).insert({
      id: keyId, merchant_id: merchantId, mode: 'live', key_hash: token().padEnd(64, '0'), key_hint: 'svc_live_sk_…abcd',
      can_refund: false, expires_at: null, revoked_at: 1_800_000_002, created_at: 1_800_000_000,
    });
    const k = entityColumns(dataSource, ApiKey, 'k');
    const m = entityColumns(dataSource, Merchant, 'm');
    const [raw] = (await dataSource.query(`SELECT ${k.select}, ${m.select} FROM ${k.table} k JOIN ${m.table} m ON m.id = k.merchant_id WHERE k.id = ?`, [keyId])) as Array<Record<string, unknown>>;
    expect(k.hydrate(raw!)).toEqual(await dataSource.getRepository(ApiKey).findOneByOrFail({ id: keyId }));
    expect(m.hydrate(raw!)).toEqual(await dataSource.getRepository(Merchant).findOneByOrFail({ id: merchantId }));
    expect(m.hydrate(raw!)).toMatchObject({ payments_enabled: true, payouts_enabled: false, created_at: 1_800_000_000 });
  });
});
