// Identifiers, idempotency keys, tokens and hashes compare byte for byte on MariaDB as on the
// embedded SQLite default: a key that differs in case, accents or a trailing space is another key,
// and an id or token that differs in any byte finds nothing. The stores on both engines, then the
// API (on MariaDB, where the suite's worker runs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { IdempotencyStore, type IdempotencyScope } from '../../src/services/idempotency';
import { databaseKind, openDataSource } from '../../src/db/data-source';
import { migrate } from '../../src/db/migrate';
import type { PayoutView } from '../../src/domain/payout';
import { findPayment, findPaymentByHostedToken, listPayments, recordPaymentProjection } from '../../src/read-models/payments';
import { findPayout, recordPayoutProjection } from '../../src/read-models/payouts';
import { SecretBox } from '../../src/vault/crypto';
import { CardVaultStore } from '../../src/vault/card-vault';
import { call, useTestApi } from '../helpers/api';
import { createDirectPayment, expectError, getPayment, projectedPayment, TEST_BOX, waitForStatus } from '../helpers/payments';
import { TEST_ENV } from '../helpers/test-env';

const sqliteFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'byte-exact-')), 'payments.sqlite');
const ENGINES: Array<[string, string]> = [['MariaDB', TEST_ENV.databaseUrl], ['SQLite', `sqlite:${sqliteFile}`]];

/** Mixed-case alphanumerics, so that swapping the case changes every letter. */
const token = (length = 24) => `${randomBytes(length).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, length - 2)}aB`;
const swapCase = (text: string) => text.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));

/** Keys that fold into one under utf8mb4_unicode_ci (case, accents) or any PAD SPACE collation (trailing space). */
const KEY_VARIANTS = ['order-abc', 'ORDER-ABC', 'Order-Abc', 'cafe', 'café', 'CAFÉ', 'key', 'key ', 'key  '];

function payoutView(merchantId: string, id: string): PayoutView {
  return {
    id, merchant_id: merchantId, livemode: false, amount: 2500, currency: 'EUR', status: 'SUCCEEDED', merchant_reference: null,
    recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' }, destination: { brand: 'VISA', last4: '4242', country: 'US' },
    initiator_ip_address: '203.0.113.7', failure_code: null, failure_message: null, poll_attempts: 0, last_polled_at: null,
    created_at: 1_800_000_000, updated_at: 1_800_000_000, completed_at: 1_800_000_000, version: 1,
  };
}

describe.each(ENGINES)('%s stores', (engine, url) => {
  let dataSource: DataSource;
  const merchantId = `mer_${token()}`;
  const scope = { merchantId, livemode: false };

  beforeAll(async () => {
    if (engine === 'SQLite') await migrate(url);
    dataSource = await openDataSource(url);
  });
  afterAll(async () => { await dataSource.destroy(); });

  it('an Idempotency-Key is its bytes: case, accents and trailing spaces make other keys', async () => {
    const store = new IdempotencyStore(dataSource);
    const apiKeyId = `key_${token()}`;
    const claim = (key: string): IdempotencyScope => ({
      apiKeyId, operation: 'payments.create', key, fingerprint: 'f'.repeat(64), objectKind: 'payment', retentionSeconds: 3600, leaseMs: 5000,
    });
    const answer = async (objectId: string) => ({ status: 201, body: JSON.stringify({ id: objectId }) });
    const bound = new Map<string, string>();
    for (const key of KEY_VARIANTS) {
      const outcome = await store.run(claim(key), answer);
      expect({ key, replayed: outcome.replayed }).toEqual({ key, replayed: false });
      bound.set(key, JSON.parse(outcome.response.body).id);
    }
    expect(new Set(bound.values()).size).toBe(KEY_VARIANTS.length);
    for (const key of KEY_VARIANTS) {
      const again = await store.run(claim(key), answer);
      expect({ key, replayed: again.replayed, id: JSON.parse(again.response.body).id }).toEqual({ key, replayed: true, id: bound.get(key) });
    }
  });

  it('a Payment or Payout is found by its exact id only, and only that id is a list cursor', async () => {
    const paymentId = `pay_${token()}`;
    const payoutId = `po_${token()}`;
    await recordPaymentProjection(dataSource, TEST_BOX, projectedPayment(merchantId, paymentId), { likelyNew: true });
    await recordPayoutProjection(dataSource, payoutView(merchantId, payoutId));

    expect((await findPayment(dataSource, TEST_BOX, scope, paymentId))?.id).toBe(paymentId);
    expect((await findPayout(dataSource, scope, payoutId))?.id).toBe(payoutId);
    for (const variant of [swapCase(paymentId), paymentId.toLowerCase(), `${paymentId} `]) {
      expect({ variant, found: await findPayment(dataSource, TEST_BOX, scope, variant) }).toEqual({ variant, found: null });
      expect(await listPayments(dataSource, TEST_BOX, scope, { limit: 10, startingAfter: variant })).toEqual({ cursorNotFound: 'starting_after' });
    }
    for (const variant of [swapCase(payoutId), payoutId.toUpperCase(), `${payoutId} `]) {
      expect({ variant, found: await findPayout(dataSource, scope, variant) }).toEqual({ variant, found: null });
    }
  });

  it('a hosted page token opens its own Payment only', async () => {
    const hostedToken = token(32);
    const paymentId = `pay_${token()}`;
    await recordPaymentProjection(dataSource, TEST_BOX, projectedPayment(merchantId, paymentId, { hosted_token: hostedToken }), { likelyNew: true });
    expect((await findPaymentByHostedToken(dataSource, TEST_BOX, hostedToken))?.id).toBe(paymentId);
    for (const variant of [swapCase(hostedToken), hostedToken.toLowerCase(), `${hostedToken} `]) {
      expect({ variant, found: await findPaymentByHostedToken(dataSource, TEST_BOX, variant) }).toEqual({ variant, found: null });
    }
  });

  it('a card vault token reveals its own card only', async () => {
    const vault = new CardVaultStore(dataSource, new SecretBox(TEST_ENV.vaultKey));
    const first = `tok_${token()}`;
    await vault.tokenize(merchantId, { number: '4242424242424242', cvc: '123' }, first);
    // A token equal to the first under a folding collation would have been ignored as a duplicate.
    await vault.tokenize(merchantId, { number: '5555555555554444', cvc: '456' }, swapCase(first));
    expect(await vault.reveal(first)).toEqual({ number: '4242424242424242', cvc: '123' });
    expect(await vault.reveal(swapCase(first))).toEqual({ number: '5555555555554444', cvc: '456' });
    expect(await vault.reveal(`${first} `)).toBeNull();
  });

  it('every id, key, token and hash column compares byte for byte, and new columns default to it', async () => {
    if (databaseKind(url) === 'sqlite') {
      // SQLite compares with BINARY unless a column or index declares another collation.
      const schema = (await dataSource.query("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL")) as Array<{ name: string; sql: string }>;
      expect(schema.filter((entry) => /COLLATE/i.test(entry.sql)).map((entry) => entry.name)).toEqual([]);
      return;
    }
    const columns = (await dataSource.query(
      `SELECT TABLE_NAME AS tableName, COLUMN_NAME AS columnName, COLLATION_NAME AS collation FROM information_schema.COLUMNS
       WHERE TABLE_SCHEMA = DATABASE() AND COLLATION_NAME IS NOT NULL AND TABLE_NAME <> 'migrations'`,
    )) as Array<{ tableName: string; columnName: string; collation: string }>;
    const identifiers = columns.filter((c) => /(^id|_id|token|_key|_hash|^fingerprint|^operation)$/.test(c.columnName));
    expect(identifiers.length).toBeGreaterThanOrEqual(28);
    const noPadBinary = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'];
    expect(identifiers.filter((c) => !noPadBinary.includes(c.collation))).toEqual([]);
    // Human text keeps its collation.
    expect(columns.find((c) => c.tableName === 'merchants' && c.columnName === 'name')?.collation).toBe('utf8mb4_unicode_ci');
    const defaults = (await dataSource.query(
      `SELECT TABLE_NAME AS name, TABLE_COLLATION AS collation FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME <> 'migrations'
       UNION ALL SELECT '(database)', DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = DATABASE()`,
    )) as Array<{ name: string; collation: string }>;
    expect(defaults.filter((d) => !noPadBinary.includes(d.collation))).toEqual([]);
  });
});

describe('the API (MariaDB)', () => {
  const t = useTestApi({ merchant: { name: 'Byte Exact Shop' } });
  const suffix = randomBytes(6).toString('hex');

  /** Each key creates its own object: none is a replay of another's. */
  async function expectOneObjectPerKey(create: (key: string) => Promise<{ status: number; headers: Headers; json: any }>, keys: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const key of keys) {
      const res = await create(key);
      expect({ key, status: res.status, replayed: res.headers.get('idempotent-replayed') }).toEqual({ key, status: 201, replayed: null });
      ids.push(res.json.id);
    }
    expect(new Set(ids).size).toBe(keys.length);
    // And each key still replays its own.
    for (const [i, key] of keys.entries()) {
      const again = await create(key);
      expect({ key, id: again.json.id, replayed: again.headers.get('idempotent-replayed') }).toEqual({ key, id: ids[i], replayed: 'true' });
    }
    return ids;
  }

  it('Idempotency-Keys that differ in case or accents create two Payments', async () => {
    // `é` travels as one byte (ISO-8859-1), as HTTP header text does; a UTF-8 key is its bytes likewise.
    const keys = [`order-abc-${suffix}`, `ORDER-ABC-${suffix.toUpperCase()}`, `cafe-${suffix}`, `café-${suffix}`];
    await expectOneObjectPerKey((key) => createDirectPayment(t.api, t.merchant.testKey, {}, {}, key), keys);
  });

  it('Idempotency-Keys that differ in case create two Payouts', async () => {
    const body = {
      amount: 2500, currency: 'EUR', initiator_ip_address: '203.0.113.7', recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' },
      destination: { card_number: '4242424242424242' },
    };
    const keys = [`order-abc-${suffix}`, `ORDER-ABC-${suffix.toUpperCase()}`];
    await expectOneObjectPerKey((key) => call(t.api, 'POST', '/v1/payouts', { key: t.merchant.testKey, body, idempotencyKey: key }), keys);
  });

  it('a case-swapped pay_ or po_ id is 404 object_not_found, and no refund reaches its Payment', async () => {
    const payment = await createDirectPayment(t.api, t.merchant.testKey);
    expect(payment.status).toBe(201);
    await waitForStatus(t.api, t.merchant.testKey, payment.json.id, 'SUCCEEDED');
    const payout = await call(t.api, 'POST', '/v1/payouts', {
      key: t.merchant.testKey,
      body: { amount: 2500, currency: 'EUR', initiator_ip_address: '203.0.113.7', recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' }, destination: { card_number: '4242424242424242' } },
    });
    expect(payout.status).toBe(201);

    expectError(await getPayment(t.api, t.merchant.testKey, swapCase(payment.json.id).replace(/^PAY_/, 'pay_')), 404, 'object_not_found', 'id');
    expectError(await call(t.api, 'GET', `/v1/payouts/${swapCase(payout.json.id).replace(/^PO_/, 'po_')}`, { key: t.merchant.testKey }), 404, 'object_not_found');
    const refund = await call(t.api, 'POST', '/v1/refunds', {
      key: t.merchant.testKey, body: { payment_id: swapCase(payment.json.id).replace(/^PAY_/, 'pay_'), amount: 100, reason: 'requested_by_customer' },
    });
    expectError(refund, 404, 'object_not_found', 'payment_id');
    expect((await getPayment(t.api, t.merchant.testKey, payment.json.id)).json).toMatchObject({ refunds: [], amount_refunded: 0 });
  });

  it('a hosted page token with its case changed does not open the card form', async () => {
    const created = await call(t.api, 'POST', '/v1/payments/hpp', {
      key: t.merchant.testKey, body: { amount: 4999, currency: 'USD', customer_ip_address: '203.0.113.7', return_url: 'https://shop.example/return' },
    });
    expect(created.status).toBe(201);
    const page = new URL(created.json.next_action.redirect_url).pathname;
    const pageToken = page.split('/').pop()!;
    expect((await fetch(`${t.api.url}${page}`)).status).toBe(200);
    for (const variant of [swapCase(pageToken), pageToken.toLowerCase(), pageToken.toUpperCase()].filter((v) => v !== pageToken)) {
      const res = await fetch(`${t.api.url}/checkout/${variant}`);
      expect({ variant, status: res.status }).toEqual({ variant, status: 404 });
    }
  });
});
