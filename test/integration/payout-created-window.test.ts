// A payout list filtered by creation time alone is counted from `payout_created_hours` (whole
// hours) plus the creation-time index (partial hours) and paged inside the seq range its hours
// hold. On MariaDB and on the embedded SQLite default, every window (hour-aligned or not, within
// one hour, open on either side, empty) must count and page exactly like a reference, including
// payouts whose row was written late (an older created_at with a higher seq), and the migration's
// backfill must rebuild the hours of existing payouts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../../src/db/data-source';
import { migrate } from '../../src/db/migrate';
import { PayoutCreatedHours1765000000000 } from '../../src/db/migrations/1765000000000-payout-created-hours';
import type { PayoutView } from '../../src/domain/payout';
import { findScopeId } from '../../src/read-models/payout-search-index';
import { listPayouts, recordPayoutProjection } from '../../src/read-models/payouts';
import { TEST_ENV } from '../helpers/test-env';

const HOUR = 3600;
const START = 1_800_000_000 - (1_800_000_000 % HOUR); // an hour boundary
/** Seconds after START of each payout, in the order their rows are written (seq order). */
const OFFSETS = [
  0, 1, 59, 3599, 3600, 3601, 5000, 7199, 7200, 9000,
  10_799, 10_800, 10_800, 12_000, 14_399, 14_400, 18_000, 20_000, 21_599, 21_600,
  // Written late: created earlier than rows already written.
  4000, 100, 14_000, 7200,
];

function payout(merchantId: string, i: number): PayoutView {
  const createdAt = START + OFFSETS[i]!;
  return {
    id: `po_${randomBytes(12).toString('hex')}`, merchant_id: merchantId, livemode: false, amount: 1000 + i, currency: 'EUR',
    status: 'PROCESSING', merchant_reference: null,
    recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' },
    destination: { brand: 'VISA', last4: '4242', country: 'ES' }, initiator_ip_address: '198.51.100.20',
    failure_code: null, failure_message: null, poll_attempts: 0, last_polled_at: null,
    created_at: createdAt, updated_at: createdAt, completed_at: null, version: 1,
  };
}

const sqliteFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payout-created-')), 'payments.sqlite');
const ENGINES: Array<[string, string]> = [['MariaDB', TEST_ENV.databaseUrl], ['SQLite', `sqlite:${sqliteFile}`]];

describe.each(ENGINES)('%s', (engine, url) => {
  let dataSource: DataSource;
  const scope = { merchantId: `mer_created_${randomBytes(6).toString('hex')}`, livemode: false };
  /** Newest first, as the list orders them (by seq: the order the rows were written). */
  let newestFirst: PayoutView[] = [];

  beforeAll(async () => {
    if (engine === 'SQLite') await migrate(url);
    dataSource = await openDataSource(url);
    for (let i = 0; i < OFFSETS.length; i += 1) {
      const view = payout(scope.merchantId, i);
      newestFirst.unshift(view);
      await recordPayoutProjection(dataSource, view);
      // A later version (a status change) must not count the payout's hour again.
      if (i % 3 === 0) await recordPayoutProjection(dataSource, { ...view, status: 'SUCCEEDED', completed_at: view.created_at + 1, version: 2 });
    }
  });
  afterAll(async () => { await dataSource.destroy(); });

  async function page(window: { gte?: number; lt?: number }, limit: number, cursor: { startingAfter?: string; endingBefore?: string } = {}) {
    const result = await listPayouts(dataSource, scope, {
      limit, ...cursor, filters: { statuses: [], currencies: [], brands: [], createdGte: window.gte, createdLt: window.lt },
    });
    if ('cursorNotFound' in result) throw new Error('cursor not found');
    return { ids: result.data.map((p) => p.id), hasMore: result.hasMore, totalCount: result.totalCount };
  }

  const at = (offset: number) => START + offset;
  const windows: Array<{ gte?: number; lt?: number }> = [
    { gte: at(0), lt: at(HOUR) }, // one whole hour
    { gte: at(0), lt: at(6 * HOUR) }, // whole hours only
    { gte: at(1), lt: at(3600) }, // inside one hour
    { gte: at(59), lt: at(3601) }, // two partial hours, no whole one
    { gte: at(100), lt: at(14_000) }, // partial, whole, partial
    { gte: at(3600), lt: at(10_800) },
    { gte: at(3599), lt: at(10_801) },
    { gte: at(7200), lt: at(7201) }, // one second
    { gte: at(7201), lt: at(7202) }, // one second, nobody
    { gte: at(10_800) }, // open above, aligned
    { gte: at(10_801) }, // open above
    { lt: at(7200) }, // open below, aligned
    { lt: at(7199) }, // open below
    { gte: at(30 * HOUR) }, // after every payout
    { lt: at(-HOUR) }, // before every payout
    { gte: at(-5 * HOUR), lt: at(40 * HOUR) }, // around every payout
  ];

  it('counts and pages every window like the reference, forwards and backwards', async () => {
    for (const window of windows) {
      const want = newestFirst.filter((v) => (window.gte === undefined || v.created_at >= window.gte) && (window.lt === undefined || v.created_at < window.lt));
      for (const limit of [1, 3, 100]) {
        const seen: string[] = [];
        let next = await page(window, limit);
        for (;;) {
          expect({ window, total: next.totalCount }).toEqual({ window, total: want.length });
          seen.push(...next.ids);
          if (!next.hasMore || seen.length > want.length) break;
          next = await page(window, limit, { startingAfter: seen[seen.length - 1]! });
        }
        expect({ window, limit, ids: seen }).toEqual({ window, limit, ids: want.map((v) => v.id) });
        if (want.length > limit) {
          const back = await page(window, limit, { endingBefore: want[want.length - 1]!.id });
          expect({ window, ids: back.ids }).toEqual({ window, ids: want.slice(-1 - limit, -1).map((v) => v.id) });
        }
      }
    }
  });

  async function hourRows(): Promise<Array<{ hour: number; payout_count: number; min_seq: number; max_seq: number }>> {
    const scopeId = await findScopeId(dataSource, scope.merchantId, scope.livemode, false);
    const rows = (await dataSource.query('SELECT hour, payout_count, min_seq, max_seq FROM payout_created_hours WHERE scope_id = ? ORDER BY hour', [scopeId])) as Array<Record<string, number | string>>;
    return rows.map((r) => ({ hour: Number(r.hour), payout_count: Number(r.payout_count), min_seq: Number(r.min_seq), max_seq: Number(r.max_seq) }));
  }

  it('keeps one row per hour: its payouts and the seq range that holds them', async () => {
    const seqs = (await dataSource.query('SELECT seq, created_at FROM payouts WHERE merchant_id = ?', [scope.merchantId])) as Array<{ seq: number | string; created_at: number | string }>;
    const want = new Map<number, { hour: number; payout_count: number; min_seq: number; max_seq: number }>();
    for (const row of seqs) {
      const hour = Math.floor(Number(row.created_at) / HOUR);
      const seq = Number(row.seq);
      const bucket = want.get(hour) ?? { hour, payout_count: 0, min_seq: seq, max_seq: seq };
      want.set(hour, { hour, payout_count: bucket.payout_count + 1, min_seq: Math.min(bucket.min_seq, seq), max_seq: Math.max(bucket.max_seq, seq) });
    }
    expect(await hourRows()).toEqual([...want.values()].sort((a, b) => a.hour - b.hour));
    expect((await hourRows()).reduce((sum, r) => sum + r.payout_count, 0)).toBe(OFFSETS.length);
  });

  if (engine === 'SQLite') {
    it("the migration's backfill rebuilds the hours of existing payouts", async () => {
      const before = await hourRows();
      const runner = dataSource.createQueryRunner();
      try {
        await runner.dropTable('payout_created_hours');
        await new PayoutCreatedHours1765000000000().up(runner);
      } finally {
        await runner.release();
      }
      expect(await hourRows()).toEqual(before);
    });
  }
});
