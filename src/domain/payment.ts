// The Payment as the Payment workflow owns it: plain data, workflow-safe (no I/O, no Node APIs).
// The read model stores it and both API shapes serialize it.
import type { CardBrand } from './cards';
import type { FailureCode } from './failure-codes';
import type { RefundLedgerEntry } from './refunds';

export const PAYMENT_STATUSES = ['PENDING', 'REQUIRES_ACTION', 'PROCESSING', 'SUCCEEDED', 'FAILED', 'EXPIRED'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type IntegrationType = 'DIRECT' | 'HOSTED_PAYMENT_PAGE';
export type NextActionReason = 'hosted_payment_page' | 'three_d_secure';

/** Allowed moves; anything else is a bug the workflow refuses to make. */
const TRANSITIONS: Record<PaymentStatus, readonly PaymentStatus[]> = {
  PENDING: ['REQUIRES_ACTION', 'PROCESSING', 'SUCCEEDED', 'FAILED', 'EXPIRED'],
  REQUIRES_ACTION: ['REQUIRES_ACTION', 'PROCESSING', 'SUCCEEDED', 'FAILED', 'EXPIRED'],
  PROCESSING: ['SUCCEEDED', 'FAILED'],
  SUCCEEDED: [],
  FAILED: [],
  EXPIRED: [],
};

export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** One alternative of a list's status filter: any of `statuses`, optionally only (not) fully refunded. */
export interface PaymentStatusFilter {
  statuses: readonly PaymentStatus[];
  refunded?: boolean;
}

export interface CardSummary {
  brand: CardBrand;
  last4: string;
  exp_month: number;
  exp_year: number;
  cardholder_name: string | null;
  country: string | null;
}

export interface Address {
  line1?: string | null;
  city?: string | null;
  postal_code?: string | null;
  country?: string | null;
}

export interface BillingDetails {
  email?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  address?: Address | null;
}

export interface StatusTransitions {
  requires_action_at: number | null;
  processing_at: number | null;
  succeeded_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
}

export interface RefundView extends RefundLedgerEntry {
  payment_id: string;
  currency: string;
  merchant_reference: number | null;
  reason: string;
  refund_type: 'FULL' | 'PARTIAL';
  failure_code: FailureCode | null;
  failure_message: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

/** Everything a response in either shape needs. */
export interface PaymentView {
  id: string;
  merchant_id: string;
  livemode: boolean;
  amount: number;
  currency: string;
  status: PaymentStatus;
  integration_type: IntegrationType;
  merchant_reference: number | null;
  description: string | null;
  card: CardSummary | null;
  billing_details: BillingDetails | null;
  failure_code: FailureCode | null;
  failure_message: string | null;
  amount_refunded: number;
  amount_refundable: number;
  refunds: RefundView[];
  status_transitions: StatusTransitions;
  next_action: { reason: NextActionReason; redirect_url: string } | null;
  refunded_at: number | null;
  return_url: string | null;
  customer_ip_address: string | null;
  merchant_customer_id: string | null;
  /** Shape B extras. */
  metadata: Record<string, string> | null;
  customer: Record<string, string | null> | null;
  callback_url: string | null;
  hosted_token: string | null;
  /** The hosted page URL given at creation (Shape B `redirect_url`); null for Direct payments. */
  hosted_page_url?: string | null;
  /** The Service-Version of the creating request; null for Payments created before it was kept. */
  api_version?: string | null;
  created_at: number;
  updated_at: number;
  /** Increases with every change; the read model ignores older versions. */
  version: number;
}

/** What a create decides of a new Payment; the rest is how every Payment starts. */
export type NewPaymentFields = Pick<PaymentView,
  'id' | 'merchant_id' | 'livemode' | 'amount' | 'currency' | 'integration_type' | 'merchant_reference' | 'description' | 'card'
  | 'billing_details' | 'next_action' | 'return_url' | 'customer_ip_address' | 'merchant_customer_id' | 'metadata' | 'customer'
  | 'callback_url' | 'hosted_token' | 'hosted_page_url' | 'api_version'>;

/** A Payment as its create hands it to its workflow: PENDING, nothing refunded, version 0, created `now`. */
export function newPayment(p: NewPaymentFields, now: number): PaymentView {
  return {
    id: p.id,
    merchant_id: p.merchant_id,
    livemode: p.livemode,
    amount: p.amount,
    currency: p.currency,
    status: 'PENDING',
    integration_type: p.integration_type,
    merchant_reference: p.merchant_reference,
    description: p.description,
    card: p.card,
    billing_details: p.billing_details,
    failure_code: null,
    failure_message: null,
    amount_refunded: 0,
    amount_refundable: 0,
    refunds: [],
    status_transitions: emptyTransitions(),
    next_action: p.next_action,
    refunded_at: null,
    return_url: p.return_url,
    customer_ip_address: p.customer_ip_address,
    merchant_customer_id: p.merchant_customer_id,
    metadata: p.metadata,
    customer: p.customer,
    callback_url: p.callback_url,
    hosted_token: p.hosted_token,
    hosted_page_url: p.hosted_page_url,
    api_version: p.api_version,
    created_at: now,
    updated_at: now,
    version: 0,
  };
}

export function emptyTransitions(): StatusTransitions {
  return { requires_action_at: null, processing_at: null, succeeded_at: null, failed_at: null, expired_at: null };
}

/** Stamps the status_transitions field of a new status; requires_action_at keeps the first time. */
export function stampTransition(transitions: StatusTransitions, status: PaymentStatus, at: number): StatusTransitions {
  const next = { ...transitions };
  switch (status) {
    case 'REQUIRES_ACTION': next.requires_action_at ??= at; break;
    case 'PROCESSING': next.processing_at ??= at; break;
    case 'SUCCEEDED': next.succeeded_at ??= at; break;
    case 'FAILED': next.failed_at ??= at; break;
    case 'EXPIRED': next.expired_at ??= at; break;
    default: break;
  }
  return next;
}

/**
 * The refunds of `refunds` that `earlier` (the same Payment at an earlier version) does not show as
 * they are, in the Payment's order. Refunds are only ever appended and moved in place, so every
 * refund before one of these is shown by `earlier` already: a change record or an event carrying
 * only these, applied to what `earlier` was written into, gives the whole list.
 */
export function refundsMovedSince(refunds: readonly RefundView[], earlier: readonly RefundView[]): RefundView[] {
  return refunds.filter((refund, i) => {
    const shown = earlier[i];
    return !shown || shown.id !== refund.id || shown.status !== refund.status || shown.updated_at !== refund.updated_at;
  });
}
