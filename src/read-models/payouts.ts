// The Payout read model: written by PayoutWorkflow's projection activity, read by GET and list.
import { Brackets, LessThan, type DataSource, type ObjectLiteral, type Repository, type SelectQueryBuilder } from 'typeorm';
import { Payout, type PayoutRow } from '../db/entities';
import type { CardBrand } from '../domain/cards';
import type { FailureCode } from '../domain/failure-codes';
import type { PayoutStatus, PayoutView } from '../domain/payout';
import { LIKE_ESCAPE, payoutSearchText, type PayoutSearch } from '../domain/payout-search';
import type { Scope } from './payments';
import { isMysql } from '../db/dialect';
import { isDuplicateKeyError } from '../db/errors';
import { cutPage, pageRows, rowsInSeqOrder, seqPageOf, type CursorNotFound, type SeqPage } from './seq-pages';
import { createdWindowHours, findScopeId, gramPayoutCount, groupedPayoutCount, indexNewPayout, isGramSearch, regroupPayout, scopePayoutCount, suffixRange, type CreatedWindow } from './payout-search-index';

export function payoutToRow(view: PayoutView): Omit<PayoutRow, 'seq'> {
  return {
    id: view.id,
    merchant_id: view.merchant_id,
    livemode: view.livemode,
    amount: view.amount,
    currency: view.currency,
    status: view.status,
    merchant_reference: view.merchant_reference,
    recipient_first_name: view.recipient.first_name,
    recipient_last_name: view.recipient.last_name,
    recipient_country: view.recipient.country,
    destination_brand: view.destination.brand,
    destination_last4: view.destination.last4,
    destination_country: view.destination.country,
    failure_code: view.failure_code,
    failure_message: view.failure_message,
    poll_attempts: view.poll_attempts,
    last_polled_at: view.last_polled_at,
    created_at: view.created_at,
    updated_at: view.updated_at,
    completed_at: view.completed_at,
    version: view.version,
    initiator_ip_address: view.initiator_ip_address,
    search_text: payoutSearchText({
      id: view.id,
      merchant_reference: view.merchant_reference,
      first_name: view.recipient.first_name,
      last_name: view.recipient.last_name,
    }),
  };
}

export function rowToPayout(row: PayoutRow): PayoutView {
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    livemode: row.livemode,
    amount: row.amount,
    currency: row.currency,
    status: row.status as PayoutStatus,
    merchant_reference: row.merchant_reference,
    recipient: { first_name: row.recipient_first_name, last_name: row.recipient_last_name, country: row.recipient_country },
    destination: { brand: row.destination_brand as CardBrand, last4: row.destination_last4, country: row.destination_country },
    initiator_ip_address: row.initiator_ip_address ?? '',
    failure_code: row.failure_code as FailureCode | null,
    failure_message: row.failure_message,
    poll_attempts: row.poll_attempts,
    last_polled_at: row.last_polled_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
    version: row.version,
  };
}

/**
 * The row, version-guarded, and beside it in the same transaction what the list reads: on the
 * first write the search suffixes and the counts, on a later write the move between count groups.
 */
export async function recordPayoutProjection(dataSource: DataSource, view: PayoutView): Promise<void> {
  const row = payoutToRow(view);
  const group = { status: row.status, currency: row.currency, brand: row.destination_brand };
  await dataSource.transaction(async (manager) => {
    const repo = manager.getRepository(Payout);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const read = repo.createQueryBuilder('p').select(['p.seq', 'p.version', 'p.status', 'p.currency', 'p.destination_brand']).where('p.id = :id', { id: row.id });
      // The row lock orders concurrent writes of this payout, so its counts move once per change.
      if (isMysql(manager)) read.setLock('pessimistic_write');
      const existing = await read.getOne();
      if (existing) {
        const updated = await repo.update({ id: row.id, version: LessThan(row.version) }, row);
        if (!updated.affected) return; // already at this version or newer
        await regroupPayout(manager, view.merchant_id, view.livemode, { status: existing.status, currency: existing.currency, brand: existing.destination_brand }, group);
        return;
      }
      try {
        const inserted = await repo.insert(row);
        const seq = Number(inserted.identifiers[0]?.seq ?? (await repo.findOneOrFail({ select: { seq: true }, where: { id: row.id } })).seq);
        await indexNewPayout(manager, { seq, merchantId: view.merchant_id, livemode: view.livemode, createdAt: view.created_at, searchText: row.search_text ?? '', group });
        return;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error; // a concurrent first write won: read it and update
      }
    }
  });
}

export async function findPayout(dataSource: DataSource, scope: Scope, id: string): Promise<PayoutView | null> {
  const row = await dataSource.getRepository(Payout).findOneBy({ id, merchant_id: scope.merchantId, livemode: scope.livemode });
  return row ? rowToPayout(row) : null;
}

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

export interface PayoutListQuery {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
  filters: PayoutFilters;
}

export type PayoutListResult =
  | { data: PayoutView[]; hasMore: boolean; totalCount: number }
  | CursorNotFound;

/** Up to this many matches, a page sorts them all rather than walking the `seq` order. */
const FEW_MATCHES = 100_000;

/** Reading a payout row to test its text costs about this many index entries of a match list. */
const ROW_READ_COST = 5;

/**
 * Whether a page of a search with `matches` matches among `scopeSize` payouts is found sooner by
 * walking the newest payouts and testing each one's text (about pageSize * scopeSize / matches
 * rows) than by collecting and sorting every match from the suffix index.
 */
export function walkFindsPageSooner(matches: number, scopeSize: number, pageSize: number): boolean {
  return matches > 0 && (pageSize * scopeSize * ROW_READ_COST) / matches < matches;
}

/** Reading a payout row by its seq costs about this many entries of an index walk (3.1 against 0.41 µs at a million payouts). */
const ROW_LOOKUP_ENTRIES = 7.6;

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

/** Filters other than the scope and the search. */
function hasStructuredFilters(filters: PayoutFilters): boolean {
  return filters.statuses.length > 0 || filters.currencies.length > 0 || filters.brands.length > 0 || !onlyGroupFilters(filters);
}

/** Only status, currency and brand filters (or none): `payout_counts` answers the count. */
function onlyGroupFilters(filters: PayoutFilters): boolean {
  return filters.last4 === undefined && filters.createdGte === undefined && filters.createdLt === undefined
    && filters.amountGte === undefined && filters.amountLte === undefined;
}

/** A creation-time bound and no other filter: `payout_created_hours` answers most of it. */
function onlyCreatedWindow(filters: PayoutFilters): boolean {
  return !filters.statuses.length && !filters.currencies.length && !filters.brands.length && filters.last4 === undefined
    && filters.amountGte === undefined && filters.amountLte === undefined && (filters.createdGte !== undefined || filters.createdLt !== undefined);
}

/** Payouts of a scope created in any of the given windows (disjoint), through the creation-time index. */
async function countCreatedRanges(dataSource: DataSource, scope: Scope, ranges: CreatedWindow[]): Promise<number> {
  if (!ranges.length) return 0;
  const counting = dataSource.getRepository(Payout).createQueryBuilder('p').select('COUNT(*)', 'count').useIndex('idx_payouts_scope_created')
    .where('p.merchant_id = :merchantId AND p.livemode = :livemode', { merchantId: scope.merchantId, livemode: scope.livemode })
    .andWhere(new Brackets((any) => {
      ranges.forEach((range, i) => {
        const bounds = [range.gte === undefined ? null : `p.created_at >= :gte${i}`, range.lt === undefined ? null : `p.created_at < :lt${i}`].filter((b) => b !== null);
        any.orWhere(bounds.join(' AND '), { [`gte${i}`]: range.gte, [`lt${i}`]: range.lt });
      });
    }));
  return Number((await counting.getRawOne<{ count: string | number }>())?.count ?? 0);
}

/**
 * A page of a creation-time window, walking `seq` inside the range its hours hold. FORCE INDEX:
 * with a wide range MariaDB otherwise reads the (merchant, mode) ref from its end and tests every
 * newer row (0.86 s instead of 6 ms for a week at a million payouts).
 */
async function pageInSeqRange(dataSource: DataSource, scope: Scope, window: CreatedWindow, range: { from: number; to: number }, page: SeqPage): Promise<number[]> {
  const conditions = ['merchant_id = ?', 'livemode = ?', 'seq >= ?', 'seq <= ?'];
  const params: unknown[] = [scope.merchantId, scope.livemode ? 1 : 0, range.from, range.to];
  if (window.gte !== undefined) { conditions.push('created_at >= ?'); params.push(window.gte); }
  if (window.lt !== undefined) { conditions.push('created_at < ?'); params.push(window.lt); }
  if (page.cursor) { conditions.push(page.direction === 'DESC' ? 'seq < ?' : 'seq > ?'); params.push(page.cursor.seq); }
  const hint = isMysql(dataSource) ? 'FORCE INDEX (idx_payouts_scope)' : '';
  const rows = (await dataSource.query(
    `SELECT seq FROM payouts ${hint} WHERE ${conditions.join(' AND ')} ORDER BY seq ${page.direction} LIMIT ${Math.trunc(page.limit) + 1}`, params,
  )) as Array<{ seq: number | string }>;
  return rows.map((row) => Number(row.seq));
}

/** The status index when a search with only status filters is counted sooner by walking it (statusWalkSuffixRows); else none. */
async function searchCountingIndex(dataSource: DataSource, scope: Scope, scopeId: number | null, search: PayoutSearch, filters: PayoutFilters): Promise<string | null> {
  const onlyStatuses = filters.statuses.length > 0 && !filters.currencies.length && !filters.brands.length && onlyGroupFilters(filters);
  if (!onlyStatuses || scopeId === null || !isMysql(dataSource)) return null;
  const limit = statusWalkSuffixRows(await groupedPayoutCount(dataSource, scope.merchantId, scope.livemode, { statuses: filters.statuses, currencies: [], brands: [] }));
  const range = suffixRange(search.text);
  const rows = (await dataSource.query(
    `SELECT COUNT(*) AS n FROM (SELECT 1 FROM payout_search_suffixes WHERE scope_id = ? AND suffix >= ? AND suffix < ? LIMIT ${limit}) s`, [scopeId, range.from, range.to],
  )) as Array<{ n: number | string }>;
  return Number(rows[0]?.n ?? 0) >= limit ? 'idx_payouts_scope_status' : null;
}

/**
 * The index a page's `seq` query should read, when the filters allow one that is ordered by `seq`
 * right after its equalities. MariaDB otherwise reads a (merchant, mode[, status]) ref from the
 * index's start instead of the seq range at the cursor: 3 s instead of 30 ms for a deep page at a
 * million rows (bench/REPORT.md). Ignored by SQLite.
 */
function pagingIndex(filters: PayoutFilters): string | null {
  if (!hasStructuredFilters(filters)) return 'idx_payouts_scope';
  const onlyOneStatus = filters.statuses.length === 1 && !filters.currencies.length && !filters.brands.length && onlyGroupFilters(filters);
  return onlyOneStatus ? 'idx_payouts_scope_status' : null;
}

/** The index that holds every filtered column, when one does: the count never reads a row. */
function countingIndex(filters: PayoutFilters): string | null {
  const kinds = [
    filters.statuses.length ? 'idx_payouts_scope_status' : null,
    filters.brands.length ? 'brand' : null,
    filters.last4 !== undefined ? 'idx_payouts_scope_last4' : null,
    filters.currencies.length ? 'idx_payouts_scope_amount' : null,
    filters.createdGte !== undefined || filters.createdLt !== undefined ? 'idx_payouts_scope_created' : null,
    filters.amountGte !== undefined || filters.amountLte !== undefined ? (filters.currencies.length ? 'idx_payouts_scope_amount' : 'idx_payouts_scope_amount_range') : null,
  ].filter((k): k is string => k !== null);
  const distinct = [...new Set(kinds)];
  if (!distinct.length) return 'idx_payouts_scope';
  return distinct.length === 1 && distinct[0] !== 'brand' ? distinct[0]! : null;
}

function applyFilters(qb: SelectQueryBuilder<PayoutRow>, scope: Scope, filters: PayoutFilters): void {
  qb.where('p.merchant_id = :merchantId AND p.livemode = :livemode', { merchantId: scope.merchantId, livemode: scope.livemode });
  if (filters.statuses.length) qb.andWhere('p.status IN (:...statuses)', { statuses: filters.statuses });
  if (filters.currencies.length) qb.andWhere('p.currency IN (:...currencies)', { currencies: filters.currencies });
  if (filters.brands.length) qb.andWhere('p.destination_brand IN (:...brands)', { brands: filters.brands });
  if (filters.last4 !== undefined) qb.andWhere('p.destination_last4 = :last4', { last4: filters.last4 });
  if (filters.createdGte !== undefined) qb.andWhere('p.created_at >= :createdGte', { createdGte: filters.createdGte });
  if (filters.createdLt !== undefined) qb.andWhere('p.created_at < :createdLt', { createdLt: filters.createdLt });
  if (filters.amountGte !== undefined) qb.andWhere('p.amount >= :amountGte', { amountGte: filters.amountGte });
  if (filters.amountLte !== undefined) qb.andWhere('p.amount <= :amountLte', { amountLte: filters.amountLte });
}

/**
 * The distinct `seq`s a search matches, as one UNION of index range scans: the text through the
 * suffix index (a payout can match at several positions: DISTINCT), four digits through the
 * last-four index, an amount (exactly one currency) through the amount index. Null when nothing
 * can match.
 */
function searchMatches(scopeId: number | null, scope: Scope, search: PayoutSearch, currencies: string[]): { sql: string; params: Record<string, unknown> } | null {
  const branches: string[] = [];
  const params: Record<string, unknown> = { searchMerchantId: scope.merchantId, searchLivemode: scope.livemode };
  if (scopeId !== null) {
    const range = suffixRange(search.text);
    Object.assign(params, { searchScopeId: scopeId, suffixFrom: range.from, suffixTo: range.to });
    branches.push(range.exact
      ? 'SELECT DISTINCT s.payout_seq AS seq FROM payout_search_suffixes s WHERE s.scope_id = :searchScopeId AND s.suffix >= :suffixFrom AND s.suffix < :suffixTo'
      // Longer than the indexed suffixes: the range finds candidates, the literal LIKE confirms them.
      // The escape character is a literal in the SQL text: it is not special in MySQL or SQLite strings.
      : `SELECT DISTINCT s.payout_seq AS seq FROM payout_search_suffixes s JOIN payouts c ON c.seq = s.payout_seq
         WHERE s.scope_id = :searchScopeId AND s.suffix >= :suffixFrom AND s.suffix < :suffixTo AND c.search_text LIKE :searchPattern ESCAPE '${LIKE_ESCAPE}'`);
    if (!range.exact) params.searchPattern = search.textPattern;
  }
  if (search.last4 !== null) {
    params.searchLast4 = search.last4;
    branches.push('SELECT seq FROM payouts WHERE merchant_id = :searchMerchantId AND livemode = :searchLivemode AND destination_last4 = :searchLast4');
  }
  if (search.amountMinor !== null && currencies.length === 1) {
    Object.assign(params, { searchCurrency: currencies[0], searchAmount: search.amountMinor });
    branches.push('SELECT seq FROM payouts WHERE merchant_id = :searchMerchantId AND livemode = :searchLivemode AND currency = :searchCurrency AND amount = :searchAmount');
  }
  return branches.length ? { sql: branches.join(' UNION '), params } : null;
}

/** A query's page of `seq`s (column `<alias>.seq`): past the cursor, in order, one more than the limit for has_more. */
async function pageSeqs(query: SelectQueryBuilder<ObjectLiteral>, alias: string, page: SeqPage): Promise<number[]> {
  return (await pageOf<{ seq: string | number }>(query, alias, page)).map((r) => Number(r.seq));
}

/** A query's page of raw rows, by its column `<alias>.seq`, as pageSeqs cuts it. */
function pageOf<T>(query: SelectQueryBuilder<ObjectLiteral>, alias: string, page: SeqPage): Promise<T[]> {
  return cutPage(query, alias, page).getRawMany<T>();
}

/** The page's `seq`s from a search's match list (searchMatches). */
function pageOfMatches(dataSource: DataSource, matches: { sql: string; params: Record<string, unknown> }, page: SeqPage): Promise<number[]> {
  return pageSeqs(dataSource.createQueryBuilder().select('m.seq', 'seq').from(`(${matches.sql})`, 'm').setParameters(matches.params), 'm', page);
}

/**
 * Newest first by insertion sequence (a payout's row is written when its workflow starts), stable
 * across pages while payouts are created. `totalCount` counts every match, ignoring the cursor:
 * from `payout_scopes` without filters, from `payout_counts` with status/currency/brand filters,
 * from `payout_search_grams` for a one- or two-character search alone, from `payout_created_hours`
 * and the creation-time index for a creation-time window alone, else by counting the matches
 * through an index. Pages are keyset range scans on `seq`, the search goes through
 * searchMatches.
 */
export async function listPayouts(dataSource: DataSource, scope: Scope, query: PayoutListQuery): Promise<PayoutListResult> {
  const repo = dataSource.getRepository(Payout);
  const pageWindow = await seqPageOf(repo, scope, query);
  if ('cursorNotFound' in pageWindow) return pageWindow;
  const { search, ...rest } = query.filters;
  const structured = hasStructuredFilters(query.filters);

  let totalCount: number;
  let seqs: number[];
  const scopeId = search ? await findScopeId(dataSource, scope.merchantId, scope.livemode) : null;
  const matches = search ? searchMatches(scopeId, scope, search, query.filters.currencies) : null;
  if (search && !matches) {
    return { data: [], hasMore: false, totalCount: 0 };
  } else if (search && matches && !structured && scopeId !== null && isGramSearch(search.text)) {
    // One or two characters (no other branch can match): the gram count, then a page from
    // whichever reads less, the newest payouts' texts or the match list.
    totalCount = await gramPayoutCount(dataSource, scopeId, search.text);
    if (walkFindsPageSooner(totalCount, await scopePayoutCount(dataSource, scope.merchantId, scope.livemode), query.limit + 1)) {
      const walk = repo.createQueryBuilder('p').select('p.seq', 'seq').useIndex('idx_payouts_scope');
      applyFilters(walk, scope, rest as PayoutFilters);
      walk.andWhere(`p.search_text LIKE :searchPattern ESCAPE '${LIKE_ESCAPE}'`, { searchPattern: search.textPattern });
      seqs = await pageSeqs(walk, 'p', pageWindow);
    } else {
      seqs = await pageOfMatches(dataSource, matches, pageWindow);
    }
  } else if (matches && !structured) {
    // Index-only: count the union and page over it.
    const counted = await dataSource.createQueryBuilder().select('COUNT(*)', 'count').from(`(${matches.sql})`, 'm').setParameters(matches.params).getRawOne<{ count: string | number }>();
    totalCount = Number(counted?.count ?? 0);
    seqs = await pageOfMatches(dataSource, matches, pageWindow);
  } else if (!search && onlyCreatedWindow(query.filters)) {
    // A creation-time window alone: counted from its whole hours, paged inside their seq range.
    const hours = await createdWindowHours(dataSource, scope.merchantId, scope.livemode, { gte: query.filters.createdGte, lt: query.filters.createdLt });
    totalCount = hours.wholeHoursCount + await countCreatedRanges(dataSource, scope, hours.partialRanges);
    seqs = hours.seqRange ? await pageInSeqRange(dataSource, scope, { gte: query.filters.createdGte, lt: query.filters.createdLt }, hours.seqRange, pageWindow) : [];
  } else {
    const matching = repo.createQueryBuilder('p').select('p.seq', 'seq');
    applyFilters(matching, scope, rest as PayoutFilters);
    if (matches) matching.andWhere(`p.seq IN (SELECT m.seq FROM (${matches.sql}) m)`, matches.params);
    // With a search, the matches drive (a primary-key lookup each); an index hint would make
    // MariaDB scan every row of the filter instead (3.4 s for an amount in one currency), unless
    // the filter is statuses that hold few rows against the matches (statusWalkSuffixRows).
    const searchWalk = matches ? await searchCountingIndex(dataSource, scope, scopeId, search!, query.filters) : null;
    const count = (counting: SelectQueryBuilder<PayoutRow>) => counting.select('COUNT(*)', 'count').getRawOne<{ count: string | number }>().then((row) => Number(row?.count ?? 0));
    if (searchWalk !== null && searchWalk === pagingIndex(query.filters)) {
      // One status: its index walk both counts the matches and finds the page, in one statement
      // instead of walking it twice (half the database time of `?search=maria&status=FAILED`).
      matching.useIndex(searchWalk);
      const counted = await countedPage(dataSource, matching, pageWindow);
      seqs = counted.seqs;
      totalCount = counted.totalCount ?? await count(matching.clone());
    } else {
      if (matches || !onlyGroupFilters(query.filters)) {
        const counting = matching.clone();
        const index = matches ? searchWalk : countingIndex(query.filters);
        if (index) counting.useIndex(index);
        totalCount = await count(counting);
      } else if (structured) {
        totalCount = await groupedPayoutCount(dataSource, scope.merchantId, scope.livemode, query.filters);
      } else {
        totalCount = await scopePayoutCount(dataSource, scope.merchantId, scope.livemode);
      }
      // Few matches: read them through the filter's own index and sort them. Many: walk `seq`
      // backwards and stop at the page. MariaDB otherwise walks `seq` for a narrow created window
      // far in the past, reading most of the table (8 s at a million rows).
      const index = pagingIndex(query.filters) ?? (!matches && totalCount <= FEW_MATCHES ? countingIndex(query.filters) : null);
      if (index) matching.useIndex(index);
      seqs = await pageSeqs(matching, 'p', pageWindow);
    }
  }
  return pageOfRows(repo, seqs, pageWindow, totalCount);
}

/** The page's rows by primary key: the queries that chose it only read `seq`, so they stay in an index. */
async function pageOfRows(repo: Repository<PayoutRow>, seqs: number[], page: SeqPage, totalCount: number): Promise<PayoutListResult> {
  const { rows, hasMore } = pageRows(await rowsInSeqOrder(repo, seqs), page);
  return { data: rows.map(rowToPayout), hasMore, totalCount };
}

/**
 * A page of a query's `seq`s with the count of all its rows (the cursor aside), in one statement:
 * the count is a window over the query's rows, the page is cut from them. An empty page (a cursor
 * past the last row) carries no count: null.
 */
async function countedPage(dataSource: DataSource, query: SelectQueryBuilder<PayoutRow>, page: SeqPage): Promise<{ seqs: number[]; totalCount: number | null }> {
  const counted = query.clone().addSelect('COUNT(*) OVER ()', 'total');
  const outer = dataSource.createQueryBuilder().select('x.seq', 'seq').addSelect('x.total', 'total')
    .from(`(${counted.getQuery()})`, 'x').setParameters(counted.getParameters());
  const rows = await pageOf<{ seq: number | string; total: number | string }>(outer, 'x', page);
  return { seqs: rows.map((row) => Number(row.seq)), totalCount: rows.length ? Number(rows[0]!.total) : null };
}
