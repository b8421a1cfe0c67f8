// Refund arithmetic (docs/api-reference.md, "Refunds"). Pure: the Payment workflow runs
// it to serialise refund decisions, so concurrent requests cannot overdraw a Payment.

export type RefundStatus = 'PENDING' | 'PROCESSING' | 'SUCCEEDED' | 'FAILED';

export interface RefundLedgerEntry {
  id: string;
  amount: number;
  status: RefundStatus;
}

export type RefundType = 'FULL' | 'PARTIAL';

export type RefundCheck =
  | { ok: true; refundType: RefundType }
  | { ok: false; code: 'payment_not_refundable' | 'amount_exceeds_refundable' };

function sumWhere(entries: readonly RefundLedgerEntry[], keep: (e: RefundLedgerEntry) => boolean): number {
  let sum = 0;
  for (const entry of entries) if (keep(entry)) sum += entry.amount;
  return sum;
}

/** A refund whose outcome is known: SUCCEEDED or FAILED. Until then it is in flight (PENDING, PROCESSING). */
export function isTerminalRefundStatus(status: RefundStatus): boolean {
  return status === 'SUCCEEDED' || status === 'FAILED';
}

/**
 * A refund that holds its amount of the Payment: any but a FAILED one. A refund in flight holds it
 * too, so that two concurrent refunds cannot both pass.
 */
export function holdsAmount(entry: Pick<RefundLedgerEntry, 'status'>): boolean {
  return entry.status !== 'FAILED';
}

export function amountRefunded(amount: number, entries: readonly RefundLedgerEntry[]): number {
  const succeeded = sumWhere(entries, (e) => e.status === 'SUCCEEDED');
  return Math.max(0, Math.min(amount, succeeded));
}

export function amountRefundable(
  paymentStatus: string,
  amount: number,
  entries: readonly RefundLedgerEntry[],
): number {
  if (paymentStatus !== 'SUCCEEDED') return 0;
  return Math.max(0, amount - sumWhere(entries, holdsAmount));
}

// FULL only for the whole Payment amount with nothing succeeded or in progress; a FAILED refund
// does not count.
export function refundType(
  paymentAmount: number,
  requested: number,
  entries: readonly RefundLedgerEntry[],
): RefundType {
  return requested === paymentAmount && !entries.some(holdsAmount) ? 'FULL' : 'PARTIAL';
}

export function checkRefund(
  paymentStatus: string,
  paymentAmount: number,
  requested: number,
  entries: readonly RefundLedgerEntry[],
): RefundCheck {
  if (paymentStatus !== 'SUCCEEDED') return { ok: false, code: 'payment_not_refundable' };
  const refundable = amountRefundable(paymentStatus, paymentAmount, entries);
  // The API rejects non-positive amounts earlier; refusing them here too keeps the ledger sound.
  if (!Number.isSafeInteger(requested) || requested < 1 || refundable === 0 || requested > refundable) {
    return { ok: false, code: 'amount_exceeds_refundable' };
  }
  return { ok: true, refundType: refundType(paymentAmount, requested, entries) };
}
