// One merchant with as many payments as the whole seeded table (a million in the full mode), for
// the payment list steps: a list is read per merchant, and the seeded merchants hold 10,000 each.
// Bulk SQL over MariaDB's SEQUENCE engine, 100,000 rows per statement (seconds for a million);
// kept in the database with its API key, so a run on a kept database (--reuse-db) reuses it.
import { openDataSource } from '../../src/db/data-source';
import { loadConfig } from '../../src/config';
import { AdminOperations } from '../../src/services/admin-operations';
import { SecretBox } from '../../src/vault/crypto';
import { destinationPolicy } from '../../src/webhooks/destination';
import { VAULT_KEY } from './env';
import { withDb, type SeededMerchant } from './seed';

export interface PaymentListMerchant extends SeededMerchant {
  payments: number;
  /** Seconds the seeding took (0 when reused). */
  seededSeconds: number;
}

const META = 'bench_payment_list';
const CHUNK = 100_000;

async function createMerchant(url: string): Promise<SeededMerchant> {
  const dataSource = await openDataSource(url);
  try {
    // No webhook URL: nothing is created for it, and its list is all that is read.
    const ops = new AdminOperations(dataSource, new SecretBox(VAULT_KEY), destinationPolicy(loadConfig()));
    const created = await ops.createMerchant({ name: 'Bench List Shop' });
    return { merchantId: created.merchant_id, testKey: created.test_key };
  } finally {
    await dataSource.destroy();
  }
}

/**
 * The list merchant with `count` payments: the one already seeded if it has as many, else a new one
 * (an earlier one of another size stays; the ids' salt holds the size, so the two never collide).
 */
export async function ensurePaymentListMerchant(url: string, count: number, log: (message: string) => void): Promise<PaymentListMerchant> {
  const existing = await withDb(url, async (db) => {
    try {
      const [rows] = await db.query(`SELECT merchant_id AS merchantId, test_key AS testKey, payments FROM ${META} LIMIT 1`);
      return (rows as Array<SeededMerchant & { payments: number }>)[0] ?? null;
    } catch {
      return null; // no such table yet
    }
  });
  if (existing && Number(existing.payments) === count) {
    log(`reusing the payment list merchant (${count} payments)`);
    return { ...existing, payments: count, seededSeconds: 0 };
  }
  log(`seeding one merchant with ${count} payments for the list steps`);
  const started = Date.now();
  const merchant = await createMerchant(url);
  const nowSeconds = Math.floor(Date.now() / 1000) - 60;
  await withDb(url, async (db) => {
    await db.query(`DROP TABLE IF EXISTS ${META}`);
    for (let from = 1; from <= count; from += CHUNK) {
      const to = Math.min(count, from + CHUNK - 1);
      // Same columns as the main seeding's payments; one in twenty FAILED, the rest SUCCEEDED.
      await db.query(`
        INSERT INTO payments (id, merchant_id, livemode, amount, currency, status, integration_type, merchant_reference, description,
          card_brand, card_last4, card_exp_month, card_exp_year, card_holder_name, card_country, billing_details, failure_code,
          failure_message, amount_refunded, amount_refundable, next_action_reason, next_action_url, requires_action_at, processing_at,
          succeeded_at, failed_at, expired_at, refunded_at, return_url, customer_ip_address, merchant_customer_id, metadata, customer,
          callback_url, hosted_token, created_at, updated_at, version)
        SELECT x.id, ?, 0, x.amount, 'USD', IF(x.seq % 20 = 0, 'FAILED', 'SUCCEEDED'), 'DIRECT', x.seq, 'Order',
          IF(x.seq % 3 = 0, 'MASTERCARD', 'VISA'), LPAD((x.seq * 7919) % 10000, 4, '0'), 1 + x.seq % 12, 2030, 'Ada Lovelace', 'US', NULL,
          IF(x.seq % 20 = 0, 'generic_decline', NULL), IF(x.seq % 20 = 0, 'The card was declined.', NULL),
          0, IF(x.seq % 20 = 0, 0, x.amount), NULL, NULL, NULL, NULL,
          IF(x.seq % 20 = 0, NULL, x.created), IF(x.seq % 20 = 0, x.created, NULL), NULL, NULL, 'https://shop.example/return',
          '203.0.113.7', NULL, NULL, NULL, NULL, NULL, x.created, x.created, 3
        FROM (
          SELECT s.seq, CONCAT('pay_', SUBSTRING(REPLACE(REPLACE(REPLACE(TO_BASE64(UNHEX(SHA2(CONCAT('list', ${count}, ':', s.seq), 256))), '+', 'x'), '/', 'Q'), '=', 'z'), 1, 24)) AS id,
            100 + (s.seq * 7919) % 99900 AS amount, ${nowSeconds} - (${count} - s.seq) AS created
          FROM seq_${from}_to_${to} s
        ) x
        ORDER BY x.seq`, [merchant.merchantId]);
    }
    await db.query('ANALYZE TABLE payments');
    await db.query(`CREATE TABLE ${META} (merchant_id VARCHAR(32) NOT NULL, test_key VARCHAR(128) NOT NULL, payments INT NOT NULL)`);
    await db.query(`INSERT INTO ${META} VALUES (?, ?, ?)`, [merchant.merchantId, merchant.testKey, count]);
  });
  const seededSeconds = (Date.now() - started) / 1000;
  log(`  seeded in ${seededSeconds.toFixed(1)} s`);
  return { ...merchant, payments: count, seededSeconds };
}

/** The list merchant's payment id at `depth` from the newest (a deep cursor). */
export async function paymentIdAtDepth(url: string, merchantId: string, depth: number): Promise<string> {
  return withDb(url, async (db) => {
    const [rows] = await db.query('SELECT id FROM payments WHERE merchant_id = ? AND livemode = 0 ORDER BY seq DESC LIMIT 1 OFFSET ?', [merchantId, depth]);
    return (rows as Array<{ id: string }>)[0]!.id;
  });
}
