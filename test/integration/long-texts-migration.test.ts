// Migration 1765700000000: an event's body and a stored answer may hold a Payment with hundreds of
// refunds. Both engines keep a 1 MB text whole; on MariaDB the columns keep their collations, and
// the migration runs down and up again over the rows it finds.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { isMysql } from '../../src/db/dialect';
import { migrate } from '../../src/db/migrate';
import { LongTexts1765700000000 } from '../../src/db/migrations/1765700000000-long-texts';
import { useMigratedDatabase } from '../helpers/mysql-database';
import { TEST_ENV } from '../helpers/test-env';

const sqliteFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'long-texts-')), 'payments.sqlite');
// A database of its own: running down needs tables whose texts all fit TEXT again, which the
// shared test database's long events (refunds-answer-path.test.ts) do not.
const ENGINES: Array<[string, string]> = [['MariaDB', `${TEST_ENV.databaseUrl}_long_texts`], ['SQLite', `sqlite:${sqliteFile}`]];
const MEGABYTE = `{"refunds":[${'"ref_0123456789abcdef01234567",'.repeat(34_000)}"end"]}`;

describe.each(ENGINES)('%s', (engine, url) => {
  let dataSource: DataSource;
  const id = randomBytes(12).toString('hex');

  const database = useMigratedDatabase(url);
  beforeAll(() => { dataSource = database(); });

  async function write(): Promise<void> {
    await dataSource.query(
      `INSERT INTO events (id, merchant_id, livemode, type, object_id, payload, payload_b, created_at, relay_lease_until_ms) VALUES (?, 'mer_long', 0, 'payment.refunded', 'pay_long', ?, ?, 1, 0)`,
      [`evt_${id}`, MEGABYTE, MEGABYTE],
    );
    await dataSource.query(
      `INSERT INTO idempotency_records (api_key_id, operation, idempotency_key, fingerprint, object_id, state, response_status, response_body, locked_until_ms, created_at, expires_at)
       VALUES (?, 'payments.refund_b', 'k', ?, 'pay_long', 'completed', 200, ?, 0, 1, 4000000000)`,
      [`key_${id}`, 'f'.repeat(64), MEGABYTE],
    );
  }

  async function read(): Promise<string[]> {
    const [event] = await dataSource.query('SELECT payload, payload_b FROM events WHERE id = ?', [`evt_${id}`]);
    const [record] = await dataSource.query('SELECT response_body FROM idempotency_records WHERE api_key_id = ?', [`key_${id}`]);
    return [event.payload, event.payload_b, record.response_body];
  }

  async function run(step: 'up' | 'down'): Promise<void> {
    const runner = dataSource.createQueryRunner();
    try {
      await new LongTexts1765700000000()[step](runner);
    } finally {
      await runner.release();
    }
  }

  it('keeps a Payment event of 1 MB and a stored answer of 1 MB whole', async () => {
    expect(MEGABYTE.length).toBeGreaterThan(1_000_000);
    await write();
    expect(await read()).toEqual([MEGABYTE, MEGABYTE, MEGABYTE]);
  });

  it('keeps the collations, and runs down and up again over short rows', async () => {
    if (!isMysql(dataSource)) return; // SQLite: the migration changes nothing
    const columns = async () => (await dataSource.query(
      `SELECT table_name AS t, column_name AS c, column_type AS type, collation_name AS collation, is_nullable AS nullable FROM information_schema.columns
       WHERE table_schema = DATABASE() AND ((table_name = 'events' AND column_name IN ('payload', 'payload_b')) OR (table_name = 'idempotency_records' AND column_name = 'response_body'))
       ORDER BY table_name, column_name`,
    )).map((r: Record<string, string>) => [r.t ?? r.T ?? r.TABLE_NAME, r.c ?? r.COLUMN_NAME, r.type ?? r.COLUMN_TYPE, r.collation ?? r.COLLATION_NAME, r.nullable ?? r.IS_NULLABLE]);
    expect(await columns()).toEqual([
      ['events', 'payload', 'mediumtext', 'utf8mb4_unicode_ci', 'NO'],
      ['events', 'payload_b', 'mediumtext', 'utf8mb4_nopad_bin', 'YES'],
      ['idempotency_records', 'response_body', 'mediumtext', 'utf8mb4_unicode_ci', 'YES'],
    ]);
    await dataSource.query('DELETE FROM events WHERE id = ?', [`evt_${id}`]);
    await dataSource.query('DELETE FROM idempotency_records WHERE api_key_id = ?', [`key_${id}`]);
    await run('down');
    try {
      expect((await columns()).map((c: string[]) => c[2])).toEqual(['text', 'text', 'text']);
    } finally {
      await run('up');
    }
    expect((await columns()).map((c: string[]) => c[2])).toEqual(['mediumtext', 'mediumtext', 'mediumtext']);
  });
});
