// Hosted page tokens are kept as their SHA-256, as API keys are (docs/hosted-page.md, "The token"):
// no column of the Payment row, nor the saved create answer, holds the token in clear, while the
// merchant still reads the page URL and the shopper still opens it. Migration 1765800000000 converts
// existing rows, on MariaDB and SQLite, and a page that was open before it keeps opening.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { IdempotencyRecord, Payment } from '../../src/db/entities';
import { migrate } from '../../src/db/migrate';
import { HostedTokenHash1765800000000 } from '../../src/db/migrations/1765800000000-hosted-token-hash';
import { randomBase62 } from '../../src/domain/ids';
import { findPaymentByHostedToken } from '../../src/read-models/payments';
import { call, useTestApi } from '../helpers/api';
import { FUTURE_YEAR, TEST_BOX, waitForStatus } from '../helpers/payments';
import { useMigratedDatabase } from '../helpers/mysql-database';
import { TEST_ENV } from '../helpers/test-env';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

async function runMigration(dataSource: DataSource, step: 'up' | 'down'): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    await new HostedTokenHash1765800000000()[step](runner);
  } finally {
    await runner.release();
  }
}

describe('through the API', () => {
  const t = useTestApi({ config: { paymentActionTtlSeconds: 120 }, merchant: { name: 'Token Hash Shop' }, timeoutMs: 60_000 });

  const hostedA = { amount: 4999, currency: 'USD', customer_ip_address: '203.0.113.7', return_url: 'https://shop.example/return' };
  const row = async (id: string) => (await t.api.deps.dataSource.getRepository(Payment).findOneByOrFail({ id }));

  it('the row keeps the hash and a sealed copy; the merchant reads the URL; the page opens by it', async () => {
    const created = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, body: hostedA });
    expect(created.status).toBe(201);
    const url = created.json.next_action.redirect_url as string;
    const token = tokenOf(url);
    expect(token).toMatch(/^[A-Za-z0-9]{32}$/);

    const stored = await row(created.json.id);
    expect(stored.hosted_token).toBe(sha256(token));
    expect(stored.hosted_token_sealed).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(token);
    const saved = await t.api.deps.dataSource.getRepository(IdempotencyRecord).findOneByOrFail({ object_id: created.json.id });
    expect(saved.response_body).not.toContain(token);

    const read = await call(t.api, 'GET', `/v1/payments/${created.json.id}`, { key: t.merchant.testKey });
    expect(read.json.next_action.redirect_url).toBe(url);
    const listed = await call(t.api, 'GET', '/v1/payments?limit=1', { key: t.merchant.testKey });
    expect(listed.json.data[0].next_action.redirect_url).toBe(url);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Token Hash Shop');

    // A case-swapped token, or the stored hash itself, opens nothing.
    const swapped = token.replace(/[a-z]/, (c) => c.toUpperCase()).replace(/[A-Z]/, (c) => c.toLowerCase());
    if (swapped !== token) expect((await fetch(url.replace(token, swapped))).status).toBe(404);
    expect((await fetch(url.replace(token, sha256(token)))).status).toBe(404);
  });

  it('Shape B keeps showing its redirect_url after the page is done', async () => {
    const created = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, headers: { 'Service-Version': '2024-06-01' }, body: { amount: 2500, currency: 'eur', redirect_url: 'https://shop.example/back' } });
    expect(created.status).toBe(201);
    const url = created.json.redirect_url as string;
    const form = new URLSearchParams({ card_number: '4242424242424242', exp: `12/${String(FUTURE_YEAR).slice(-2)}`, cvc: '123', cardholder_name: 'Ada Lovelace' });
    const submitted = await fetch(url, { method: 'POST', body: form.toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect(submitted.status).toBe(303);
    await waitForStatus(t.api, t.merchant.testKey, created.json.id, 'SUCCEEDED');
    const read = await call(t.api, 'GET', `/v1/payments/${created.json.id}`, { key: t.merchant.testKey, headers: { 'Service-Version': '2024-06-01' } });
    expect(read.json.redirect_url).toBe(url);
    expect(JSON.stringify(await row(created.json.id))).not.toContain(tokenOf(url));
  });

  it('a page open before the migration (token in clear) keeps opening after it, and takes its card', async () => {
    const created = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, body: hostedA });
    const url = created.json.next_action.redirect_url as string;
    const token = tokenOf(url);
    // Put the row back as the code before the migration wrote it.
    await t.api.deps.dataSource.getRepository(Payment).update({ id: created.json.id }, { hosted_token: token, hosted_token_sealed: null, next_action_url: url });
    expect((await fetch(url)).status).toBe(404); // the new code looks the hash up
    await runMigration(t.api.deps.dataSource, 'up');
    expect((await row(created.json.id)).hosted_token).toBe(sha256(token));
    expect((await fetch(url)).status).toBe(200);
    expect((await call(t.api, 'GET', `/v1/payments/${created.json.id}`, { key: t.merchant.testKey })).json.next_action.redirect_url).toBe(url);
    const form = new URLSearchParams({ card_number: '4242424242424242', exp: `12/${String(FUTURE_YEAR).slice(-2)}`, cvc: '123', cardholder_name: 'Ada Lovelace' });
    const submitted = await fetch(url, { method: 'POST', body: form.toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect(submitted.status).toBe(303);
    await waitForStatus(t.api, t.merchant.testKey, created.json.id, 'SUCCEEDED');
    // The Payment's next projection wrote the row anew: sealed, no token in clear.
    const after = await row(created.json.id);
    expect(after.hosted_token_sealed).toMatch(/^v1\./);
    expect(JSON.stringify(after)).not.toContain(token);
  });
});

const sqliteFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hosted-token-')), 'payments.sqlite');
const ENGINES: Array<[string, string]> = [['MariaDB', `${TEST_ENV.databaseUrl}_hosted_token`], ['SQLite', `sqlite:${sqliteFile}`]];

describe.each(ENGINES)('migration 1765800000000 on %s', (engine, url) => {
  let dataSource: DataSource;
  const database = useMigratedDatabase(url);
  beforeAll(() => { dataSource = database(); });

  /** A hosted Payment row as the code before the migration wrote it. */
  async function legacyRow(token: string): Promise<{ id: string; url: string }> {
    const id = `pay_${randomBase62(24)}`;
    const pageUrl = `https://pay.example.com/checkout/${token}`;
    await dataSource.query(
      `INSERT INTO payments (id, merchant_id, livemode, amount, currency, status, integration_type, amount_refunded, amount_refundable,
         next_action_reason, next_action_url, requires_action_at, hosted_token, hosted_page_url, created_at, updated_at, version)
       VALUES (?, 'mer_migration', 0, 4999, 'USD', 'REQUIRES_ACTION', 'HOSTED_PAYMENT_PAGE', 0, 0, 'hosted_payment_page', ?, 1, ?, ?, 1, 1, 1)`,
      [id, pageUrl, token, pageUrl],
    );
    return { id, url: pageUrl };
  }

  it('replaces every token by its hash; the page is found by its token, with its URL as it was', async () => {
    await runMigration(dataSource, 'down');
    const tokens = Array.from({ length: 3 }, () => randomBase62(32));
    const rows = [];
    for (const token of tokens) rows.push(await legacyRow(token));
    await runMigration(dataSource, 'up');
    for (const [i, token] of tokens.entries()) {
      const [stored] = await dataSource.query('SELECT hosted_token, hosted_token_sealed FROM payments WHERE id = ?', [rows[i]!.id]);
      expect(stored).toEqual({ hosted_token: sha256(token), hosted_token_sealed: null });
      const found = await findPaymentByHostedToken(dataSource, TEST_BOX, token);
      expect({ id: found?.id, url: found?.next_action?.redirect_url, hosted: found?.hosted_page_url }).toEqual({ id: rows[i]!.id, url: rows[i]!.url, hosted: rows[i]!.url });
    }
    expect(await findPaymentByHostedToken(dataSource, TEST_BOX, tokens[0]!.toLowerCase() === tokens[0] ? tokens[0]!.toUpperCase() : tokens[0]!.toLowerCase())).toBeNull();
  });

  it('is safe to run again: a hash is never hashed twice', async () => {
    const token = randomBase62(32);
    const { id } = await legacyRow(token);
    await runMigration(dataSource, 'up');
    await runMigration(dataSource, 'up');
    const [stored] = await dataSource.query('SELECT hosted_token FROM payments WHERE id = ?', [id]);
    expect(stored.hosted_token).toBe(sha256(token));
    const [counts] = await dataSource.query("SELECT COUNT(*) AS n FROM payments WHERE hosted_token IS NOT NULL AND LENGTH(hosted_token) <> 64");
    expect(Number(counts.n)).toBe(0);
  });
});
