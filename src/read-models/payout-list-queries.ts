// The statements of a payout list: each count the planner asks for and each plan it makes
// (src/read-models/payout-list-plan.ts), turned into SQL and run. Nothing here chooses: an index
// hint is written when the plan names one, and the queries only read `seq` (and counts), so they
// stay inside an index; the page's rows are then read by primary key (src/read-models/payouts.ts).
import { Brackets, type DataSource, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';
import { Payout, type PayoutRow } from '../db/entities';
import { LIKE_ESCAPE } from '../domain/payout-search';
import type { Scope } from './payments';
import type { CountLookup, MatchList, PayoutIndex, PayoutListCounts, PayoutListPlan, RowQuery } from './payout-list-plan';
import { createdWindowHours, findScopeId, gramPayoutCount, groupedPayoutCount, scopePayoutCount, type CreatedWindow } from './payout-search-index';
import { cutPage, type SeqPage } from './seq-pages';

/** Runs one count the planner asked for; the answer fills the entry of the same name. */
export async function lookUpCount(dataSource: DataSource, scope: Scope, lookup: CountLookup): Promise<PayoutListCounts> {
  switch (lookup.count) {
    case 'scopeId': return { scopeId: await findScopeId(dataSource, scope.merchantId, scope.livemode) };
    case 'scopePayouts': return { scopePayouts: await scopePayoutCount(dataSource, scope.merchantId, scope.livemode) };
    case 'groupPayouts': return { groupPayouts: await groupedPayoutCount(dataSource, scope.merchantId, scope.livemode, lookup.groups) };
    case 'gramPayouts': return { gramPayouts: await gramPayoutCount(dataSource, lookup.scopeId, lookup.text) };
    case 'suffixRows': return { suffixRows: await countSuffixRows(dataSource, lookup) };
    case 'searchMatches': return { searchMatches: await countOf(matchListQuery(dataSource, scope, lookup.matches)) };
    case 'filteredPayouts': return { filteredPayouts: await countOf(rowQuery(dataSource, scope, lookup.rows)) };
    case 'createdHours': return { createdHours: await createdWindowHours(dataSource, scope.merchantId, scope.livemode, lookup.window) };
    case 'partialHoursPayouts': return { partialHoursPayouts: await countCreatedRanges(dataSource, scope, lookup.ranges, lookup.index) };
  }
}

/** Runs a plan: the page's `seq`s (one more than the limit, for has_more) and the total_count. */
export async function findPage(dataSource: DataSource, scope: Scope, plan: PayoutListPlan): Promise<{ seqs: number[]; totalCount: number }> {
  switch (plan.strategy) {
    case 'none': return { seqs: [], totalCount: plan.totalCount };
    case 'matches': return { seqs: await pageSeqs(matchListQuery(dataSource, scope, plan.matches), 'm', plan.page), totalCount: plan.totalCount };
    case 'rows': return { seqs: await pageSeqs(rowQuery(dataSource, scope, plan.rows), 'p', plan.page), totalCount: plan.totalCount };
    case 'countedRows': {
      const counted = await countedPage(dataSource, rowQuery(dataSource, scope, plan.rows), plan.page);
      return { seqs: counted.seqs, totalCount: counted.totalCount ?? await countOf(rowQuery(dataSource, scope, plan.rows)) };
    }
    case 'seqRange': return { seqs: await pageInSeqRange(dataSource, scope, plan), totalCount: plan.totalCount };
  }
}

function countOf(query: SelectQueryBuilder<ObjectLiteral>): Promise<number> {
  return query.select('COUNT(*)', 'count').getRawOne<{ count: string | number }>().then((row) => Number(row?.count ?? 0));
}

/** The suffix rows of a text, counted up to `upTo` (the count stops reading there). */
async function countSuffixRows(dataSource: DataSource, lookup: Extract<CountLookup, { count: 'suffixRows' }>): Promise<number> {
  const rows = (await dataSource.query(
    `SELECT COUNT(*) AS n FROM (SELECT 1 FROM payout_search_suffixes WHERE scope_id = ? AND suffix >= ? AND suffix < ? LIMIT ${lookup.upTo}) s`, [lookup.scopeId, lookup.range.from, lookup.range.to],
  )) as Array<{ n: number | string }>;
  return Number(rows[0]?.n ?? 0);
}

/** Payouts of a scope created in any of the given windows (disjoint), through the creation-time index. */
async function countCreatedRanges(dataSource: DataSource, scope: Scope, ranges: CreatedWindow[], index: PayoutIndex | null): Promise<number> {
  const counting = dataSource.getRepository(Payout).createQueryBuilder('p');
  if (index) counting.useIndex(index);
  counting.where('p.merchant_id = :merchantId AND p.livemode = :livemode', { merchantId: scope.merchantId, livemode: scope.livemode })
    .andWhere(new Brackets((any) => {
      ranges.forEach((range, i) => {
        const bounds = [range.gte === undefined ? null : `p.created_at >= :gte${i}`, range.lt === undefined ? null : `p.created_at < :lt${i}`].filter((b) => b !== null);
        any.orWhere(bounds.join(' AND '), { [`gte${i}`]: range.gte, [`lt${i}`]: range.lt });
      });
    }));
  return countOf(counting);
}

/** A page of a creation-time window, walking `seq` inside the range its hours hold. */
async function pageInSeqRange(dataSource: DataSource, scope: Scope, plan: Extract<PayoutListPlan, { strategy: 'seqRange' }>): Promise<number[]> {
  const { window, seqRange, page } = plan;
  const conditions = ['merchant_id = ?', 'livemode = ?', 'seq >= ?', 'seq <= ?'];
  const params: unknown[] = [scope.merchantId, scope.livemode ? 1 : 0, seqRange.from, seqRange.to];
  if (window.gte !== undefined) { conditions.push('created_at >= ?'); params.push(window.gte); }
  if (window.lt !== undefined) { conditions.push('created_at < ?'); params.push(window.lt); }
  if (page.cursor) { conditions.push(page.direction === 'DESC' ? 'seq < ?' : 'seq > ?'); params.push(page.cursor.seq); }
  const hint = plan.index ? `FORCE INDEX (${plan.index})` : '';
  const rows = (await dataSource.query(
    `SELECT seq FROM payouts ${hint} WHERE ${conditions.join(' AND ')} ORDER BY seq ${page.direction} LIMIT ${Math.trunc(page.limit) + 1}`, params,
  )) as Array<{ seq: number | string }>;
  return rows.map((row) => Number(row.seq));
}

/** The `seq`s of a RowQuery (column `p.seq`), through its index when it names one. */
function rowQuery(dataSource: DataSource, scope: Scope, rows: RowQuery): SelectQueryBuilder<PayoutRow> {
  const query = dataSource.getRepository(Payout).createQueryBuilder('p').select('p.seq', 'seq');
  if (rows.index) query.useIndex(rows.index);
  const { filters } = rows;
  query.where('p.merchant_id = :merchantId AND p.livemode = :livemode', { merchantId: scope.merchantId, livemode: scope.livemode });
  if (filters.statuses.length) query.andWhere('p.status IN (:...statuses)', { statuses: filters.statuses });
  if (filters.currencies.length) query.andWhere('p.currency IN (:...currencies)', { currencies: filters.currencies });
  if (filters.brands.length) query.andWhere('p.destination_brand IN (:...brands)', { brands: filters.brands });
  if (filters.last4 !== undefined) query.andWhere('p.destination_last4 = :last4', { last4: filters.last4 });
  if (filters.createdGte !== undefined) query.andWhere('p.created_at >= :createdGte', { createdGte: filters.createdGte });
  if (filters.createdLt !== undefined) query.andWhere('p.created_at < :createdLt', { createdLt: filters.createdLt });
  if (filters.amountGte !== undefined) query.andWhere('p.amount >= :amountGte', { amountGte: filters.amountGte });
  if (filters.amountLte !== undefined) query.andWhere('p.amount <= :amountLte', { amountLte: filters.amountLte });
  if (rows.matches) {
    const matches = matchListSql(scope, rows.matches);
    query.andWhere(`p.seq IN (SELECT m.seq FROM (${matches.sql}) m)`, matches.params);
  }
  if (rows.textPattern !== null) query.andWhere(`p.search_text LIKE :searchPattern ESCAPE '${LIKE_ESCAPE}'`, { searchPattern: rows.textPattern });
  return query;
}

/** The `seq`s of a match list (column `m.seq`). */
function matchListQuery(dataSource: DataSource, scope: Scope, matches: MatchList): SelectQueryBuilder<ObjectLiteral> {
  const { sql, params } = matchListSql(scope, matches);
  return dataSource.createQueryBuilder().select('m.seq', 'seq').from(`(${sql})`, 'm').setParameters(params);
}

/**
 * A match list as one UNION of index range scans (a payout can match the text at several
 * positions: DISTINCT). The escape character is a literal in the SQL text: it is not special in
 * MySQL or SQLite strings.
 */
function matchListSql(scope: Scope, matches: MatchList): { sql: string; params: Record<string, unknown> } {
  const branches: string[] = [];
  const params: Record<string, unknown> = { searchMerchantId: scope.merchantId, searchLivemode: scope.livemode };
  if (matches.text) {
    const { scopeId, range, confirm } = matches.text;
    Object.assign(params, { searchScopeId: scopeId, suffixFrom: range.from, suffixTo: range.to });
    branches.push(confirm === null
      ? 'SELECT DISTINCT s.payout_seq AS seq FROM payout_search_suffixes s WHERE s.scope_id = :searchScopeId AND s.suffix >= :suffixFrom AND s.suffix < :suffixTo'
      : `SELECT DISTINCT s.payout_seq AS seq FROM payout_search_suffixes s JOIN payouts c ON c.seq = s.payout_seq
         WHERE s.scope_id = :searchScopeId AND s.suffix >= :suffixFrom AND s.suffix < :suffixTo AND c.search_text LIKE :searchPattern ESCAPE '${LIKE_ESCAPE}'`);
    if (confirm !== null) params.searchPattern = confirm;
  }
  if (matches.last4 !== null) {
    params.searchLast4 = matches.last4;
    branches.push('SELECT seq FROM payouts WHERE merchant_id = :searchMerchantId AND livemode = :searchLivemode AND destination_last4 = :searchLast4');
  }
  if (matches.amount) {
    Object.assign(params, { searchCurrency: matches.amount.currency, searchAmount: matches.amount.amountMinor });
    branches.push('SELECT seq FROM payouts WHERE merchant_id = :searchMerchantId AND livemode = :searchLivemode AND currency = :searchCurrency AND amount = :searchAmount');
  }
  return { sql: branches.join(' UNION '), params };
}

/** A query's page of `seq`s (column `<alias>.seq`): past the cursor, in order, one more than the limit for has_more. */
async function pageSeqs(query: SelectQueryBuilder<ObjectLiteral>, alias: string, page: SeqPage): Promise<number[]> {
  return (await pageOf<{ seq: string | number }>(query, alias, page)).map((r) => Number(r.seq));
}

/** A query's page of raw rows, by its column `<alias>.seq`, as pageSeqs cuts it. */
function pageOf<T>(query: SelectQueryBuilder<ObjectLiteral>, alias: string, page: SeqPage): Promise<T[]> {
  return cutPage(query, alias, page).getRawMany<T>();
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
