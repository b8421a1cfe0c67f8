// The statements a payout list sends, recorded for every kind of list query (each search kind,
// searches with filters, deep cursors both ways, each structured filter, creation-time windows)
// and compared with the committed snapshot, on MariaDB and on the embedded SQLite default. The
// query plans behind the list's figures (bench/REPORT.md) hold only while the SQL text, its index
// hints and its parameters stay the same, so any change to them shows here as a diff to review
// (`-u` re-records after an intended change). The data and the database are fresh and the same
// on every run, so `seq`s and scope ids are the same too: nothing needs normalizing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataSource, type Logger } from 'typeorm';
import { dataSourceOptions } from '../../src/db/data-source';
import { migrate } from '../../src/db/migrate';
import type { CardBrand } from '../../src/domain/cards';
import type { PayoutStatus, PayoutView } from '../../src/domain/payout';
import { parsePayoutSearch } from '../../src/domain/payout-search';
import { listPayouts, recordPayoutProjection, type PayoutFilters, type PayoutListQuery } from '../../src/read-models/payouts';
import { dropMysqlDatabase } from '../helpers/mysql-database';
import { TEST_ENV } from '../helpers/test-env';

const HOUR = 3600;
const START = 1_800_000_000 - (1_800_000_000 % HOUR);
const MERCHANT = 'mer_ListSql00000000000000aB';
const EMPTY_MERCHANT = 'mer_ListSqlEmpty000000000aB';
const PAYOUTS = 120;
const FIRST = ['Maria', 'Ana', 'José', 'Hannah', 'Zoë', 'María'];
const LAST = ['García', 'Smith', 'Nana', 'Díaz', 'Garcia'];
const CURRENCIES = ['EUR', 'JPY', 'USD'];

const payoutId = (i: number) => `po_ListSql${String(i).padStart(14, '0')}aB`;

/** Payout i: 10 FAILED (every other Maria), some PROCESSING, three currencies, two brands, one rare surname (FAILED), 10 minutes apart. */
function payout(i: number): PayoutView {
  const status: PayoutStatus = i % 12 === 6 ? 'FAILED' : i % 7 === 3 ? 'PROCESSING' : 'SUCCEEDED';
  const currency = CURRENCIES[i % 3]!;
  const createdAt = START + i * 600;
  return {
    id: payoutId(i), merchant_id: MERCHANT, livemode: false, amount: currency === 'EUR' && i % 4 === 0 ? 2550 : 1000 + i * 13, currency, status,
    merchant_reference: i % 3 === 0 ? 4_200_000 + i : null,
    recipient: { first_name: FIRST[i % FIRST.length]!, last_name: i === 78 ? 'Quixote' : LAST[i % LAST.length]!, country: 'ES' },
    destination: { brand: (i % 2 ? 'MASTERCARD' : 'VISA') as CardBrand, last4: i % 10 === 4 ? '1234' : '4242', country: 'ES' },
    initiator_ip_address: '198.51.100.20', failure_code: null, failure_message: null, poll_attempts: 0, last_polled_at: null,
    created_at: createdAt, updated_at: createdAt, completed_at: status === 'PROCESSING' ? null : createdAt, version: 1,
  };
}

const none: PayoutFilters = { statuses: [], currencies: [], brands: [] };
const search = (text: string, filters: Partial<PayoutFilters> = {}): PayoutFilters => ({ ...none, ...filters, search: parsePayoutSearch(text, filters.currencies ?? []) });

/** Every kind of list query: [label, merchant, query]. */
const QUERIES: Array<[string, string, PayoutListQuery]> = [
  ['first page, no filter', MERCHANT, { limit: 10, filters: none }],
  ['deep cursor page forwards', MERCHANT, { limit: 10, startingAfter: payoutId(12), filters: none }],
  ['deep cursor page backwards', MERCHANT, { limit: 10, endingBefore: payoutId(12), filters: none }],
  ['cursor not found', MERCHANT, { limit: 10, startingAfter: payoutId(PAYOUTS), filters: none }],
  ['name search, common first name', MERCHANT, { limit: 10, filters: search('maria') }],
  ['name search, accented surname', MERCHANT, { limit: 10, filters: search('garcía') }],
  ['name search, rare surname', MERCHANT, { limit: 10, filters: search('quixo') }],
  ['name search, full name', MERCHANT, { limit: 10, filters: search('maria garcía') }],
  ['last-four search', MERCHANT, { limit: 10, filters: search('4242') }],
  ['amount search, one currency', MERCHANT, { limit: 10, filters: search('25.50', { currencies: ['EUR'] }) }],
  ['payout id search (longer than the indexed suffixes)', MERCHANT, { limit: 10, filters: search(payoutId(42)) }],
  ['merchant reference search', MERCHANT, { limit: 10, filters: search('4200042') }],
  ['two-character search, frequent (walks the newest payouts)', MERCHANT, { limit: 3, filters: search('ar') }],
  ['two-character search, rare (pages the matches)', MERCHANT, { limit: 10, filters: search('zo') }],
  ['one-character search', MERCHANT, { limit: 10, filters: search('ë') }],
  ['search, deep cursor page forwards', MERCHANT, { limit: 5, startingAfter: payoutId(60), filters: search('maria') }],
  ['search, deep cursor page backwards', MERCHANT, { limit: 5, endingBefore: payoutId(60), filters: search('maria') }],
  ['search + status filter, frequent text (walks the status index)', MERCHANT, { limit: 5, filters: search('maria', { statuses: ['FAILED'] }) }],
  ['search + status filter, past the last match', MERCHANT, { limit: 5, startingAfter: payoutId(0), filters: search('maria', { statuses: ['FAILED'] }) }],
  ['search + status filter, rare text', MERCHANT, { limit: 5, filters: search('quixo', { statuses: ['FAILED'] }) }],
  ['search + two statuses', MERCHANT, { limit: 5, filters: search('maria', { statuses: ['FAILED', 'PROCESSING'] }) }],
  ['search + currency filter', MERCHANT, { limit: 5, filters: search('maria', { currencies: ['EUR'] }) }],
  ['two-character search + status filter', MERCHANT, { limit: 5, filters: search('ar', { statuses: ['SUCCEEDED'] }) }],
  ['search, merchant without payouts', EMPTY_MERCHANT, { limit: 10, filters: search('maria') }],
  ['last-four search, merchant without payouts', EMPTY_MERCHANT, { limit: 10, filters: search('4242') }],
  ['status filter', MERCHANT, { limit: 10, filters: { ...none, statuses: ['FAILED'] } }],
  ['status filter, deep cursor page', MERCHANT, { limit: 3, startingAfter: payoutId(77), filters: { ...none, statuses: ['FAILED'] } }],
  ['two statuses', MERCHANT, { limit: 10, filters: { ...none, statuses: ['FAILED', 'PROCESSING'] } }],
  ['currency + status filter', MERCHANT, { limit: 10, filters: { ...none, currencies: ['JPY'], statuses: ['SUCCEEDED'] } }],
  ['card brand filter', MERCHANT, { limit: 10, filters: { ...none, brands: ['MASTERCARD'] } }],
  ['card_last4 filter', MERCHANT, { limit: 10, filters: { ...none, last4: '1234' } }],
  ['created window', MERCHANT, { limit: 10, filters: { ...none, createdGte: START + 3000, createdLt: START + 30_000 } }],
  ['created window, deep cursor page backwards', MERCHANT, { limit: 4, endingBefore: payoutId(20), filters: { ...none, createdGte: START + 3000, createdLt: START + 30_000 } }],
  ['created window, open start', MERCHANT, { limit: 10, filters: { ...none, createdLt: START + 7200 } }],
  ['created window, before every payout', MERCHANT, { limit: 10, filters: { ...none, createdGte: START - 10 * HOUR, createdLt: START - 5 * HOUR } }],
  ['created window + status filter', MERCHANT, { limit: 10, filters: { ...none, statuses: ['SUCCEEDED'], createdGte: START + 3000 } }],
  ['amount range', MERCHANT, { limit: 10, filters: { ...none, amountGte: 1000, amountLte: 1500 } }],
  ['amount range + currency filter', MERCHANT, { limit: 10, filters: { ...none, currencies: ['EUR'], amountGte: 1000, amountLte: 1500 } }],
];

/** Records every statement with its parameters (buffers as hex, so the snapshot reads as text). */
class StatementRecorder implements Logger {
  statements: Array<{ sql: string; parameters: unknown[] }> = [];
  logQuery(sql: string, parameters?: unknown[]): void {
    this.statements.push({ sql, parameters: (parameters ?? []).map((p) => (Buffer.isBuffer(p) ? `0x${p.toString('hex')}` : p)) });
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

const sqliteFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payout-list-sql-')), 'payments.sqlite');
const ENGINES: Array<[string, string]> = [['MariaDB', `${TEST_ENV.databaseUrl}_list_sql`], ['SQLite', `sqlite:${sqliteFile}`]];

describe.each(ENGINES)('%s', (engine, url) => {
  const recorder = new StatementRecorder();
  let dataSource: DataSource;

  beforeAll(async () => {
    if (engine === 'MariaDB') await dropMysqlDatabase(url);
    await migrate(url);
    dataSource = new DataSource({ ...dataSourceOptions(url), logging: true, logger: recorder } as never);
    await dataSource.initialize();
    for (let i = 0; i < PAYOUTS; i += 1) await recordPayoutProjection(dataSource, payout(i));
  });
  afterAll(async () => {
    await dataSource.destroy();
    if (engine === 'MariaDB') await dropMysqlDatabase(url);
  });

  it('sends the recorded statements, with the recorded parameters, for every kind of list query', async () => {
    const sent: Record<string, unknown> = {};
    for (const [label, merchantId, query] of QUERIES) {
      recorder.statements = [];
      const result = await listPayouts(dataSource, { merchantId, livemode: false }, query);
      const answer = 'cursorNotFound' in result ? result : { ids: result.data.map((p) => p.id), hasMore: result.hasMore, totalCount: result.totalCount };
      sent[label] = { statements: recorder.statements, answer };
    }
    expect(sent).toMatchSnapshot();
  });
});
