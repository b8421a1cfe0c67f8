// The Payout read model: written by PayoutWorkflow's projection activity and by the API with the
// submission's answer, read by GET and list.
import { LessThan, type DataSource, type Repository } from 'typeorm';
import { Payout, type PayoutRow } from '../db/entities';
import type { CardBrand } from '../domain/cards';
import type { FailureCode } from '../domain/failure-codes';
import type { PayoutStatus, PayoutView } from '../domain/payout';
import { payoutSearchText } from '../domain/payout-search';
import type { Scope } from './payments';
import { isMysql } from '../db/dialect';
import { isDuplicateKeyError } from '../db/errors';
import { planPayoutList, type PayoutFilters, type PayoutListCounts } from './payout-list-plan';
import { findPage, lookUpCount } from './payout-list-queries';
import { pageRows, rowsInSeqOrder, seqPageOf, type CursorNotFound, type SeqPage } from './seq-pages';
import { indexNewPayout, regroupPayout } from './payout-search-index';
import { retryingDeadlocks } from './versioned-upsert';

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
/** `likelyNew`: the Payout a submission answers, which the projector has usually not written yet. */
export async function recordPayoutProjection(dataSource: DataSource, view: PayoutView, options: { likelyNew?: boolean } = {}): Promise<void> {
  const row = payoutToRow(view);
  const group = { status: row.status, currency: row.currency, brand: row.destination_brand };
  // The API (the submission's answer) and the projector write a new payout at the same moment.
  await retryingDeadlocks(() => dataSource.transaction(async (manager) => {
    const repo = manager.getRepository(Payout);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      // A row that is almost always new goes straight to its insert: a concurrent writer then waits
      // on this row's lock instead of both taking gap locks and one losing a deadlock.
      const tryInsertFirst = options.likelyNew && attempt === 0;
      const read = repo.createQueryBuilder('p').select(['p.seq', 'p.version', 'p.status', 'p.currency', 'p.destination_brand']).where('p.id = :id', { id: row.id });
      // The row lock orders concurrent writes of this payout, so its counts move once per change.
      if (isMysql(manager)) read.setLock('pessimistic_write');
      const existing = tryInsertFirst ? null : await read.getOne();
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
  }));
}

export async function findPayout(dataSource: DataSource, scope: Scope, id: string): Promise<PayoutView | null> {
  const row = await dataSource.getRepository(Payout).findOneBy({ id, merchant_id: scope.merchantId, livemode: scope.livemode });
  return row ? rowToPayout(row) : null;
}

// The list's filters and cost rules belong to its planner; the API and the tests read them here.
export type { PayoutFilters } from './payout-list-plan';
export { statusWalkSuffixRows, walkFindsPageSooner } from './payout-list-plan';

export interface PayoutListQuery {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
  filters: PayoutFilters;
}

export type PayoutListResult =
  | { data: PayoutView[]; hasMore: boolean; totalCount: number }
  | CursorNotFound;

/**
 * Newest first by insertion sequence (a payout's row is written when its workflow starts), stable
 * across pages while payouts are created: keyset pages on `seq`. The planner
 * (src/read-models/payout-list-plan.ts) says which counts to look up and then how to find the page
 * and the total_count; src/read-models/payout-list-queries.ts runs them.
 */
export async function listPayouts(dataSource: DataSource, scope: Scope, query: PayoutListQuery): Promise<PayoutListResult> {
  const repo = dataSource.getRepository(Payout);
  const page = await seqPageOf(repo, scope, query);
  if ('cursorNotFound' in page) return page;
  const dialect = isMysql(dataSource) ? 'mysql' : 'sqlite';
  const counts: PayoutListCounts = {};
  for (;;) {
    const step = planPayoutList({ filters: query.filters, dialect, page, counts });
    if ('plan' in step) {
      const { seqs, totalCount } = await findPage(dataSource, scope, step.plan);
      return pageOfRows(repo, seqs, page, totalCount);
    }
    // Each count is looked up once: a planner that asked again would never finish.
    if (counts[step.needs.count] !== undefined) throw new Error(`the payout list planner asked twice for ${step.needs.count}`);
    Object.assign(counts, await lookUpCount(dataSource, scope, step.needs));
  }
}

/** The page's rows by primary key: the queries that chose it only read `seq`, so they stay in an index. */
async function pageOfRows(repo: Repository<PayoutRow>, seqs: number[], page: SeqPage, totalCount: number): Promise<PayoutListResult> {
  const { rows, hasMore } = pageRows(await rowsInSeqOrder(repo, seqs), page);
  return { data: rows.map(rowToPayout), hasMore, totalCount };
}
