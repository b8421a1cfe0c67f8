// The Payout read model: written by PayoutWorkflow's projection activity, read by GET and list.
import { Brackets, type DataSource, type SelectQueryBuilder } from 'typeorm';
import { Payout, type PayoutRow } from '../db/entities';
import type { CardBrand } from '../domain/cards';
import type { FailureCode } from '../domain/failure-codes';
import type { PayoutStatus, PayoutView } from '../domain/payout';
import { LIKE_ESCAPE, payoutSearchText, type PayoutSearch } from '../domain/payout-search';
import type { Scope } from './payments';
import { upsertVersioned } from './versioned-upsert';

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

export async function recordPayoutProjection(dataSource: DataSource, view: PayoutView): Promise<void> {
  await upsertVersioned(dataSource.manager, Payout, payoutToRow(view));
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
  | { cursorNotFound: 'starting_after' | 'ending_before' };

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
  const search = filters.search;
  if (search) {
    qb.andWhere(new Brackets((or) => {
      // The escape character is a literal in the SQL text: it is not special in MySQL or SQLite strings.
      or.where(`p.search_text LIKE :searchPattern ESCAPE '${LIKE_ESCAPE}'`, { searchPattern: search.textPattern });
      if (search.last4 !== null) or.orWhere('p.destination_last4 = :searchLast4', { searchLast4: search.last4 });
      if (search.amountMinor !== null) or.orWhere('p.amount = :searchAmount', { searchAmount: search.amountMinor });
    }));
  }
}

/**
 * Newest first by insertion sequence (a payout's row is written when its workflow starts), stable
 * across pages while payouts are created. `totalCount` counts every match, ignoring the cursor.
 */
export async function listPayouts(dataSource: DataSource, scope: Scope, query: PayoutListQuery): Promise<PayoutListResult> {
  const repo = dataSource.getRepository(Payout);
  const cursorId = query.startingAfter ?? query.endingBefore;
  let cursorSeq: number | null = null;
  if (cursorId !== undefined) {
    const cursor = await repo.findOne({ select: { seq: true }, where: { id: cursorId, merchant_id: scope.merchantId, livemode: scope.livemode } });
    if (!cursor) return { cursorNotFound: query.startingAfter !== undefined ? 'starting_after' : 'ending_before' };
    cursorSeq = cursor.seq;
  }
  const matching = repo.createQueryBuilder('p');
  applyFilters(matching, scope, query.filters);
  const totalCount = await matching.clone().getCount();

  const backward = query.endingBefore !== undefined;
  if (cursorSeq !== null) matching.andWhere(backward ? 'p.seq > :cursor' : 'p.seq < :cursor', { cursor: cursorSeq });
  matching.orderBy('p.seq', backward ? 'ASC' : 'DESC').limit(query.limit + 1);
  const rows = await matching.getMany();
  const hasMore = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  if (backward) page.reverse();
  return { data: page.map(rowToPayout), hasMore, totalCount };
}
