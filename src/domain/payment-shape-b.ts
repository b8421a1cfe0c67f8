// Shape B (Service-Version 2024-06-01) rules over the one Payment model (docs/shape-b.md): how a
// Payment's state reads in the older shape. Pure and workflow-safe.
import type { FailureCode } from './failure-codes';
import type { PaymentStatus, PaymentStatusFilter, PaymentView } from './payment';

export const SHAPE_B_STATUSES = ['pending', 'succeeded', 'failed', 'refunded'] as const;
export type ShapeBStatus = (typeof SHAPE_B_STATUSES)[number];

export const SHAPE_B_DECLINE_CODES = ['generic_decline', 'insufficient_funds', 'expired_card', 'incorrect_cvc', 'processing_error', 'do_not_honor'] as const;
export type ShapeBDeclineCode = (typeof SHAPE_B_DECLINE_CODES)[number];

/** Shape B payment ids: `pay_` then letters, digits and hyphens. */
const PAYMENT_ID_B = /^pay_[A-Za-z0-9-]{1,60}$/;

export function isShapeBPaymentId(value: string): boolean {
  return PAYMENT_ID_B.test(value);
}

/** Shape B metadata bounds (docs/shape-b.md, "Hosted payments"). */
export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_KEY_LENGTH = 40;
export const METADATA_MAX_VALUE_LENGTH = 500;

const STATUS_OF: Record<PaymentStatus, ShapeBStatus> = {
  PENDING: 'pending',
  REQUIRES_ACTION: 'pending',
  PROCESSING: 'pending',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  EXPIRED: 'failed',
};

/** `refunded` once refunds that are not FAILED cover the whole amount, which is when `refunded_at` is set. */
export function shapeBStatus(payment: Pick<PaymentView, 'status' | 'refunded_at'>): ShapeBStatus {
  return payment.refunded_at !== null ? 'refunded' : STATUS_OF[payment.status];
}

/** The Payments a Shape B `status` filter value selects. */
const FILTER_OF: Record<ShapeBStatus, PaymentStatusFilter> = {
  pending: { statuses: ['PENDING', 'REQUIRES_ACTION', 'PROCESSING'] },
  succeeded: { statuses: ['SUCCEEDED'], refunded: false },
  failed: { statuses: ['FAILED', 'EXPIRED'] },
  refunded: { statuses: ['SUCCEEDED'], refunded: true },
};

export function isShapeBStatus(value: string): value is ShapeBStatus {
  return (SHAPE_B_STATUSES as readonly string[]).includes(value);
}

export function statusFilterB(status: ShapeBStatus): PaymentStatusFilter {
  return FILTER_OF[status];
}

/** Shape B spells a few failure codes differently; the rest collapse into `generic_decline`. */
const DECLINE_CODE_OF: Partial<Record<FailureCode, ShapeBDeclineCode>> = {
  generic_decline: 'generic_decline',
  insufficient_funds: 'insufficient_funds',
  expired_card: 'expired_card',
  do_not_honor: 'do_not_honor',
  issuer_declined: 'incorrect_cvc',
  processor_error: 'processing_error',
};

const DECLINE_MESSAGES: Record<ShapeBDeclineCode, string> = {
  generic_decline: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  expired_card: 'Your card has expired.',
  incorrect_cvc: "Your card's security code is incorrect.",
  processing_error: 'An error occurred while processing your card. Try again with a new request.',
  do_not_honor: 'Your card was declined by its issuer.',
};

export interface ShapeBDecline {
  code: ShapeBDeclineCode;
  message: string;
}

/**
 * The decline of a failed Payment, or null for any other (an EXPIRED hosted Payment whose shopper
 * never submitted a card was not declined).
 */
export function shapeBDecline(payment: Pick<PaymentView, 'status' | 'failure_code'>): ShapeBDecline | null {
  return payment.status === 'FAILED' && payment.failure_code !== null ? declineOf(payment.failure_code) : null;
}

/** The Shape B decline of a failure code; without one, a plain `generic_decline`. */
export function declineOf(failureCode: FailureCode | null): ShapeBDecline {
  const code = (failureCode && DECLINE_CODE_OF[failureCode]) ?? 'generic_decline';
  return { code, message: DECLINE_MESSAGES[code] };
}
