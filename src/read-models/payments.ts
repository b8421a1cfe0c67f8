// The Payment read model: written by PaymentWorkflow's projection activity, read by GET and list.
import { Brackets, type DataSource, type EntityManager, type SelectQueryBuilder } from 'typeorm';
import { Payment, Refund, type PaymentRow, type RefundRow } from '../db/entities';
import { isMysql } from '../db/dialect';
import { entityColumns } from '../db/entity-columns';
import type { CardBrand } from '../domain/cards';
import type { FailureCode } from '../domain/failure-codes';
import type { IntegrationType, NextActionReason, PaymentStatus, PaymentStatusFilter, PaymentView, RefundView } from '../domain/payment';
import { HOSTED_TOKEN_MARK, hostedTokenHash } from '../domain/hosted-page';
import type { RefundStatus } from '../domain/refunds';
import type { SecretBox } from '../vault/crypto';
import { cutPage, pageRows, rowsInSeqOrder, seqPageOf, type CursorNotFound } from './seq-pages';
import { retryingDeadlocks, upsertVersioned, type UpsertOptions } from './versioned-upsert';

const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/**
 * Seals a hosted page token for its Payment's row and opens it again: the vault's SecretBox, with the
 * payment id as associated data, so a sealed token copied to another row does not open.
 */
export type HostedTokenBox = Pick<SecretBox, 'seal' | 'open'>;

/**
 * The row keeps no hosted page token in clear (docs/hosted-page.md, "The token"): `hosted_token` is
 * its hash, which the page looks up; the token is sealed in `hosted_token_sealed`; the page URLs
 * hold HOSTED_TOKEN_MARK in its place.
 */
export function paymentToRow(view: PaymentView, box: HostedTokenBox): Omit<PaymentRow, 'seq'> {
  const token = view.hosted_token;
  const withoutToken = (url: string | null) => (token && url ? url.split(token).join(HOSTED_TOKEN_MARK) : url);
  return {
    id: view.id,
    merchant_id: view.merchant_id,
    livemode: view.livemode,
    amount: view.amount,
    currency: view.currency,
    status: view.status,
    integration_type: view.integration_type,
    merchant_reference: view.merchant_reference,
    description: view.description,
    card_brand: view.card?.brand ?? null,
    card_last4: view.card?.last4 ?? null,
    card_exp_month: view.card?.exp_month ?? null,
    card_exp_year: view.card?.exp_year ?? null,
    card_holder_name: view.card?.cardholder_name ?? null,
    card_country: view.card?.country ?? null,
    billing_details: view.billing_details ? JSON.stringify(view.billing_details) : null,
    failure_code: view.failure_code,
    failure_message: view.failure_message,
    amount_refunded: view.amount_refunded,
    amount_refundable: view.amount_refundable,
    next_action_reason: view.next_action?.reason ?? null,
    next_action_url: withoutToken(view.next_action?.redirect_url ?? null),
    requires_action_at: view.status_transitions.requires_action_at,
    processing_at: view.status_transitions.processing_at,
    succeeded_at: view.status_transitions.succeeded_at,
    failed_at: view.status_transitions.failed_at,
    expired_at: view.status_transitions.expired_at,
    refunded_at: view.refunded_at,
    return_url: view.return_url,
    customer_ip_address: view.customer_ip_address,
    merchant_customer_id: view.merchant_customer_id,
    metadata: view.metadata ? JSON.stringify(view.metadata) : null,
    customer: view.customer ? JSON.stringify(view.customer) : null,
    callback_url: view.callback_url,
    hosted_token: token ? hostedTokenHash(token) : null,
    hosted_token_sealed: token ? box.seal(token, view.id) : null,
    hosted_page_url: withoutToken(view.hosted_page_url ?? null),
    api_version: view.api_version ?? null,
    created_at: view.created_at,
    updated_at: view.updated_at,
    version: view.version,
  };
}

function refundToRow(payment: PaymentView, refund: RefundView, version: number): Omit<RefundRow, 'seq'> {
  return {
    id: refund.id,
    payment_id: payment.id,
    merchant_id: payment.merchant_id,
    livemode: payment.livemode,
    amount: refund.amount,
    currency: refund.currency,
    merchant_reference: refund.merchant_reference,
    reason: refund.reason,
    refund_type: refund.refund_type,
    status: refund.status,
    failure_code: refund.failure_code,
    failure_message: refund.failure_message,
    created_at: refund.created_at,
    updated_at: refund.updated_at,
    completed_at: refund.completed_at,
    version,
  };
}

export function rowToRefund(row: RefundRow): RefundView {
  return {
    id: row.id,
    payment_id: row.payment_id,
    amount: row.amount,
    currency: row.currency,
    merchant_reference: row.merchant_reference,
    reason: row.reason,
    refund_type: row.refund_type as RefundView['refund_type'],
    status: row.status as RefundStatus,
    failure_code: row.failure_code as FailureCode | null,
    failure_message: row.failure_message,
    created_at: row.created_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
  };
}

/**
 * The Payment of a row, its hosted page URLs with their token again. A row written before the
 * hosted-token-hash migration has no sealed token: its URLs still hold the token, and its view none
 * (the next projection of its Payment writes it anew).
 */
export function rowToPayment(row: PaymentRow, refunds: RefundRow[], box: HostedTokenBox): PaymentView {
  const token = row.hosted_token_sealed ? box.open(row.hosted_token_sealed, row.id) : null;
  const withToken = (url: string | null) => (token && url ? url.split(HOSTED_TOKEN_MARK).join(token) : url);
  const nextActionUrl = withToken(row.next_action_url);
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    livemode: row.livemode,
    amount: row.amount,
    currency: row.currency,
    status: row.status as PaymentStatus,
    integration_type: row.integration_type as IntegrationType,
    merchant_reference: row.merchant_reference,
    description: row.description,
    card: row.card_last4 === null ? null : {
      brand: row.card_brand as CardBrand,
      last4: row.card_last4,
      exp_month: row.card_exp_month ?? 0,
      exp_year: row.card_exp_year ?? 0,
      cardholder_name: row.card_holder_name,
      country: row.card_country,
    },
    billing_details: json(row.billing_details),
    failure_code: row.failure_code as FailureCode | null,
    failure_message: row.failure_message,
    amount_refunded: row.amount_refunded,
    amount_refundable: row.amount_refundable,
    refunds: refunds.map(rowToRefund),
    status_transitions: {
      requires_action_at: row.requires_action_at,
      processing_at: row.processing_at,
      succeeded_at: row.succeeded_at,
      failed_at: row.failed_at,
      expired_at: row.expired_at,
    },
    next_action: row.next_action_reason && nextActionUrl
      ? { reason: row.next_action_reason as NextActionReason, redirect_url: nextActionUrl }
      : null,
    refunded_at: row.refunded_at,
    return_url: row.return_url,
    customer_ip_address: row.customer_ip_address,
    merchant_customer_id: row.merchant_customer_id,
    metadata: json(row.metadata),
    customer: json(row.customer),
    callback_url: row.callback_url,
    hosted_token: token,
    hosted_page_url: withToken(row.hosted_page_url),
    api_version: row.api_version,
    created_at: row.created_at,
    updated_at: row.updated_at,
    version: row.version,
  };
}

/**
 * One transaction: the Payment row and its Refund rows move together. `likelyNew`: the Payment a
 * create answers, which the projector has usually not written yet; `exists`: its row was read before.
 */
export async function recordPaymentProjection(dataSource: DataSource, box: HostedTokenBox, view: PaymentView, options: UpsertOptions = {}): Promise<void> {
  // Without refunds the Payment is one row, and each of its statements is atomic on its own.
  if (view.refunds.length === 0) {
    await retryingDeadlocks(() => upsertVersioned(dataSource.manager, Payment, paymentToRow(view, box), options));
    return;
  }
  await retryingDeadlocks(() => dataSource.transaction(async (manager) => {
    // A Payment row at this version or newer was written with every refund that had moved by then
    // (its writer's, in this same transaction): its refunds are at least this new too.
    if (!(await upsertVersioned(manager, Payment, paymentToRow(view, box), options))) return;
    // Only the refunds whose state moved: a Payment refunded many times would otherwise rewrite
    // every earlier refund on each change (a statement each; quadratic on a hot Payment).
    const stored = await storedRefundStates(manager, view.id, view.refunds.map((r) => r.id));
    for (const refund of view.refunds) {
      if (!refundStateChanged(stored.get(refund.id), refund)) continue;
      // A refund with no row yet (its answer) is inserted in one statement; the other writer of the
      // same answer may still be first, and the guarded update then decides.
      await upsertVersioned(manager, Refund, refundToRow(view, refund, view.version), { likelyNew: !stored.has(refund.id) });
    }
  }));
}

/** What can change on a refund after it is created; the rest of its row is written once. */
export type RefundState = Pick<RefundView, 'status' | 'failure_code' | 'failure_message' | 'updated_at' | 'completed_at'>;

/** Whether a refund's stored row (if any) shows a state other than the snapshot's. */
export function refundStateChanged(stored: RefundState | undefined, refund: RefundState): boolean {
  if (!stored) return true;
  // Drivers return BIGINT columns as numbers or strings: compare the values, not their types.
  const same = (a: string | number | null, b: string | number | null) => (a === null || b === null ? a === b : String(a) === String(b));
  return !(same(stored.status, refund.status) && same(stored.failure_code, refund.failure_code) && same(stored.failure_message, refund.failure_message)
    && same(stored.updated_at, refund.updated_at) && same(stored.completed_at, refund.completed_at));
}

/** Only the refunds given: a refund's answer carries one or a few of a Payment's hundreds. */
async function storedRefundStates(manager: EntityManager, paymentId: string, ids: string[]): Promise<Map<string, RefundState>> {
  const rows: Array<RefundState & { id: string }> = await manager.getRepository(Refund).createQueryBuilder('r')
    .select(['r.id AS id', 'r.status AS status', 'r.failure_code AS failure_code', 'r.failure_message AS failure_message', 'r.updated_at AS updated_at', 'r.completed_at AS completed_at'])
    .where('r.payment_id = :paymentId AND r.id IN (:...ids)', { paymentId, ids })
    .getRawMany();
  return new Map(rows.map((row) => [row.id, row]));
}

export interface Scope {
  merchantId: string;
  livemode: boolean;
}

/**
 * One statement (the Payment joined to its refunds): one round trip, and the row and its refunds
 * come from one consistent read, so a new refund status never pairs with an old balance (the
 * projection writes them in one transaction).
 */
export async function findPayment(dataSource: DataSource, box: HostedTokenBox, scope: Scope, id: string): Promise<PaymentView | null> {
  // A hot read (entity-columns.ts): one statement, the Payment with its refunds. The refunds are
  // put in order here: an ORDER BY on the joined table costs MariaDB a temporary table.
  const p = entityColumns(dataSource, Payment, 'p');
  const r = entityColumns(dataSource, Refund, 'r');
  const rows = (await dataSource.query(
    `SELECT ${p.select}, ${r.select} FROM ${p.table} p LEFT JOIN ${r.table} r ON r.payment_id = p.id WHERE p.id = ? AND p.merchant_id = ? AND p.livemode = ?`,
    [id, scope.merchantId, scope.livemode ? 1 : 0],
  )) as Array<Record<string, unknown>>;
  const payment = rows.length ? p.hydrate(rows[0]!) : null;
  if (!payment) return null;
  const refunds = rows.flatMap((raw) => r.hydrate(raw) ?? []).sort((a, b) => a.seq - b.seq);
  return rowToPayment(payment, refunds, box);
}

/** The Payment whose hosted page the token opens: looked up by the token's hash. */
export async function findPaymentByHostedToken(dataSource: DataSource, box: HostedTokenBox, token: string): Promise<PaymentView | null> {
  const row = await dataSource.getRepository(Payment).findOneBy({ hosted_token: hostedTokenHash(token) });
  return row ? rowToPayment(row, [], box) : null;
}

export interface PaymentListQuery {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
  /** A Payment matches when it matches any one of these (each shape spells its statuses). */
  statusFilters?: readonly PaymentStatusFilter[];
  createdGte?: number;
  createdLt?: number;
}

/** Up to this many Payments in a creation-time window, a page reads the whole window and sorts it. */
const FEW_IN_WINDOW = 10_000;

/**
 * Newest first by creation: the order in which the Payments' rows were recorded (`seq`; a row is
 * written when the create is answered, or by the workflow's first projection if that comes first),
 * so two Payments created in the same second still list the later one first. Keyset cursors on
 * `seq` keep pages stable while Payments are created: no Payment that existed when a walk began is
 * shown twice or skipped.
 */
export async function listPayments(dataSource: DataSource, box: HostedTokenBox, scope: Scope, query: PaymentListQuery): Promise<{ data: PaymentView[]; hasMore: boolean } | CursorNotFound> {
  // One transaction for the page and its refunds, as in findPayment.
  return dataSource.transaction((manager) => listPaymentsIn(manager, box, scope, query));
}

async function listPaymentsIn(manager: EntityManager, box: HostedTokenBox, scope: Scope, query: PaymentListQuery): Promise<{ data: PaymentView[]; hasMore: boolean } | CursorNotFound> {
  const repo = manager.getRepository(Payment);
  const page = await seqPageOf(repo, scope, query);
  if ('cursorNotFound' in page) return page;
  // The page's `seq`s first, from an index that holds every column the filters read (the refunded
  // test of a Shape B status aside), then those rows by primary key.
  const matching = repo.createQueryBuilder('p').select('p.seq', 'seq');
  applyScopeAndFilters(matching, scope, query);
  if (isMysql(manager)) matching.useIndex(await pagingIndexes(manager, scope, query));
  const seqs = (await cutPage(matching, 'p', page).getRawMany<{ seq: number | string }>()).map((row) => Number(row.seq));
  const { rows, hasMore } = pageRows(await rowsInSeqOrder(repo, seqs), page);
  const refunds = rows.length
    ? await manager.getRepository(Refund).createQueryBuilder('r').where('r.payment_id IN (:...ids)', { ids: rows.map((p) => p.id) }).orderBy('r.seq', 'ASC').getMany()
    : [];
  return { data: rows.map((row) => rowToPayment(row, refunds.filter((r) => r.payment_id === row.id), box)), hasMore };
}

function applyScopeAndFilters(qb: SelectQueryBuilder<PaymentRow>, scope: Scope, query: PaymentListQuery): void {
  qb.where('p.merchant_id = :merchantId AND p.livemode = :livemode', { merchantId: scope.merchantId, livemode: scope.livemode });
  if (query.statusFilters?.length) {
    const filters = query.statusFilters;
    qb.andWhere(new Brackets((any) => {
      filters.forEach((filter, i) => {
        const refunded = filter.refunded === undefined ? '' : ` AND p.refunded_at IS ${filter.refunded ? 'NOT ' : ''}NULL`;
        any.orWhere(`(p.status IN (:...statuses${i})${refunded})`, { [`statuses${i}`]: filter.statuses });
      });
    }));
  }
  if (query.createdGte !== undefined) qb.andWhere('p.created_at >= :gte', { gte: query.createdGte });
  if (query.createdLt !== undefined) qb.andWhere('p.created_at < :lt', { lt: query.createdLt });
}

/**
 * The indexes a page may read on MySQL/MariaDB. Left to itself MariaDB walks the primary key
 * backwards through every merchant's Payments (60 rows read per row kept for a merchant with 2% of
 * them), or reads a status's whole range and sorts it for a cursor page. Walking `seq` in the
 * (merchant, mode) or (merchant, mode, status) index reads one range at the cursor. A creation-time
 * window holding few Payments is read through the creation-time indexes and sorted instead: walking
 * `seq` to a window far in the past would first pass every newer Payment.
 */
async function pagingIndexes(manager: EntityManager, scope: Scope, query: PaymentListQuery): Promise<string[]> {
  const statuses = new Set(query.statusFilters?.flatMap((filter) => filter.statuses) ?? []);
  if ((query.createdGte !== undefined || query.createdLt !== undefined) && await windowHoldsFew(manager, scope, query)) {
    return statuses.size ? ['idx_payments_scope_status_created', 'idx_payments_scope_created'] : ['idx_payments_scope_created'];
  }
  if (statuses.size === 1) return ['idx_payments_scope_status'];
  // Several statuses: MariaDB chooses between walking `seq` (common statuses) and sorting the few Payments of rare ones.
  return statuses.size ? ['idx_payments_scope', 'idx_payments_scope_status'] : ['idx_payments_scope'];
}

/** Whether the creation-time window holds at most FEW_IN_WINDOW of the scope's Payments (counted in its index, up to that). */
async function windowHoldsFew(manager: EntityManager, scope: Scope, query: PaymentListQuery): Promise<boolean> {
  const window = manager.getRepository(Payment).createQueryBuilder('p').select('1').useIndex('idx_payments_scope_created');
  applyScopeAndFilters(window, scope, { ...query, statusFilters: undefined });
  const [sql, params] = window.limit(FEW_IN_WINDOW + 1).getQueryAndParameters();
  const [counted] = (await manager.query(`SELECT COUNT(*) AS n FROM (${sql}) w`, params)) as Array<{ n: number | string }>;
  return Number(counted?.n ?? 0) <= FEW_IN_WINDOW;
}
