// Payment lists in creation order on MariaDB and on the embedded SQLite default: Payments recorded
// within one second list the later one first (whatever their ids), filters keep that order, and
// cursor pages stay stable while Payments are created between page fetches, forwards and backwards.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../../src/db/data-source';
import { migrate } from '../../src/db/migrate';
import type { PaymentStatus } from '../../src/domain/payment';
import { listPayments, recordPaymentProjection, type PaymentListQuery } from '../../src/read-models/payments';
import { projectedPayment, TEST_BOX } from '../helpers/payments';
import { TEST_ENV } from '../helpers/test-env';

const sqliteFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payment-list-order-')), 'payments.sqlite');
const ENGINES: Array<[string, string]> = [['MariaDB', TEST_ENV.databaseUrl], ['SQLite', `sqlite:${sqliteFile}`]];
const SECOND = 1_800_000_000;

describe.each(ENGINES)('%s', (engine, url) => {
  let dataSource: DataSource;
  beforeAll(async () => {
    if (engine === 'SQLite') await migrate(url);
    dataSource = await openDataSource(url);
  });
  afterAll(async () => { await dataSource.destroy(); });

  /** A merchant of its own, whose Payments are recorded here one after another. */
  function shop() {
    const merchantId = `mer_${randomBytes(10).toString('hex')}`;
    const scope = { merchantId, livemode: false };
    let made = 0;
    return {
      scope,
      /** Records a Payment; ids fall as Payments are added, so an id order is the opposite of creation. */
      async create(createdAt = SECOND, status: PaymentStatus = 'SUCCEEDED'): Promise<string> {
        made += 1;
        const id = `pay_${String(999 - made).padStart(4, '0')}${randomBytes(10).toString('hex')}`;
        const view = projectedPayment(merchantId, id, { amount: 100 * made, status, created_at: createdAt, updated_at: createdAt });
        await recordPaymentProjection(dataSource, TEST_BOX, view, { likelyNew: true });
        return id;
      },
      async list(query: Partial<PaymentListQuery> = {}): Promise<{ ids: string[]; hasMore: boolean }> {
        const result = await listPayments(dataSource, TEST_BOX, scope, { limit: 100, ...query });
        if ('cursorNotFound' in result) throw new Error(`cursor not found: ${result.cursorNotFound}`);
        return { ids: result.data.map((p) => p.id), hasMore: result.hasMore };
      },
    };
  }

  it('Payments created within one second list newest first, with and without filters', async () => {
    const s = shop();
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1) created.push(await s.create(SECOND, i % 2 ? 'FAILED' : 'SUCCEEDED'));
    const newestFirst = [...created].reverse();
    expect((await s.list()).ids).toEqual(newestFirst);
    expect((await s.list({ statusFilters: [{ statuses: ['SUCCEEDED'] }] })).ids).toEqual(newestFirst.filter((_, i) => i % 2 === 0));
    expect((await s.list({ statusFilters: [{ statuses: ['SUCCEEDED', 'FAILED'] }] })).ids).toEqual(newestFirst);
    expect((await s.list({ createdGte: SECOND, createdLt: SECOND + 1 })).ids).toEqual(newestFirst);
    expect((await s.list({ limit: 2 }))).toEqual({ ids: newestFirst.slice(0, 2), hasMore: true });
    expect((await s.list({ limit: 2, startingAfter: newestFirst[1] }))).toEqual({ ids: newestFirst.slice(2, 4), hasMore: true });
    expect((await s.list({ limit: 2, endingBefore: newestFirst[4] }))).toEqual({ ids: newestFirst.slice(2, 4), hasMore: true });
  });

  it('creation order wins over created_at: a Payment recorded later lists first even with an earlier second', async () => {
    const s = shop();
    const first = await s.create(SECOND + 10);
    const second = await s.create(SECOND + 5);
    expect((await s.list()).ids).toEqual([second, first]);
    expect((await s.list({ createdGte: SECOND + 5, createdLt: SECOND + 10 })).ids).toEqual([second]);
    expect((await s.list({ createdGte: SECOND + 10 })).ids).toEqual([first]);
    expect((await s.list({ createdLt: SECOND + 6 })).ids).toEqual([second]);
  });

  it('pages stay stable while Payments are created between page fetches', async () => {
    const s = shop();
    for (let i = 0; i < 12; i += 1) await s.create(SECOND);
    const before = (await s.list()).ids;

    // Forwards: every Payment that existed exactly once, none of the new ones.
    const seen: string[] = [];
    const createdMeanwhile: string[] = [];
    let page = await s.list({ limit: 5 });
    for (;;) {
      seen.push(...page.ids);
      createdMeanwhile.push(await s.create(SECOND));
      if (!page.hasMore) break;
      page = await s.list({ limit: 5, startingAfter: seen[seen.length - 1] });
    }
    expect(seen).toEqual(before);

    // Backwards from the oldest: every newer Payment exactly once, those created meanwhile included, in order.
    const everything = (await s.list()).ids;
    expect(everything).toEqual([...createdMeanwhile].reverse().concat(before));
    const back: string[] = [];
    const createdWhileBack: string[] = [];
    let cursor = everything[everything.length - 1]!;
    for (;;) {
      const previous = await s.list({ limit: 4, endingBefore: cursor });
      back.unshift(...previous.ids);
      if (!previous.hasMore) break;
      cursor = previous.ids[0]!;
      createdWhileBack.push(await s.create(SECOND));
    }
    expect(back).toEqual([...createdWhileBack].reverse().concat(everything.slice(0, -1)));
  });
});
