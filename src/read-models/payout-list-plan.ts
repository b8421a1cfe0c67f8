// How a payout list is answered, decided apart from the queries that answer it, so that every
// choice can be read and tested as a rule (test/unit/payout-list-plan.test.ts) and the statements
// stay in src/read-models/payout-list-queries.ts.
//
// A list needs a page of `seq`s and a total_count. At a million payouts per merchant neither may
// read every match, so the way to answer depends on the filters and on counts kept beside the rows
// (src/read-models/payout-search-index.ts): one row of `payout_scopes`, `payout_counts`,
// `payout_search_grams` or `payout_created_hours` when it holds the answer, else a count through
// the one index that holds every filtered column. Some choices depend on what those counts say
// (a frequent short search walks the newest payouts; a frequent text with a status filter walks
// the status index; few matches are sorted through the filter's index), so planning is a loop:
// planPayoutList answers with the next count it needs, or, once it has them all, the plan. It is
// pure (no database, no awaits): the counts and the page's cursor are looked up by the caller.
//
// The cost constants below come from the plans and timings at a million payouts (bench/REPORT.md);
// the index hints are MariaDB's, whose optimizer otherwise picks the slow plans measured there.
// SQLite takes none.
import type { CardBrand } from '../domain/cards';
import type { PayoutStatus } from '../domain/payout';
import type { PayoutSearch } from '../domain/payout-search';
import type { DatabaseKind } from '../db/data-source';
import { isGramSearch, suffixRange, type createdWindowHours, type CreatedWindow, type SuffixRange } from './payout-search-index';
import type { SeqPage } from './seq-pages';

/** Structured filters (all of them constrain the result, search or not) and the search. */
export interface PayoutFilters {
  statuses: PayoutStatus[];
  currencies: string[];
  brands: CardBrand[];
  last4?: string;
  createdGte?: number;
  createdLt?: number;
  amountGte?: number;
  amountLte?: number;
  search?: PayoutSearch;
}

/** Up to this many matches, a page sorts them all rather than walking the `seq` order. */
export const FEW_MATCHES = 100_000;

/** Reading a payout row to test its text costs about this many index entries of a match list. */
export const ROW_READ_COST = 5;

/** Reading a payout row by its seq costs about this many entries of an index walk (3.1 against 0.41 µs at a million payouts). */
export const ROW_LOOKUP_ENTRIES = 7.6;

/**
 * Whether a page of a search with `matches` matches among `scopeSize` payouts is found sooner by
 * walking the newest payouts and testing each one's text (about pageSize * scopeSize / matches
 * rows) than by collecting and sorting every match from the suffix index.
 */
export function walkFindsPageSooner(matches: number, scopeSize: number, pageSize: number): boolean {
  return matches > 0 && (pageSize * scopeSize * ROW_READ_COST) / matches < matches;
}

/**
 * A search with a status filter is counted either by reading every match's row (the optimizer's
 * plan) or by walking the status index's entries of those statuses and testing each against the
 * matches. The walk is cheaper when the statuses hold fewer than ROW_LOOKUP_ENTRIES entries per
 * match: it is chosen when the text has at least this many suffix rows (counted up to it; a match
 * has one suffix row per position the text occurs at, usually one).
 */
export function statusWalkSuffixRows(statusCount: number): number {
  return Math.ceil(statusCount / ROW_LOOKUP_ENTRIES);
}

/** The payout indexes a plan may name (src/db/migrations). */
export type PayoutIndex =
  | 'idx_payouts_scope'
  | 'idx_payouts_scope_status'
  | 'idx_payouts_scope_last4'
  | 'idx_payouts_scope_amount'
  | 'idx_payouts_scope_amount_range'
  | 'idx_payouts_scope_created';

/**
 * The distinct payouts a search matches, as the branches of one UNION of index range scans: the
 * text through the suffix index (`confirm`: the LIKE pattern that confirms candidates when the
 * text is longer than the indexed suffixes), four digits through the last-four index, an amount
 * (exactly one currency) through the amount index.
 */
export interface MatchList {
  text: { scopeId: number; range: SuffixRange; confirm: string | null } | null;
  last4: string | null;
  amount: { currency: string; amountMinor: number } | null;
}

/** The scope's payouts that pass the structured filters, in the match list, and whose text contains a pattern (each when set). */
export interface RowQuery {
  filters: Omit<PayoutFilters, 'search'>;
  matches: MatchList | null;
  textPattern: string | null;
  index: PayoutIndex | null;
}

export type CreatedWindowHours = Awaited<ReturnType<typeof createdWindowHours>>;

/** What the planner has learnt so far, one entry per CountLookup it asked for. */
export interface PayoutListCounts {
  /** The scope's id in `payout_scopes` (null: no payouts yet). */
  scopeId?: number | null;
  /** The scope's payouts, from `payout_scopes`. */
  scopePayouts?: number;
  /** Payouts of the given statuses, currencies and brands, from `payout_counts`. */
  groupPayouts?: number;
  /** Payouts whose fields contain a one- or two-character text, from `payout_search_grams`. */
  gramPayouts?: number;
  /** Suffix rows of a search's text, counted up to the lookup's `upTo`. */
  suffixRows?: number;
  /** Distinct matches of a search alone (its match list). */
  searchMatches?: number;
  /** Payouts of a RowQuery, counted through its index. */
  filteredPayouts?: number;
  /** What `payout_created_hours` knows of a creation-time window. */
  createdHours?: CreatedWindowHours;
  /** Payouts created in a window's partial hours, through the creation-time index. */
  partialHoursPayouts?: number;
}

/** A count the planner needs before it can go on; its answer fills the entry of the same name. */
export type CountLookup =
  | { count: 'scopeId' }
  | { count: 'scopePayouts' }
  | { count: 'groupPayouts'; groups: { statuses: string[]; currencies: string[]; brands: string[] } }
  | { count: 'gramPayouts'; scopeId: number; text: string }
  | { count: 'suffixRows'; scopeId: number; range: SuffixRange; upTo: number }
  | { count: 'searchMatches'; matches: MatchList }
  | { count: 'filteredPayouts'; rows: RowQuery }
  | { count: 'createdHours'; window: CreatedWindow }
  | { count: 'partialHoursPayouts'; ranges: CreatedWindow[]; index: PayoutIndex | null };

/** How the page is found, and the total_count (already counted, except by `countedRows`). */
export type PayoutListPlan =
  /** Nothing can be on the page. */
  | { strategy: 'none'; totalCount: number }
  /** A page of a search's match list. */
  | { strategy: 'matches'; matches: MatchList; page: SeqPage; totalCount: number }
  /** A page of a RowQuery, through its index. */
  | { strategy: 'rows'; rows: RowQuery; page: SeqPage; totalCount: number }
  /**
   * One walk of the RowQuery's index both counts its rows and finds the page, in one statement. An
   * empty page (a cursor past the last row) carries no count: the rows are then counted alone.
   */
  | { strategy: 'countedRows'; rows: RowQuery; page: SeqPage }
  /** A page of a creation-time window, walking `seq` inside the range its hours hold, through `index` (forced). */
  | { strategy: 'seqRange'; window: CreatedWindow; seqRange: { from: number; to: number }; index: PayoutIndex | null; page: SeqPage; totalCount: number };

export type PayoutListStep = { needs: CountLookup } | { plan: PayoutListPlan };

export interface PayoutListInput {
  filters: PayoutFilters;
  dialect: DatabaseKind;
  /** The page asked for, its cursor already found (seqPageOf). */
  page: SeqPage;
  counts: PayoutListCounts;
}

/**
 * The next count a list needs, or its plan. Newest first by `seq`; total_count counts every match,
 * ignoring the cursor: from `payout_scopes` without filters, from `payout_counts` with
 * status/currency/brand filters, from `payout_search_grams` for a one- or two-character search
 * alone, from `payout_created_hours` and the creation-time index for a creation-time window alone,
 * else by counting the matches through an index.
 */
export function planPayoutList(input: PayoutListInput): PayoutListStep {
  const { search } = input.filters;
  if (search) return planSearch(input, search);
  if (onlyCreatedWindow(input.filters)) return planCreatedWindow(input);
  return planFiltered(input, null);
}

function planSearch(input: PayoutListInput, search: PayoutSearch): PayoutListStep {
  const { filters, dialect, page, counts } = input;
  const { scopeId } = counts;
  if (scopeId === undefined) return { needs: { count: 'scopeId' } };
  const matches = matchList(scopeId, search, filters.currencies);
  if (!matches) return { plan: { strategy: 'none', totalCount: 0 } };
  if (hasStructuredFilters(filters)) return planFiltered(input, { matches, text: search.text, scopeId });
  if (scopeId !== null && isGramSearch(search.text)) {
    // One or two characters (no other branch can match): the gram count, then a page from
    // whichever reads less, the newest payouts' texts or the match list.
    if (counts.gramPayouts === undefined) return { needs: { count: 'gramPayouts', scopeId, text: search.text } };
    if (counts.scopePayouts === undefined) return { needs: { count: 'scopePayouts' } };
    const totalCount = counts.gramPayouts;
    if (!walkFindsPageSooner(totalCount, counts.scopePayouts, page.limit + 1)) return { plan: { strategy: 'matches', matches, page, totalCount } };
    const walk: RowQuery = { filters: structuredFilters(filters), matches: null, textPattern: search.textPattern, index: hint(dialect, 'idx_payouts_scope') };
    return { plan: { strategy: 'rows', rows: walk, page, totalCount } };
  }
  // Index-only: count the match list and page over it.
  if (counts.searchMatches === undefined) return { needs: { count: 'searchMatches', matches } };
  return { plan: { strategy: 'matches', matches, page, totalCount: counts.searchMatches } };
}

/** A creation-time window alone: counted from its whole hours, paged inside their seq range. */
function planCreatedWindow({ filters, dialect, page, counts }: PayoutListInput): PayoutListStep {
  const window: CreatedWindow = { gte: filters.createdGte, lt: filters.createdLt };
  if (counts.createdHours === undefined) return { needs: { count: 'createdHours', window } };
  const { wholeHoursCount, partialRanges, seqRange } = counts.createdHours;
  let totalCount = wholeHoursCount;
  if (partialRanges.length) {
    if (counts.partialHoursPayouts === undefined) return { needs: { count: 'partialHoursPayouts', ranges: partialRanges, index: hint(dialect, 'idx_payouts_scope_created') } };
    totalCount += counts.partialHoursPayouts;
  }
  if (!seqRange) return { plan: { strategy: 'none', totalCount } };
  // Forced: with a wide range MariaDB otherwise reads the (merchant, mode) ref from its end and
  // tests every newer row (0.86 s instead of 6 ms for a week at a million payouts).
  return { plan: { strategy: 'seqRange', window, seqRange, index: hint(dialect, 'idx_payouts_scope'), page, totalCount } };
}

/** Structured filters, with or without a search: the rows that pass them, counted, then paged. */
function planFiltered(input: PayoutListInput, search: { matches: MatchList; text: string; scopeId: number | null } | null): PayoutListStep {
  const { filters, dialect, page, counts } = input;
  const rows = (index: PayoutIndex | null): RowQuery => ({ filters: structuredFilters(filters), matches: search?.matches ?? null, textPattern: null, index: hint(dialect, index) });
  if (search) {
    // The matches drive (a primary-key lookup each); an index hint would make MariaDB scan every
    // row of the filter instead (3.4 s for an amount in one currency), unless the filter is
    // statuses that hold few rows against the matches (statusWalkSuffixRows).
    let walk: PayoutIndex | null = null;
    if (onlyStatuses(filters) && search.scopeId !== null && dialect === 'mysql') {
      if (counts.groupPayouts === undefined) return { needs: { count: 'groupPayouts', groups: { statuses: filters.statuses, currencies: [], brands: [] } } };
      const upTo = statusWalkSuffixRows(counts.groupPayouts);
      if (counts.suffixRows === undefined) return { needs: { count: 'suffixRows', scopeId: search.scopeId, range: suffixRange(search.text), upTo } };
      if (counts.suffixRows >= upTo) walk = 'idx_payouts_scope_status';
    }
    // One status: its index walk both counts the matches and finds the page, in one statement
    // instead of walking it twice (half the database time of `?search=maria&status=FAILED`).
    if (walk !== null && walk === pagingIndex(filters)) return { plan: { strategy: 'countedRows', rows: rows(walk), page } };
    if (counts.filteredPayouts === undefined) return { needs: { count: 'filteredPayouts', rows: rows(walk) } };
    return { plan: { strategy: 'rows', rows: rows(pagingIndex(filters)), page, totalCount: counts.filteredPayouts } };
  }
  let totalCount: number;
  if (!onlyGroupFilters(filters)) {
    if (counts.filteredPayouts === undefined) return { needs: { count: 'filteredPayouts', rows: rows(countingIndex(filters)) } };
    totalCount = counts.filteredPayouts;
  } else if (hasStructuredFilters(filters)) {
    if (counts.groupPayouts === undefined) return { needs: { count: 'groupPayouts', groups: { statuses: filters.statuses, currencies: filters.currencies, brands: filters.brands } } };
    totalCount = counts.groupPayouts;
  } else {
    if (counts.scopePayouts === undefined) return { needs: { count: 'scopePayouts' } };
    totalCount = counts.scopePayouts;
  }
  // Few matches: read them through the filter's own index and sort them. Many: walk `seq`
  // backwards and stop at the page. MariaDB otherwise walks `seq` for a narrow created window
  // far in the past, reading most of the table (8 s at a million rows).
  const index = pagingIndex(filters) ?? (totalCount <= FEW_MATCHES ? countingIndex(filters) : null);
  return { plan: { strategy: 'rows', rows: rows(index), page, totalCount } };
}

/** The match list of a search, or null when nothing can match (no payouts to search, no other branch). */
function matchList(scopeId: number | null, search: PayoutSearch, currencies: string[]): MatchList | null {
  let text: MatchList['text'] = null;
  if (scopeId !== null) {
    const range = suffixRange(search.text);
    // Longer than the indexed suffixes: the range finds candidates, the literal LIKE confirms them.
    text = { scopeId, range, confirm: range.exact ? null : search.textPattern };
  }
  const amount = search.amountMinor !== null && currencies.length === 1 ? { currency: currencies[0]!, amountMinor: search.amountMinor } : null;
  return text || search.last4 !== null || amount ? { text, last4: search.last4, amount } : null;
}

function hint(dialect: DatabaseKind, index: PayoutIndex | null): PayoutIndex | null {
  return dialect === 'mysql' ? index : null;
}

function structuredFilters(filters: PayoutFilters): Omit<PayoutFilters, 'search'> {
  const { search: _search, ...rest } = filters;
  return rest;
}

/** Filters other than the scope and the search. */
function hasStructuredFilters(filters: PayoutFilters): boolean {
  return filters.statuses.length > 0 || filters.currencies.length > 0 || filters.brands.length > 0 || !onlyGroupFilters(filters);
}

/** Only status, currency and brand filters (or none): `payout_counts` answers the count. */
function onlyGroupFilters(filters: PayoutFilters): boolean {
  return filters.last4 === undefined && filters.createdGte === undefined && filters.createdLt === undefined
    && filters.amountGte === undefined && filters.amountLte === undefined;
}

/** Status filters and no other. */
function onlyStatuses(filters: PayoutFilters): boolean {
  return filters.statuses.length > 0 && !filters.currencies.length && !filters.brands.length && onlyGroupFilters(filters);
}

/** A creation-time bound and no other filter: `payout_created_hours` answers most of it. */
function onlyCreatedWindow(filters: PayoutFilters): boolean {
  return !filters.statuses.length && !filters.currencies.length && !filters.brands.length && filters.last4 === undefined
    && filters.amountGte === undefined && filters.amountLte === undefined && (filters.createdGte !== undefined || filters.createdLt !== undefined);
}

/**
 * The index a page's `seq` query should read, when the filters allow one that is ordered by `seq`
 * right after its equalities. MariaDB otherwise reads a (merchant, mode[, status]) ref from the
 * index's start instead of the seq range at the cursor: 3 s instead of 30 ms for a deep page at a
 * million rows (bench/REPORT.md).
 */
function pagingIndex(filters: PayoutFilters): PayoutIndex | null {
  if (!hasStructuredFilters(filters)) return 'idx_payouts_scope';
  const onlyOneStatus = filters.statuses.length === 1 && onlyStatuses(filters);
  return onlyOneStatus ? 'idx_payouts_scope_status' : null;
}

/** The index that holds every filtered column, when one does: the count never reads a row. */
function countingIndex(filters: PayoutFilters): PayoutIndex | null {
  const kinds = [
    filters.statuses.length ? 'idx_payouts_scope_status' : null,
    filters.brands.length ? 'brand' : null, // no index of its own
    filters.last4 !== undefined ? 'idx_payouts_scope_last4' : null,
    filters.currencies.length ? 'idx_payouts_scope_amount' : null,
    filters.createdGte !== undefined || filters.createdLt !== undefined ? 'idx_payouts_scope_created' : null,
    filters.amountGte !== undefined || filters.amountLte !== undefined ? (filters.currencies.length ? 'idx_payouts_scope_amount' : 'idx_payouts_scope_amount_range') : null,
  ] as const;
  const distinct = [...new Set(kinds.filter((kind) => kind !== null))];
  if (!distinct.length) return 'idx_payouts_scope';
  return distinct.length === 1 && distinct[0] !== 'brand' ? distinct[0]! : null;
}
