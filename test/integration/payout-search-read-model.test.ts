// The payout list's search, read model against a reference: every page and total_count of one-
// and two-character searches (counted from `payout_search_grams`, paged by walking the newest
// payouts or by listing the matches) and longer ones, on MariaDB and on the embedded SQLite
// default; the gram counts stay right through status changes, and the migration's backfill
// rebuilds them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../../src/db/data-source';
import { migrate } from '../../src/db/migrate';
import { PayoutSearchGrams1764800000000 } from '../../src/db/migrations/1764800000000-payout-search-grams';
import { forEachPayoutTextBatch } from '../../src/db/migrations/helpers/payout-search';
import type { PayoutView } from '../../src/domain/payout';
import { parsePayoutSearch } from '../../src/domain/payout-search';
import { findScopeId, gramCounts } from '../../src/read-models/payout-search-index';
import { listPayouts, payoutToRow, recordPayoutProjection, statusWalkSuffixRows, walkFindsPageSooner } from '../../src/read-models/payouts';
import { TEST_ENV } from '../helpers/test-env';

const FIRST = ['Ana', 'Anna', 'Hannah', 'Bob', 'Zoë', 'Ñandú'];
const LAST = ['Díaz', 'an_a', '100%', 'Smith', 'Nana'];
const PAYOUTS = 60;

function payout(merchantId: string, i: number, version: number): PayoutView {
  return {
    id: `po_${randomBytes(12).toString('hex')}`, merchant_id: merchantId, livemode: false, amount: 1000 + i, currency: 'EUR',
    status: version === 1 ? 'PROCESSING' : 'SUCCEEDED', merchant_reference: i % 3 === 0 ? 4_200_000 + i : null,
    recipient: { first_name: FIRST[i % FIRST.length]!, last_name: LAST[(i * 7) % LAST.length]!, country: 'ES' },
    destination: { brand: 'VISA', last4: '4242', country: 'ES' }, initiator_ip_address: '198.51.100.20',
    failure_code: null, failure_message: null, poll_attempts: 0, last_polled_at: null,
    created_at: 1_800_000_000 + i, updated_at: 1_800_000_000 + i + version, completed_at: version === 1 ? null : 1_800_000_000 + i, version,
  };
}

const sqliteFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payout-search-')), 'payments.sqlite');
const ENGINES: Array<[string, string]> = [['MariaDB', TEST_ENV.databaseUrl], ['SQLite', `sqlite:${sqliteFile}`]];

describe.each(ENGINES)('%s', (engine, url) => {
  let dataSource: DataSource;
  const scope = { merchantId: `mer_search_${randomBytes(6).toString('hex')}`, livemode: false };
  /** Newest first, as the list orders them. */
  let newestFirst: PayoutView[] = [];
  const searchText = (view: PayoutView) => payoutToRow(view).search_text!;

  beforeAll(async () => {
    if (engine === 'SQLite') await migrate(url);
    dataSource = await openDataSource(url);
    const created: PayoutView[] = [];
    for (let i = 0; i < PAYOUTS; i += 1) {
      const first = payout(scope.merchantId, i, 1);
      created.push(first);
      await recordPayoutProjection(dataSource, first);
      // A later version (a status change) moves the payout's counts but must not count its texts again.
      await recordPayoutProjection(dataSource, { ...first, status: 'SUCCEEDED', completed_at: first.created_at, version: 2 });
    }
    newestFirst = created.reverse();
  });
  afterAll(async () => { await dataSource.destroy(); });

  async function gramRows(): Promise<Map<string, number>> {
    const scopeId = await findScopeId(dataSource, scope.merchantId, scope.livemode, false);
    const rows = (await dataSource.query('SELECT gram, payout_count FROM payout_search_grams WHERE scope_id = ?', [scopeId])) as Array<{ gram: Buffer; payout_count: number | string }>;
    return new Map(rows.map((r) => [Buffer.from(r.gram).toString('utf8'), Number(r.payout_count)]));
  }

  it('keeps one count per gram: the payouts whose fields contain it', async () => {
    expect(await gramRows()).toEqual(gramCounts(newestFirst.map(searchText)));
  });

  function expected(text: string): PayoutView[] {
    return newestFirst.filter((view) => searchText(view).split('\n').some((field) => field.includes(text)));
  }

  async function page(text: string, limit: number, cursor: { startingAfter?: string; endingBefore?: string } = {}) {
    const result = await listPayouts(dataSource, scope, {
      limit, ...cursor,
      filters: { statuses: [], currencies: [], brands: [], search: parsePayoutSearch(text, []) },
    });
    if ('cursorNotFound' in result) throw new Error('cursor not found');
    return { ids: result.data.map((p) => p.id), hasMore: result.hasMore, totalCount: result.totalCount };
  }

  it('pages every short search like the reference, forwards and backwards, by either plan', async () => {
    const grams = [...gramCounts(newestFirst.map((view) => searchText(view).split('\n').slice(1).join('\n'))).keys()];
    const searches = [...grams, 'po', 'p', 'q', 'qq', 'ñ', '%', '_a', 'Z', 'AN'];
    const plans = new Set<boolean>();
    for (const search of searches) {
      const want = expected(search.toLowerCase());
      for (const limit of [1, 4, 100]) {
        plans.add(walkFindsPageSooner(want.length, PAYOUTS, limit + 1));
        const seen: string[] = [];
        let next = await page(search, limit);
        for (;;) {
          expect(next.totalCount).toBe(want.length);
          seen.push(...next.ids);
          if (!next.hasMore || seen.length > want.length) break;
          next = await page(search, limit, { startingAfter: seen[seen.length - 1]! });
        }
        expect({ search, limit, ids: seen }).toEqual({ search, limit, ids: want.map((v) => v.id) });
        if (want.length > limit) {
          const back = await page(search, limit, { endingBefore: want[want.length - 1]!.id });
          expect({ search, ids: back.ids }).toEqual({ search, ids: want.slice(-1 - limit, -1).map((v) => v.id) });
        }
      }
    }
    // The fixtures are chosen so that both plans run: a page by walking and a page of matches.
    expect(plans).toEqual(new Set([true, false]));
  });

  it('a search with a status filter counts and pages like the reference, whichever way it is counted', async () => {
    // All fixtures end SUCCEEDED: a frequent text is counted by walking the status index
    // (statusWalkSuffixRows(60) suffix rows or more), a rare one by reading its matches' rows.
    expect(statusWalkSuffixRows(PAYOUTS)).toBe(8);
    for (const search of ['a', 'an', 'ana', 'hannah', 'zoë', 'smith', 'quixote', newestFirst[3]!.id]) {
      for (const statuses of [['SUCCEEDED'], ['PROCESSING'], ['PROCESSING', 'SUCCEEDED']] as const) {
        const want = (statuses as readonly string[]).includes('SUCCEEDED') ? expected(search) : [];
        const result = await listPayouts(dataSource, scope, {
          limit: 5, filters: { statuses: [...statuses], currencies: [], brands: [], search: parsePayoutSearch(search, []) },
        });
        if ('cursorNotFound' in result) throw new Error('cursor not found');
        expect({ search, statuses, total: result.totalCount, ids: result.data.map((p) => p.id) })
          .toEqual({ search, statuses, total: want.length, ids: want.slice(0, 5).map((v) => v.id) });
      }
    }
  });

  it('a search with one status pages forwards, backwards and past its end with the total of every page', async () => {
    // 'a' and 'an' are counted and paged in one statement by walking the status index (MariaDB);
    // 'smith' and an id by their matches: both ways must agree with the reference.
    for (const search of ['a', 'an', 'smith', newestFirst[7]!.id]) {
      const want = expected(search);
      const list = async (cursor: { startingAfter?: string; endingBefore?: string }) => {
        const result = await listPayouts(dataSource, scope, {
          limit: 4, ...cursor, filters: { statuses: ['SUCCEEDED'], currencies: [], brands: [], search: parsePayoutSearch(search, []) },
        });
        if ('cursorNotFound' in result) throw new Error('cursor not found');
        return { total: result.totalCount, ids: result.data.map((p) => p.id), hasMore: result.hasMore };
      };
      const seen: string[] = [];
      for (let next = await list({}); ; next = await list({ startingAfter: seen[seen.length - 1]! })) {
        expect({ search, total: next.total }).toEqual({ search, total: want.length });
        seen.push(...next.ids);
        if (!next.hasMore || seen.length > want.length) break;
      }
      expect({ search, ids: seen }).toEqual({ search, ids: want.map((v) => v.id) });
      if (want.length > 5) {
        const back = await list({ endingBefore: want[want.length - 1]!.id });
        expect({ search, total: back.total, ids: back.ids }).toEqual({ search, total: want.length, ids: want.slice(-5, -1).map((v) => v.id) });
      }
      const past = await list({ startingAfter: want[want.length - 1]!.id });
      expect({ search, past }).toEqual({ search, past: { total: want.length, ids: [], hasMore: false } });
    }
  });

  it('longer searches still match literally', async () => {
    for (const search of ['ana', 'hannah', 'an_a', '100%', 'díaz', newestFirst[5]!.id, 'zoë an']) {
      const want = expected(search.toLowerCase());
      const got = await page(search, 100);
      expect({ search, ids: got.ids, total: got.totalCount }).toEqual({ search, ids: want.map((v) => v.id), total: want.length });
    }
  });

  it("the migrations' backfills read every payout of the scope once, in order, across batches", async () => {
    const batches: string[][] = [];
    await forEachPayoutTextBatch(dataSource.manager, scope, 7, (rows) => { batches.push(rows.map((row) => row.searchText)); });
    expect(batches.map((b) => b.length)).toEqual([...Array(8).fill(7), 4]);
    expect(batches.flat()).toEqual([...newestFirst].reverse().map(searchText));
  });

  if (engine === 'SQLite') {
    it("the migration's backfill rebuilds the counts of existing payouts", async () => {
      const before = await gramRows();
      const runner = dataSource.createQueryRunner();
      try {
        await runner.dropTable('payout_search_grams');
        await new PayoutSearchGrams1764800000000().up(runner);
      } finally {
        await runner.release();
      }
      expect(await gramRows()).toEqual(before);
    });
  }
});
