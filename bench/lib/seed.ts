// Seeding with server-side bulk SQL (MariaDB's SEQUENCE engine generates the rows), not through
// the API: a million rows take seconds to tens of seconds instead of hours. Rows look like what
// the projections write (same columns, same `search_text` rule); ids are pseudo-random base62-like
// strings of the right shape so B-tree access patterns are realistic.
import mysql from 'mysql2/promise';
import { AdminOperations } from '../../src/services/admin-operations';
import { loadConfig } from '../../src/config';
import { openDataSource } from '../../src/db/data-source';
import { addGramCounts, CREATED_BUCKET_SECONDS, gramCounts } from '../../src/read-models/payout-search-index';
import { SecretBox } from '../../src/vault/crypto';
import { destinationPolicy } from '../../src/webhooks/destination';
import { VAULT_KEY } from './env';

export interface SeededMerchant {
  merchantId: string;
  testKey: string;
}

export interface Seeded {
  /** Merchants that own the seeded payments and are used for creates. */
  merchants: SeededMerchant[];
  /** The merchant that owns every seeded payout. */
  payoutMerchant: SeededMerchant;
  payments: number;
  payouts: number;
  seconds: { merchants: number; payments: number; payouts: number; searchIndex: number };
}

/** Pseudo-random id body: 24 characters of [A-Za-z0-9] derived from a salt and the row number. */
export function idSql(prefix: string, salt: string, seqExpr: string): string {
  return `CONCAT('${prefix}', SUBSTRING(REPLACE(REPLACE(REPLACE(TO_BASE64(UNHEX(SHA2(CONCAT('${salt}', ${seqExpr}), 256))), '+', 'x'), '/', 'Q'), '=', 'z'), 1, 24))`;
}

const FIRST_NAMES = [
  'Ana', 'Maria', 'José', 'Luis', 'Carlos', 'Sofia', 'Lucia', 'Mateo', 'Pablo', 'Elena', 'Javier', 'Carmen', 'Miguel', 'Laura', 'David',
  'Paula', 'Daniel', 'Marta', 'Jorge', 'Sara', 'John', 'Mary', 'James', 'Linda', 'Robert', 'Patricia', 'Michael', 'Jennifer', 'William',
  'Elizabeth', 'Richard', 'Susan', 'Thomas', 'Jessica', 'Charles', 'Karen', 'Emma', 'Noah', 'Olivia', 'Liam', 'Ava', 'Lucas', 'Mia',
  'Hugo', 'Lea', 'Louis', 'Chloé', 'Jules', 'Léa', 'Gabriel', 'Anna', 'Felix', 'Lena', 'Jonas', 'Hannah', 'Paul', 'Lina', 'Leon', 'Marie',
  'Finn', 'Yuki', 'Haruto', 'Sakura', 'Ren', 'Aoi', 'Wei', 'Li', 'Mei', 'Jun', 'Hao', 'Priya', 'Arjun', 'Ananya', 'Rohan', 'Isha', 'Omar',
  'Fatima', 'Ali', 'Layla', 'Yusuf', 'Zeynep', 'Emir', 'Elif', 'Can', 'Ayşe', 'Sven', 'Ingrid', 'Lars', 'Astrid', 'Nils', 'Piotr', 'Zofia',
  'Jan', 'Agnieszka', 'Tomasz', 'Dai', 'Eve', 'Bob', 'Carla', 'Ivan',
];
const LAST_NAMES = [
  'García', 'Fernández', 'González', 'Rodríguez', 'López', 'Martínez', 'Sánchez', 'Pérez', 'Gómez', 'Martin', 'Jiménez', 'Ruiz',
  'Hernández', 'Díaz', 'Moreno', 'Muñoz', 'Álvarez', 'Romero', 'Alonso', 'Gutiérrez', 'Smith', 'Johnson', 'Williams', 'Brown', 'Jones',
  'Miller', 'Davis', 'Wilson', 'Anderson', 'Taylor', 'Thomas', 'Moore', 'Jackson', 'White', 'Harris', 'Clark', 'Lewis', 'Robinson',
  'Walker', 'Young', 'Allen', 'King', 'Wright', 'Scott', 'Green', 'Baker', 'Adams', 'Nelson', 'Hill', 'Campbell', 'Mitchell', 'Roberts',
  'Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann', 'Koch', 'Richter', 'Klein',
  'Wolf', 'Schröder', 'Neumann', 'Schwarz', 'Braun', 'Dubois', 'Durand', 'Leroy', 'Moreau', 'Simon', 'Laurent', 'Lefebvre', 'Michel',
  'Bernard', 'Petit', 'Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino', 'Greco', 'Tanaka',
  'Suzuki', 'Takahashi', 'Watanabe', 'Ito', 'Yamamoto', 'Nakamura', 'Kobayashi', 'Kato', 'Yoshida', 'Wang', 'Zhang', 'Liu', 'Chen',
  'Yang', 'Huang', 'Zhao', 'Wu', 'Zhou', 'Xu', 'Sharma', 'Patel', 'Singh', 'Kumar', 'Gupta', 'Khan', 'Yilmaz', 'Kaya', 'Demir', 'Şahin',
  'Nowak', 'Kowalski', 'Wiśniewski', 'Wójcik', 'Kowalczyk', 'Andersson', 'Johansson', 'Karlsson', 'Nilsson', 'Eriksson', 'Larsson',
  'O\'Neil', 'O\'Brien', 'Murphy', 'Kelly', 'Walsh', 'Byrne', 'Ryan', 'Nguyen', 'Tran', 'Le', 'Pham', 'Silva', 'Santos', 'Oliveira',
  'Souza', 'Costa', 'Pereira', 'Carvalho', 'Almeida', 'Ferreira', 'Ribeiro',
];
/** Every RARE_EVERY-th payout gets this surname: a search with few matches among a million rows. */
export const RARE_SURNAME = 'Quixotería';
export const RARE_EVERY = 50_000;

export async function connect(url: string): Promise<mysql.Connection> {
  const parsed = new URL(url);
  return mysql.createConnection({
    host: parsed.hostname, port: Number(parsed.port || 3306), user: parsed.username || 'root', password: parsed.password,
    database: parsed.pathname.slice(1), charset: 'utf8mb4_unicode_ci', multipleStatements: false,
  });
}

async function createMerchants(url: string, count: number, webhookUrl: string): Promise<SeededMerchant[]> {
  const dataSource = await openDataSource(url);
  try {
    const ops = new AdminOperations(dataSource, new SecretBox(VAULT_KEY), destinationPolicy(loadConfig()));
    const merchants: SeededMerchant[] = [];
    for (let i = 0; i < count; i += 1) {
      const created = await ops.createMerchant({ name: `Bench Shop ${i}`, webhookUrl });
      merchants.push({ merchantId: created.merchant_id, testKey: created.test_key });
    }
    return merchants;
  } finally {
    await dataSource.destroy();
  }
}

const CHUNK = 100_000;

async function inChunks(total: number, fn: (from: number, to: number) => Promise<void>): Promise<void> {
  for (let from = 1; from <= total; from += CHUNK) await fn(from, Math.min(total, from + CHUNK - 1));
}

const seconds = (startMs: number) => (Date.now() - startMs) / 1000;

async function seedPayments(db: mysql.Connection, merchants: SeededMerchant[], count: number, nowSeconds: number): Promise<void> {
  await db.query('CREATE TABLE bench_merchants (idx INT PRIMARY KEY, id VARCHAR(32) NOT NULL)');
  await db.query('INSERT INTO bench_merchants (idx, id) VALUES ?', [merchants.map((m, i) => [i, m.merchantId])]);
  const n = merchants.length;
  await inChunks(count, async (from, to) => {
    await db.query(`
      INSERT INTO payments (id, merchant_id, livemode, amount, currency, status, integration_type, merchant_reference, description,
        card_brand, card_last4, card_exp_month, card_exp_year, card_holder_name, card_country, billing_details, failure_code,
        failure_message, amount_refunded, amount_refundable, next_action_reason, next_action_url, requires_action_at, processing_at,
        succeeded_at, failed_at, expired_at, refunded_at, return_url, customer_ip_address, merchant_customer_id, metadata, customer,
        callback_url, hosted_token, created_at, updated_at, version)
      SELECT x.id, m.id, 0, x.amount, 'USD', IF(x.seq % 20 = 0, 'FAILED', 'SUCCEEDED'), 'DIRECT', x.seq, 'Order',
        IF(x.seq % 3 = 0, 'MASTERCARD', 'VISA'), LPAD((x.seq * 7919) % 10000, 4, '0'), 1 + x.seq % 12, 2030, 'Ada Lovelace', 'US', NULL,
        IF(x.seq % 20 = 0, 'generic_decline', NULL), IF(x.seq % 20 = 0, 'The card was declined.', NULL),
        IF(x.seq % 10 = 5, 100, 0), IF(x.seq % 20 = 0, 0, x.amount - IF(x.seq % 10 = 5, 100, 0)), NULL, NULL, NULL, NULL,
        IF(x.seq % 20 = 0, NULL, x.created), IF(x.seq % 20 = 0, x.created, NULL), NULL, NULL, 'https://shop.example/return',
        '203.0.113.7', NULL, NULL, NULL, NULL, NULL, x.created, x.created, 3
      FROM (
        SELECT s.seq, ${idSql('pay_', 'p', 's.seq')} AS id, 100 + (s.seq * 7919) % 99900 AS amount,
          ${nowSeconds} - (${count} - s.seq) * 2 AS created
        FROM seq_${from}_to_${to} s
      ) x JOIN bench_merchants m ON m.idx = x.seq % ${n}
      ORDER BY x.seq`);
    // One refund on every tenth payment, so GET by id reads a refunds array now and then.
    await db.query(`
      INSERT INTO refunds (id, payment_id, merchant_id, livemode, amount, currency, merchant_reference, reason, refund_type, status,
        failure_code, failure_message, created_at, updated_at, completed_at, version)
      SELECT ${idSql('ref_', 'r', 'p.seq')}, p.id, p.merchant_id, 0, 100, 'USD', NULL, 'requested_by_customer', 'PARTIAL', 'SUCCEEDED',
        NULL, NULL, p.created_at, p.created_at, p.created_at, 3
      FROM payments p WHERE p.seq BETWEEN ${from} AND ${to} AND p.seq % 10 = 5`);
  });
}

async function seedPayouts(db: mysql.Connection, merchant: SeededMerchant, count: number, nowSeconds: number): Promise<void> {
  await db.query('CREATE TABLE bench_first_names (idx INT PRIMARY KEY, name VARCHAR(64) NOT NULL) CHARACTER SET utf8mb4');
  await db.query('CREATE TABLE bench_last_names (idx INT PRIMARY KEY, name VARCHAR(64) NOT NULL) CHARACTER SET utf8mb4');
  await db.query('INSERT INTO bench_first_names (idx, name) VALUES ?', [FIRST_NAMES.map((name, i) => [i, name])]);
  await db.query('INSERT INTO bench_last_names (idx, name) VALUES ?', [LAST_NAMES.map((name, i) => [i, name])]);
  await inChunks(count, async (from, to) => {
    // Hash-derived attributes, so neighbouring rows differ like real traffic does.
    await db.query(`
      INSERT INTO payouts (id, merchant_id, livemode, amount, currency, status, merchant_reference, recipient_first_name,
        recipient_last_name, recipient_country, destination_brand, destination_last4, destination_country, failure_code, failure_message,
        poll_attempts, last_polled_at, created_at, updated_at, completed_at, version, initiator_ip_address, search_text)
      SELECT x.id, ?, 0, x.amount, x.currency, x.status, x.ref, f.name, x.last, 'ES', IF(x.h % 2 = 0, 'VISA', 'MASTERCARD'),
        LPAD(x.h % 10000, 4, '0'), 'ES', IF(x.status = 'FAILED', 'generic_decline', NULL),
        IF(x.status = 'FAILED', 'The card was declined.', NULL), 1, x.created, x.created, x.created,
        IF(x.status = 'PROCESSING', NULL, x.created), 4, '198.51.100.20',
        LOWER(CONCAT_WS('\\n', x.id, x.ref, CONCAT(f.name, ' ', x.last)))
      FROM (
        SELECT s.seq, ${idSql('po_', 'o', 's.seq')} AS id,
          CONV(SUBSTRING(SHA2(CONCAT('h', s.seq), 256), 1, 12), 16, 10) AS h,
          100 + CONV(SUBSTRING(SHA2(CONCAT('a', s.seq), 256), 1, 8), 16, 10) % 500000 AS amount,
          ELT(1 + s.seq % 10, 'EUR', 'EUR', 'EUR', 'EUR', 'USD', 'USD', 'USD', 'GBP', 'GBP', 'JPY') AS currency,
          IF(s.seq % 29 = 0, 'FAILED', IF(s.seq % 31 = 0, 'PROCESSING', 'SUCCEEDED')) AS status,
          IF(s.seq % 2 = 0, 1000000000 + (s.seq * 104729) % 9000000000, NULL) AS ref,
          IF(s.seq % ${RARE_EVERY} = 0, ?, l.name) AS last,
          ${nowSeconds} - (${count} - s.seq) * 2 AS created,
          (s.seq * 37) % ${FIRST_NAMES.length} AS first_idx
        FROM seq_${from}_to_${to} s
        JOIN bench_last_names l ON l.idx = (s.seq * 7) % ${LAST_NAMES.length}
      ) x JOIN bench_first_names f ON f.idx = x.first_idx
      ORDER BY x.seq`, [merchant.merchantId, RARE_SURNAME]);
  });
}

/**
 * What the payout projection writes beside each row (src/read-models/payout-search-index.ts): the
 * scope's counts and every field's suffixes with their positions, here in bulk SQL that cuts the
 * same suffixes from `search_text`. The primary key is dropped while loading (appends only) and
 * built once at the end by InnoDB's sorted index build.
 */
async function seedPayoutSearchIndex(db: mysql.Connection, url: string, merchantId: string, count: number): Promise<boolean> {
  const [tables] = await db.query("SHOW TABLES LIKE 'payout_search_suffixes'");
  if (!(tables as unknown[]).length) return false;
  const [result] = await db.query('INSERT INTO payout_scopes (merchant_id, livemode, payout_count) VALUES (?, 0, ?)', [merchantId, count]);
  const scopeId = (result as { insertId: number }).insertId;
  const [countTables] = await db.query("SHOW TABLES LIKE 'payout_counts'");
  if ((countTables as unknown[]).length) {
    await db.query(`INSERT INTO payout_counts (scope_id, status, currency, destination_brand, payout_count)
      SELECT ?, status, currency, destination_brand, COUNT(*) FROM payouts WHERE merchant_id = ? GROUP BY status, currency, destination_brand`, [scopeId, merchantId]);
  }
  const [rows] = await db.query('SELECT MAX(CHAR_LENGTH(search_text)) AS longest FROM payouts WHERE merchant_id = ?', [merchantId]);
  const longest = Math.max(1, Number((rows as Array<{ longest: number }>)[0]!.longest));
  await db.query('ALTER TABLE payout_search_suffixes DROP PRIMARY KEY');
  await inChunks(count, async (from, to) => {
    await db.query(`
      INSERT INTO payout_search_suffixes (scope_id, suffix, payout_seq, pos)
      SELECT ?, CAST(LEFT(SUBSTRING_INDEX(SUBSTRING(p.search_text, n.seq), '\\n', 1), 12) AS BINARY), p.seq, n.seq - 1
      FROM payouts p JOIN seq_1_to_${longest} n ON n.seq <= CHAR_LENGTH(p.search_text)
      WHERE p.merchant_id = ? AND p.seq BETWEEN ? AND ? AND SUBSTRING(p.search_text, n.seq, 1) <> '\\n'`, [scopeId, merchantId, from, to]);
  });
  await db.query('ALTER TABLE payout_search_suffixes ADD PRIMARY KEY (scope_id, suffix, payout_seq, pos), ALGORITHM=INPLACE');
  await seedPayoutSearchGrams(db, url, scopeId, merchantId);
  await seedCreatedHours(db, scopeId, merchantId);
  return true;
}

/** The scope's creation-hour counts and seq ranges, in the projection's buckets (addToCreatedHour, one payout at a time). */
async function seedCreatedHours(db: mysql.Connection, scopeId: number, merchantId: string): Promise<void> {
  const [tables] = await db.query("SHOW TABLES LIKE 'payout_created_hours'");
  if (!(tables as unknown[]).length) return;
  const hour = `created_at DIV ${CREATED_BUCKET_SECONDS}`;
  await db.query(`
    INSERT INTO payout_created_hours (scope_id, hour, payout_count, min_seq, max_seq)
    SELECT ?, ${hour}, COUNT(*), MIN(seq), MAX(seq) FROM payouts WHERE merchant_id = ? AND livemode = 0 GROUP BY ${hour}`, [scopeId, merchantId]);
}

/** The scope's one- and two-character counts, computed by the projection's own code from every `search_text`. */
async function seedPayoutSearchGrams(db: mysql.Connection, url: string, scopeId: number, merchantId: string): Promise<void> {
  const [tables] = await db.query("SHOW TABLES LIKE 'payout_search_grams'");
  if (!(tables as unknown[]).length) return;
  const counts = new Map<string, number>();
  for (let after = 0; ;) {
    const [rows] = await db.query('SELECT seq, search_text FROM payouts WHERE merchant_id = ? AND livemode = 0 AND seq > ? ORDER BY seq LIMIT 50000', [merchantId, after]);
    const batch = rows as Array<{ seq: number | string; search_text: string | null }>;
    if (!batch.length) break;
    gramCounts(batch.flatMap((row) => (row.search_text === null ? [] : [String(row.search_text)])), counts);
    after = Number(batch[batch.length - 1]!.seq);
  }
  const dataSource = await openDataSource(url);
  try {
    await addGramCounts(dataSource.manager, scopeId, counts);
  } finally {
    await dataSource.destroy();
  }
}

export async function seed(url: string, options: { merchants: number; payments: number; payouts: number; webhookUrl: string }): Promise<Seeded> {
  let start = Date.now();
  const merchants = await createMerchants(url, options.merchants + 1, options.webhookUrl);
  const payoutMerchant = merchants.pop()!;
  const merchantSeconds = seconds(start);
  const db = await connect(url);
  try {
    const nowSeconds = Math.floor(Date.now() / 1000) - 60;
    start = Date.now();
    await seedPayments(db, merchants, options.payments, nowSeconds);
    const paymentSeconds = seconds(start);
    start = Date.now();
    await seedPayouts(db, payoutMerchant, options.payouts, nowSeconds);
    const payoutSeconds = seconds(start);
    start = Date.now();
    const indexed = await seedPayoutSearchIndex(db, url, payoutMerchant.merchantId, options.payouts);
    const indexSeconds = indexed ? seconds(start) : 0;
    await db.query(`ANALYZE TABLE payments, refunds, payouts${indexed ? ', payout_search_suffixes, payout_scopes, payout_counts, payout_search_grams, payout_created_hours' : ''}`);
    return {
      merchants,
      payoutMerchant,
      payments: options.payments,
      payouts: options.payouts,
      seconds: { merchants: merchantSeconds, payments: paymentSeconds, payouts: payoutSeconds, searchIndex: indexSeconds },
    };
  } finally {
    await db.end();
  }
}

/** Random (id, merchant index) pairs of seeded payments for GET by id. */
export async function samplePayments(url: string, total: number, sample: number): Promise<Array<{ id: string; merchantId: string }>> {
  const db = await connect(url);
  try {
    // Bulk inserts leave gaps in `seq`, so random positions are drawn until enough of them exist.
    const [[{ maxSeq }]] = await db.query('SELECT MAX(seq) AS maxSeq FROM payments') as unknown as [[{ maxSeq: number }]];
    const want = Math.min(sample, total);
    const found = new Map<string, { id: string; merchantId: string }>();
    for (let round = 0; found.size < want && round < 20; round += 1) {
      const seqs = new Set<number>();
      while (seqs.size < Math.min(2 * (want - found.size), maxSeq)) seqs.add(1 + Math.floor(Math.random() * maxSeq));
      const [rows] = await db.query('SELECT id, merchant_id AS merchantId FROM payments WHERE seq IN (?)', [[...seqs]]);
      for (const row of rows as Array<{ id: string; merchantId: string }>) if (found.size < want) found.set(row.id, row);
    }
    return [...found.values()];
  } finally {
    await db.end();
  }
}

/** Payout ids at given positions from the newest (for deep cursors). */
export async function payoutIdsAtDepth(url: string, merchantId: string, depths: number[]): Promise<string[]> {
  const db = await connect(url);
  try {
    const ids: string[] = [];
    for (const depth of depths) {
      const [rows] = await db.query('SELECT id FROM payouts WHERE merchant_id = ? AND livemode = 0 ORDER BY seq DESC LIMIT 1 OFFSET ?', [merchantId, depth]);
      ids.push((rows as Array<{ id: string }>)[0]!.id);
    }
    return ids;
  } finally {
    await db.end();
  }
}

export async function withDb<T>(url: string, fn: (db: mysql.Connection) => Promise<T>): Promise<T> {
  const db = await connect(url);
  try {
    return await fn(db);
  } finally {
    await db.end();
  }
}
