// The migrations that make identifiers byte-exact and order Payment lists by `seq`, run on a
// database that the previous schema holds rows in, on MariaDB and on the embedded SQLite default:
// every row stays as it was, keys and ids then compare byte for byte, the list indexes carry what
// a page's `seq` query reads, and both migrations go down and up again. The one intended change:
// hosted page tokens are replaced by their SHA-256 (1765800000000-hosted-token-hash.ts).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions, openDataSource } from '../../src/db/data-source';
import { ensureDatabase } from '../../src/db/ensure-database';
import { migrate } from '../../src/db/migrate';
import { MIGRATIONS } from '../../src/db/migrations';
import { ByteExactIdentifiers1765300000000 } from '../../src/db/migrations/1765300000000-byte-exact-identifiers';
import { TEST_ENV } from '../helpers/test-env';
import { dropMysqlDatabase } from '../helpers/mysql-database';

const sqliteFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'byte-exact-migration-')), 'payments.sqlite');
const ENGINES: Array<[string, string]> = [['MariaDB', `${TEST_ENV.databaseUrl}_upgrade`], ['SQLite', `sqlite:${sqliteFile}`]];
const PREVIOUS = MIGRATIONS.slice(0, MIGRATIONS.indexOf(ByteExactIdentifiers1765300000000));
const NEW_MIGRATIONS = MIGRATIONS.length - PREVIOUS.length;

/** Rows in every table whose columns change, as the previous schema stored them. */
const ROWS: Record<string, Array<Record<string, unknown>>> = {
  merchants: [{ id: 'mer_UpgradeShop0000000000aB', name: 'Café Ünïcode', default_version: '2025-09-01', currencies: 'EUR,USD', payments_enabled: 1, payouts_enabled: 1, provisioned: 1, webhook_url: null, created_at: 1_800_000_000, updated_at: 1_800_000_000 }],
  webhook_secrets: [{ id: 'whs_Upgrade00000000000000aB', merchant_id: 'mer_UpgradeShop0000000000aB', secret_ciphertext: 'c1', created_at: 1_800_000_000, expires_at: null }],
  api_keys: [{ id: 'key_Upgrade00000000000000aB', merchant_id: 'mer_UpgradeShop0000000000aB', mode: 'test', key_hash: 'ab'.repeat(32), key_hint: 'svc_test_sk_…aB', can_refund: 1, expires_at: null, revoked_at: null, created_at: 1_800_000_000 }],
  idempotency_records: [
    { api_key_id: 'key_Upgrade00000000000000aB', operation: 'payments.create', idempotency_key: 'order-abc', fingerprint: 'f'.repeat(64), object_id: 'pay_Upgrade00000000000001aB', state: 'completed', response_status: 201, response_body: '{"id":"pay_Upgrade00000000000001aB"}', locked_until_ms: 0, created_at: 1_800_000_000, expires_at: 4_000_000_000 },
    { api_key_id: 'key_Upgrade00000000000000aB', operation: 'payouts.create', idempotency_key: 'café', fingerprint: 'e'.repeat(64), object_id: 'po_Upgrade000000000000001aB', state: 'completed', response_status: 201, response_body: '{}', locked_until_ms: 0, created_at: 1_800_000_000, expires_at: 4_000_000_000 },
  ],
  card_vault: [{ token: 'tok_Upgrade00000000000000aB', merchant_id: 'mer_UpgradeShop0000000000aB', pan_ciphertext: 'p1', cvc_ciphertext: null, created_at: 1_800_000_000 }],
  payments: [1, 2, 3].map((n) => ({
    id: `pay_Upgrade0000000000000${n}aB`, merchant_id: 'mer_UpgradeShop0000000000aB', livemode: 0, amount: 1000 * n, currency: 'EUR', status: n === 2 ? 'FAILED' : 'SUCCEEDED',
    integration_type: n === 3 ? 'HOSTED_PAYMENT_PAGE' : 'DIRECT', description: `Zoë's order ${n}`, amount_refunded: n === 1 ? 100 : 0, amount_refundable: 0,
    hosted_token: n === 3 ? 'HostedToken0000000000000000000aB' : null, merchant_customer_id: n === 1 ? 'Cus_42' : null, created_at: 1_800_000_000, updated_at: 1_800_000_000, version: 1,
  })),
  refunds: [{ id: 'ref_Upgrade00000000000001aB', payment_id: 'pay_Upgrade00000000000001aB', merchant_id: 'mer_UpgradeShop0000000000aB', livemode: 0, amount: 100, currency: 'EUR', merchant_reference: null, reason: 'requested_by_customer', refund_type: 'PARTIAL', status: 'SUCCEEDED', failure_code: null, failure_message: null, created_at: 1_800_000_001, updated_at: 1_800_000_001, completed_at: 1_800_000_001, version: 1 }],
  payouts: [{ id: 'po_Upgrade000000000000001aB', merchant_id: 'mer_UpgradeShop0000000000aB', livemode: 0, amount: 2500, currency: 'EUR', status: 'SUCCEEDED', merchant_reference: null, recipient_first_name: 'Ana', recipient_last_name: 'Díaz', recipient_country: 'ES', destination_brand: 'VISA', destination_last4: '4242', destination_country: 'US', failure_code: null, failure_message: null, poll_attempts: 0, last_polled_at: null, created_at: 1_800_000_000, updated_at: 1_800_000_000, completed_at: 1_800_000_000, version: 1, initiator_ip_address: '203.0.113.7', search_text: 'po_upgrade000000000000001ab ana díaz' }],
  payout_scopes: [{ merchant_id: 'mer_UpgradeShop0000000000aB', livemode: 0, payout_count: 1 }],
  events: [{ id: 'evt_Upgrade00000000000001aB', merchant_id: 'mer_UpgradeShop0000000000aB', livemode: 0, type: 'payment.succeeded', object_id: 'pay_Upgrade00000000000001aB', payload: '{}', endpoint: null, created_at: 1_800_000_000, relay_lease_until_ms: null }],
  webhook_attempts: [{ event_id: 'evt_Upgrade00000000000001aB', delivery_id: 'dlv_Upgrade00000000000001aB', attempt: 1, endpoint: 'https://shop.example/hook', status_code: 200, error: null, latency_ms: 12, attempted_at_ms: 1_800_000_000_000 }],
};

async function insertRows(dataSource: DataSource): Promise<void> {
  for (const [table, rows] of Object.entries(ROWS)) {
    for (const row of rows) {
      const columns = Object.keys(row);
      await dataSource.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, Object.values(row));
    }
  }
}

/** Every row of the tables above. */
async function snapshot(dataSource: DataSource): Promise<Record<string, unknown[]>> {
  const result: Record<string, unknown[]> = {};
  for (const table of Object.keys(ROWS)) result[table] = (await dataSource.query(`SELECT * FROM ${table}`)) as unknown[];
  return result;
}

/**
 * The rows with only the columns they had `before`, where every column added since is null (a
 * non-null one is kept, so the comparison shows it).
 */
function earlierColumns(after: Record<string, unknown[]>, before: Record<string, unknown[]>): Record<string, unknown[]> {
  return Object.fromEntries(Object.entries(after).map(([table, rows]) => [table, rows.map((row, i) => {
    const had = before[table]?.[i] as Record<string, unknown> | undefined;
    return Object.fromEntries(Object.entries(row as Record<string, unknown>).filter(([column, value]) => !had || column in had || value !== null));
  })]));
}

/** The rows as the migrations must leave them: every hosted page token replaced by its SHA-256. */
function withHashedTokens(rows: Record<string, unknown[]>): Record<string, unknown[]> {
  const hash = (token: unknown) => (typeof token === 'string' ? createHash('sha256').update(token).digest('hex') : token);
  return { ...rows, payments: rows.payments!.map((row) => ({ ...(row as Record<string, unknown>), hosted_token: hash((row as Record<string, unknown>).hosted_token) })) };
}

/** The columns of an index, in order. */
async function indexColumns(dataSource: DataSource, name: string): Promise<string[]> {
  if (dataSource.options.type === 'better-sqlite3') {
    return ((await dataSource.query(`PRAGMA index_info(${name})`)) as Array<{ name: string }>).map((c) => c.name);
  }
  return ((await dataSource.query('SELECT COLUMN_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME = ? ORDER BY SEQ_IN_INDEX', [name])) as Array<{ name: string }>).map((c) => c.name);
}

describe.each(ENGINES)('%s: a database at the previous schema, with rows in it', (engine, url) => {
  let dataSource: DataSource;
  let before: Record<string, unknown[]>;

  beforeAll(async () => {
    if (engine === 'MariaDB') await dropMysqlDatabase(url);
    await ensureDatabase(url);
    const previous = new DataSource({ ...dataSourceOptions(url), migrations: PREVIOUS });
    await previous.initialize();
    try {
      await previous.runMigrations({ transaction: 'each' });
      await insertRows(previous);
      before = await snapshot(previous);
    } finally {
      await previous.destroy();
    }
    expect(await migrate(url)).toHaveLength(NEW_MIGRATIONS);
    dataSource = await openDataSource(url);
  }, 120_000);
  afterAll(async () => {
    await dataSource.destroy();
    if (engine === 'MariaDB') await dropMysqlDatabase(url);
  });

  it('keeps every row as it was (columns added since are null, hosted page tokens hashed)', async () => {
    expect(earlierColumns(await snapshot(dataSource), before)).toEqual(withHashedTokens(before));
  });

  it('then compares keys, ids and tokens byte for byte', async () => {
    // The same API key and operation: `ORDER-ABC` and `cafe` are keys of their own beside the old ones.
    for (const [operation, key] of [['payments.create', 'ORDER-ABC'], ['payments.create', 'order-abc '], ['payouts.create', 'cafe']]) {
      await dataSource.query(
        `INSERT INTO idempotency_records (api_key_id, operation, idempotency_key, fingerprint, object_id, state, locked_until_ms, created_at, expires_at)
         VALUES ('key_Upgrade00000000000000aB', ?, ?, ?, 'pay_x', 'processing', 0, 1, 4000000000)`, [operation, key, 'd'.repeat(64)],
      );
    }
    const found = async (sql: string, value: string) => ((await dataSource.query(sql, [value])) as unknown[]).length;
    expect(await found('SELECT 1 FROM idempotency_records WHERE idempotency_key = ?', 'order-abc')).toBe(1);
    expect(await found('SELECT 1 FROM payments WHERE id = ?', 'pay_Upgrade00000000000001aB')).toBe(1);
    expect(await found('SELECT 1 FROM payments WHERE id = ?', 'PAY_UPGRADE00000000000001AB')).toBe(0);
    expect(await found('SELECT 1 FROM payments WHERE id = ?', 'pay_Upgrade00000000000001aB ')).toBe(0);
    expect(await found('SELECT 1 FROM payments WHERE hosted_token = ?', 'hostedtoken0000000000000000000ab')).toBe(0);
    expect(await found('SELECT 1 FROM card_vault WHERE token = ?', 'tok_upgrade00000000000000ab')).toBe(0);
    expect(await found('SELECT 1 FROM api_keys WHERE key_hash = ?', 'AB'.repeat(32))).toBe(0);
    // Joins across the converted columns still work (one collation on both sides).
    expect(await found('SELECT 1 FROM refunds r JOIN payments p ON p.id = r.payment_id WHERE p.merchant_id = ?', 'mer_UpgradeShop0000000000aB')).toBe(1);
  });

  it('gives the Payment list indexes the columns a page reads', async () => {
    expect(await indexColumns(dataSource, 'idx_payments_scope')).toEqual(['merchant_id', 'livemode', 'seq', 'status', 'created_at']);
    expect(await indexColumns(dataSource, 'idx_payments_scope_status')).toEqual(['merchant_id', 'livemode', 'status', 'seq', 'created_at']);
  });

  it('gives the events list its scoped indexes, by type and by object, and the purge its creation-time index', async () => {
    expect(await indexColumns(dataSource, 'idx_events_scope')).toEqual(['merchant_id', 'livemode', 'seq', 'created_at']);
    expect(await indexColumns(dataSource, 'idx_events_scope_type')).toEqual(['merchant_id', 'livemode', 'type', 'seq', 'created_at']);
    expect(await indexColumns(dataSource, 'idx_events_scope_object')).toEqual(['merchant_id', 'livemode', 'object_id', 'seq']);
    expect(await indexColumns(dataSource, 'idx_events_created')).toEqual(['created_at']);
    expect(await indexColumns(dataSource, 'idx_events_object')).toEqual([]);
  });

  it('goes down and up again', async () => {
    // Keys that differ only in case or a trailing space cannot share the folding collation's unique index: gone first.
    await dataSource.query('DELETE FROM idempotency_records WHERE fingerprint = ?', ['d'.repeat(64)]);
    for (let i = 0; i < NEW_MIGRATIONS; i += 1) await dataSource.undoLastMigration({ transaction: 'each' });
    expect(await indexColumns(dataSource, 'idx_payments_scope')).toEqual(['merchant_id', 'livemode', 'seq']);
    if (engine === 'MariaDB') {
      const [row] = (await dataSource.query("SELECT COLLATION_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'payments' AND COLUMN_NAME = 'id'")) as Array<{ c: string }>;
      expect(row!.c).toBe('utf8mb4_unicode_ci');
    }
    expect((await dataSource.runMigrations({ transaction: 'each' })).length).toBe(NEW_MIGRATIONS);
    expect(earlierColumns(await snapshot(dataSource), before)).toEqual(withHashedTokens(before));
  });
});
