// The payout list planner's rules (src/read-models/payout-list-plan.ts), one row each: the filters,
// the dialect, the page and the counts known so far in; the next count to look up, or the plan, out.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { CardBrand } from '../../src/domain/cards';
import type { PayoutStatus } from '../../src/domain/payout';
import { parsePayoutSearch } from '../../src/domain/payout-search';
import {
  FEW_MATCHES,
  planPayoutList,
  type CountLookup,
  type MatchList,
  type PayoutFilters,
  type PayoutIndex,
  type PayoutListCounts,
  type PayoutListInput,
  type PayoutListStep,
  type RowQuery,
} from '../../src/read-models/payout-list-plan';
import { suffixRange } from '../../src/read-models/payout-search-index';
import type { SeqPage } from '../../src/read-models/seq-pages';

const PAGE: SeqPage = { cursor: null, direction: 'DESC', limit: 10 };
const SCOPE_ID = 7;
const HOUR = 3600;
const T = 1_800_000_000 - (1_800_000_000 % HOUR);

const filters = (only: Partial<PayoutFilters> = {}): PayoutFilters => ({ statuses: [], currencies: [], brands: [], ...only });
const search = (text: string, only: Partial<PayoutFilters> = {}): PayoutFilters => filters({ ...only, search: parsePayoutSearch(text, only.currencies ?? []) });
const input = (f: PayoutFilters, counts: PayoutListCounts, more: Partial<PayoutListInput> = {}): PayoutListInput => ({ filters: f, dialect: 'mysql', page: PAGE, counts, ...more });

/** The suffix-index branch of a text (and the other branches given). */
const textMatches = (text: string, more: Partial<MatchList> = {}): MatchList => ({ text: { scopeId: SCOPE_ID, range: suffixRange(text), confirm: null }, last4: null, amount: null, ...more });
/** The rows of the structured filters (the search left out), and of the match list when given. */
const rows = (f: PayoutFilters, index: PayoutIndex | null, more: Partial<RowQuery> = {}): RowQuery => {
  const { search: _search, ...structured } = f;
  return { filters: structured, matches: null, textPattern: null, index, ...more };
};
const needs = (lookup: CountLookup): PayoutListStep => ({ needs: lookup });
const pageOfRows = (query: RowQuery, totalCount: number, page = PAGE): PayoutListStep => ({ plan: { strategy: 'rows', rows: query, page, totalCount } });

const LAST4 = filters({ last4: '1234' });
const FAILED = filters({ statuses: ['FAILED'] });
const TWO_STATUSES = filters({ statuses: ['FAILED', 'PROCESSING'] });
const WINDOW = filters({ createdGte: T + 600, createdLt: T + 30 * HOUR });
const HOURS = { wholeHoursCount: 5000, partialRanges: [{ gte: T + 600, lt: T + HOUR }], seqRange: { from: 100, to: 9000 } };
const DEEP_BACKWARDS: SeqPage = { cursor: { condition: 'seq > :cursor', seq: 900_000 }, direction: 'ASC', limit: 100 };

const RULES: Array<[string, PayoutListInput, PayoutListStep]> = [
  // Without a search
  ['a list without filters is counted from the scope\'s payout count', input(filters(), {}), needs({ count: 'scopePayouts' })],
  ['a list without filters pages by walking the scope index', input(filters(), { scopePayouts: 1_000_000 }), pageOfRows(rows(filters(), 'idx_payouts_scope'), 1_000_000)],
  ['a page past a cursor keeps the cursor and its direction', input(filters(), { scopePayouts: 1_000_000 }, { page: DEEP_BACKWARDS }),
    pageOfRows(rows(filters(), 'idx_payouts_scope'), 1_000_000, DEEP_BACKWARDS)],
  ['SQLite takes no index hints', input(filters(), { scopePayouts: 1_000_000 }, { dialect: 'sqlite' }), pageOfRows(rows(filters(), null), 1_000_000)],
  ['status, currency and brand filters are counted from the group counts', input(filters({ statuses: ['FAILED'], currencies: ['EUR'], brands: ['VISA'] }), {}),
    needs({ count: 'groupPayouts', groups: { statuses: ['FAILED'], currencies: ['EUR'], brands: ['VISA'] } })],
  ['one status pages by walking the status index', input(FAILED, { groupPayouts: 34_000 }), pageOfRows(rows(FAILED, 'idx_payouts_scope_status'), 34_000)],
  ['one status pages by walking the status index however many payouts it holds', input(FAILED, { groupPayouts: 900_000 }), pageOfRows(rows(FAILED, 'idx_payouts_scope_status'), 900_000)],
  ['a filter with few matches is sorted through the index that holds it (two statuses)', input(TWO_STATUSES, { groupPayouts: FEW_MATCHES }),
    pageOfRows(rows(TWO_STATUSES, 'idx_payouts_scope_status'), FEW_MATCHES)],
  ['a filter with many matches walks seq backwards and stops at the page (two statuses)', input(TWO_STATUSES, { groupPayouts: FEW_MATCHES + 1 }),
    pageOfRows(rows(TWO_STATUSES, null), FEW_MATCHES + 1)],
  ['a currency with few payouts is sorted through the amount index', input(filters({ currencies: ['JPY'] }), { groupPayouts: 100 }),
    pageOfRows(rows(filters({ currencies: ['JPY'] }), 'idx_payouts_scope_amount'), 100)],
  ['a currency and a status have no index that holds both: no hint', input(filters({ currencies: ['JPY'], statuses: ['SUCCEEDED'] }), { groupPayouts: 100 }),
    pageOfRows(rows(filters({ currencies: ['JPY'], statuses: ['SUCCEEDED'] }), null), 100)],
  ['a brand has no index of its own: no hint', input(filters({ brands: ['VISA'] }), { groupPayouts: 100 }), pageOfRows(rows(filters({ brands: ['VISA'] }), null), 100)],
  ['a card_last4 filter is counted through the last-four index', input(LAST4, {}), needs({ count: 'filteredPayouts', rows: rows(LAST4, 'idx_payouts_scope_last4') })],
  ['a card_last4 filter with few matches is sorted through the last-four index', input(LAST4, { filteredPayouts: 400 }), pageOfRows(rows(LAST4, 'idx_payouts_scope_last4'), 400)],
  ['a card_last4 filter with many matches walks seq backwards', input(LAST4, { filteredPayouts: FEW_MATCHES + 1 }), pageOfRows(rows(LAST4, null), FEW_MATCHES + 1)],
  ['an amount range is counted through the amount-range index', input(filters({ amountGte: 1000, amountLte: 1100 }), {}),
    needs({ count: 'filteredPayouts', rows: rows(filters({ amountGte: 1000, amountLte: 1100 }), 'idx_payouts_scope_amount_range') })],
  ['an amount range in one currency is counted through the amount index', input(filters({ currencies: ['EUR'], amountGte: 1000 }), {}),
    needs({ count: 'filteredPayouts', rows: rows(filters({ currencies: ['EUR'], amountGte: 1000 }), 'idx_payouts_scope_amount') })],
  ['a creation-time window with a status is counted without a hint: no index holds both', input(filters({ statuses: ['FAILED'], createdGte: T }), {}),
    needs({ count: 'filteredPayouts', rows: rows(filters({ statuses: ['FAILED'], createdGte: T }), null) })],

  // A creation-time window alone
  ['a creation-time window alone is counted from its hours first', input(WINDOW, {}), needs({ count: 'createdHours', window: { gte: T + 600, lt: T + 30 * HOUR } })],
  ['a creation-time window counts its partial hours through the creation-time index', input(WINDOW, { createdHours: HOURS }),
    needs({ count: 'partialHoursPayouts', ranges: HOURS.partialRanges, index: 'idx_payouts_scope_created' })],
  ['a creation-time window is paged inside the seq range of its hours, forcing the scope index', input(WINDOW, { createdHours: HOURS, partialHoursPayouts: 7 }),
    { plan: { strategy: 'seqRange', window: { gte: T + 600, lt: T + 30 * HOUR }, seqRange: { from: 100, to: 9000 }, index: 'idx_payouts_scope', page: PAGE, totalCount: 5007 } }],
  ['a creation-time window of whole hours counts no partial hour', input(filters({ createdLt: T }), { createdHours: { ...HOURS, partialRanges: [] } }),
    { plan: { strategy: 'seqRange', window: { gte: undefined, lt: T }, seqRange: { from: 100, to: 9000 }, index: 'idx_payouts_scope', page: PAGE, totalCount: 5000 } }],
  ['a creation-time window whose hours hold no payout has no page', input(WINDOW, { createdHours: { wholeHoursCount: 0, partialRanges: [], seqRange: null } }),
    { plan: { strategy: 'none', totalCount: 0 } }],

  // A search alone
  ['a search first looks up its scope\'s id', input(search('maria'), {}), needs({ count: 'scopeId' })],
  ['a text search in a scope without payouts matches nothing', input(search('maria'), { scopeId: null }), { plan: { strategy: 'none', totalCount: 0 } }],
  ['four digits in a scope without payouts still match the last four', input(search('4242'), { scopeId: null }),
    needs({ count: 'searchMatches', matches: { text: null, last4: '4242', amount: null } })],
  ['a search alone is counted over its match list', input(search('maria'), { scopeId: SCOPE_ID }), needs({ count: 'searchMatches', matches: textMatches('maria') })],
  ['a search alone pages its match list', input(search('maria'), { scopeId: SCOPE_ID, searchMatches: 21_000 }),
    { plan: { strategy: 'matches', matches: textMatches('maria'), page: PAGE, totalCount: 21_000 } }],
  ['four digits match the text and the last four', input(search('4242'), { scopeId: SCOPE_ID }), needs({ count: 'searchMatches', matches: textMatches('4242', { last4: '4242' }) })],
  ['a search longer than the indexed suffixes confirms its candidates with LIKE', input(search('PO_zu2z6N7ggQhl7'), { scopeId: SCOPE_ID }),
    needs({ count: 'searchMatches', matches: { text: { scopeId: SCOPE_ID, range: suffixRange('po_zu2z6n7ggqhl7'), confirm: '%po!_zu2z6n7ggqhl7%' }, last4: null, amount: null } })],
  ['a one- or two-character search alone is counted from the gram counts', input(search('An'), { scopeId: SCOPE_ID }), needs({ count: 'gramPayouts', scopeId: SCOPE_ID, text: 'an' })],
  ['a short search needs the scope\'s payout count to choose how to page', input(search('an'), { scopeId: SCOPE_ID, gramPayouts: 175_424 }), needs({ count: 'scopePayouts' })],
  ['a frequent short search walks the newest payouts and tests their text', input(search('an'), { scopeId: SCOPE_ID, gramPayouts: 175_424, scopePayouts: 1_000_000 }),
    pageOfRows(rows(filters(), 'idx_payouts_scope', { textPattern: '%an%' }), 175_424)],
  ['a rare short search pages its match list', input(search('an'), { scopeId: SCOPE_ID, gramPayouts: 2_000, scopePayouts: 1_000_000 }),
    { plan: { strategy: 'matches', matches: textMatches('an'), page: PAGE, totalCount: 2_000 } }],

  // A search with filters
  ['an amount search in one currency also matches the amount, counted through the matches', input(search('25.50', { currencies: ['EUR'] }), { scopeId: SCOPE_ID }),
    needs({ count: 'filteredPayouts', rows: rows(filters({ currencies: ['EUR'] }), null, { matches: textMatches('25.50', { amount: { currency: 'EUR', amountMinor: 2550 } }) }) })],
  ['a search with a currency is paged through its matches, without a hint', input(search('maria', { currencies: ['JPY'] }), { scopeId: SCOPE_ID, filteredPayouts: 3_000 }),
    pageOfRows(rows(filters({ currencies: ['JPY'] }), null, { matches: textMatches('maria') }), 3_000)],
  ['a search with one status first counts the payouts of the status', input(search('maria', { statuses: ['FAILED'] }), { scopeId: SCOPE_ID }),
    needs({ count: 'groupPayouts', groups: { statuses: ['FAILED'], currencies: [], brands: [] } })],
  ['a search with a status then counts its text\'s suffix rows, up to one per 7.6 payouts of the status', input(search('maria', { statuses: ['FAILED'] }), { scopeId: SCOPE_ID, groupPayouts: 34_000 }),
    needs({ count: 'suffixRows', scopeId: SCOPE_ID, range: suffixRange('maria'), upTo: 4474 })],
  ['a search with one status is counted by walking the status index, in the statement that finds its page', input(search('maria', { statuses: ['FAILED'] }), { scopeId: SCOPE_ID, groupPayouts: 34_000, suffixRows: 4474 }),
    { plan: { strategy: 'countedRows', rows: rows(FAILED, 'idx_payouts_scope_status', { matches: textMatches('maria') }), page: PAGE } }],
  ['a rare text with one status is counted through its matches', input(search('quixo', { statuses: ['FAILED'] }), { scopeId: SCOPE_ID, groupPayouts: 34_000, suffixRows: 4473 }),
    needs({ count: 'filteredPayouts', rows: rows(FAILED, null, { matches: textMatches('quixo') }) })],
  ['a rare text with one status is paged by walking the status index', input(search('quixo', { statuses: ['FAILED'] }), { scopeId: SCOPE_ID, groupPayouts: 34_000, suffixRows: 4473, filteredPayouts: 3 }),
    pageOfRows(rows(FAILED, 'idx_payouts_scope_status', { matches: textMatches('quixo') }), 3)],
  ['a search with two statuses is counted by walking the status index', input(search('maria', { statuses: ['FAILED', 'PROCESSING'] }), { scopeId: SCOPE_ID, groupPayouts: 40_000, suffixRows: 5264 }),
    needs({ count: 'filteredPayouts', rows: rows(TWO_STATUSES, 'idx_payouts_scope_status', { matches: textMatches('maria') }) })],
  ['a search with two statuses is paged through its matches, without a hint', input(search('maria', { statuses: ['FAILED', 'PROCESSING'] }), { scopeId: SCOPE_ID, groupPayouts: 40_000, suffixRows: 5264, filteredPayouts: 900 }),
    pageOfRows(rows(TWO_STATUSES, null, { matches: textMatches('maria') }), 900)],
  ['on SQLite a search with a status never walks the status index', input(search('maria', { statuses: ['FAILED'] }), { scopeId: SCOPE_ID }, { dialect: 'sqlite' }),
    needs({ count: 'filteredPayouts', rows: rows(FAILED, null, { matches: textMatches('maria') }) })],
  ['a short search with a filter is planned as any search with a filter, not from the gram counts', input(search('an', { statuses: ['FAILED'] }), { scopeId: SCOPE_ID }),
    needs({ count: 'groupPayouts', groups: { statuses: ['FAILED'], currencies: [], brands: [] } })],
  ['a search with a status in a scope without payouts has no suffix rows to walk', input(search('4242', { statuses: ['FAILED'] }), { scopeId: null }),
    needs({ count: 'filteredPayouts', rows: rows(FAILED, null, { matches: { text: null, last4: '4242', amount: null } }) })],
];

describe('planPayoutList', () => {
  it.each(RULES)('%s', (_rule, given, expected) => {
    expect(planPayoutList(given)).toEqual(expected);
  });
});

describe('planning a list, count by count', () => {
  const arbitraryFilters: fc.Arbitrary<PayoutFilters> = fc.record({
    statuses: fc.subarray<PayoutStatus>(['PENDING', 'SUCCEEDED', 'FAILED']),
    currencies: fc.subarray(['EUR', 'JPY']),
    brands: fc.subarray<CardBrand>(['VISA', 'MASTERCARD']),
    last4: fc.option(fc.constant('1234'), { nil: undefined }),
    createdGte: fc.option(fc.constant(T), { nil: undefined }),
    createdLt: fc.option(fc.constant(T + 5 * HOUR), { nil: undefined }),
    amountGte: fc.option(fc.constant(1000), { nil: undefined }),
    amountLte: fc.option(fc.constant(2000), { nil: undefined }),
    search: fc.option(fc.constantFrom('a', 'an', 'maria', '4242', '25.50', 'po_zu2z6n7ggqhl7igfc2c4ch0j'), { nil: undefined }),
  }).map(({ search: text, ...f }) => ({ ...f, search: text === undefined ? undefined : parsePayoutSearch(text, f.currencies) }));
  const count = fc.nat({ max: 2_000_000 });
  const answers = fc.record({
    scopeId: fc.option(fc.constant(SCOPE_ID), { nil: null }),
    scopePayouts: count, groupPayouts: count, gramPayouts: count, suffixRows: count, searchMatches: count, filteredPayouts: count, partialHoursPayouts: count,
    createdHours: fc.record({
      wholeHoursCount: count,
      partialRanges: fc.constantFrom([], [{ gte: T, lt: T + 600 }], [{ gte: T, lt: T + 600 }, { gte: T + 4 * HOUR, lt: T + 5 * HOUR }]),
      seqRange: fc.option(fc.constant({ from: 1, to: 99 }), { nil: null }),
    }),
  });

  it('asks for each count at most once and makes its plan after at most four; on SQLite it names no index', () => {
    fc.assert(fc.property(arbitraryFilters, answers, fc.constantFrom('mysql' as const, 'sqlite' as const), (f, answer, dialect) => {
      const counts: PayoutListCounts = {};
      for (let asked = 0; ; asked += 1) {
        const step = planPayoutList({ filters: f, dialect, page: PAGE, counts });
        if (dialect === 'sqlite') expect(JSON.stringify(step)).not.toMatch(/idx_/);
        if ('plan' in step) {
          expect(asked).toBeLessThanOrEqual(4);
          return;
        }
        expect(counts[step.needs.count]).toBeUndefined();
        Object.assign(counts, { [step.needs.count]: answer[step.needs.count] });
      }
    }));
  });
});
