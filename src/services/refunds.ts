// Creating Refunds (docs/api-reference.md, "Refunds"): business rules on the read model, then the
// `refund` update on the parent PaymentWorkflow, which alone decides the refundable balance and
// answers once the provider has answered the submission (docs/architecture.md, "Request path of a refund").
import { scopeOf, type AuthContext, type Deps } from './context';
import { ApiError } from '../domain/errors';
import { isId } from '../domain/ids';
import type { PaymentView, RefundView } from '../domain/payment';
import { findPayment, recordPaymentProjection } from '../read-models/payments';
import { executeUpdate, WorkflowClosedError } from '../temporal/calls';
import { refundUpdate, type RefundCommand, type RefundOutcome } from '../../contracts/payment';
import { assertProvisioned } from './merchant-rules';

export interface NewRefund {
  paymentId: string;
  amount: number;
  reason: string;
  merchantReference: number | null;
  /** Refund whatever remains when the Payment's workflow decides (Shape B); `amount` is the last read of it. */
  remaining?: boolean;
}

export class RefundService {
  constructor(private readonly deps: Deps) {}

  /** Creates (or, on a same-key retry, continues) the Refund bound to `refundId`. */
  /** Once this resolves the read model shows the refund as answered (Shape B then reads the Payment). */
  async create(auth: AuthContext, request: NewRefund, refundId: string, retry: boolean): Promise<RefundView> {
    assertProvisioned(auth, this.deps.config);
    const payment = await findPayment(this.deps.dataSource, this.deps.secretBox, scopeOf(auth), request.paymentId);
    if (!payment) throw paymentNotFound(request.paymentId);
    if (retry) {
      // An earlier attempt may have been accepted before it could save its answer.
      const existing = settledRefund(payment, refundId);
      if (existing) return existing;
    }
    // FAILED and EXPIRED Payments have ended their workflow; the read model answers for them.
    if (payment.status !== 'SUCCEEDED') throw notRefundable(payment);

    const command: RefundCommand = {
      refundId, amount: request.amount, reason: request.reason, merchantReference: request.merchantReference, ...(request.remaining ? { remaining: true } : {}),
    };
    let outcome: RefundOutcome;
    try {
      outcome = await executeUpdate(this.deps.temporal, this.deps.config.workflowUpdateTimeoutMs, payment.id, refundUpdate, command);
    } catch (error) {
      if (error instanceof WorkflowClosedError) {
        // The refund window has closed, possibly just after this refund was accepted.
        const latest = await findPayment(this.deps.dataSource, this.deps.secretBox, scopeOf(auth), payment.id);
        const accepted = latest && settledRefund(latest, refundId);
        if (accepted) return accepted;
        throw notRefundable(payment);
      }
      throw withParam(error, payment, request.amount);
    }
    // Read-your-writes without waiting for the workflow's projector, as a create does: the update's
    // answer is persisted workflow state, and the versioned upsert lets the projector's own write of
    // this or a later version land in any order. The answer's Payment holds only this refund, and
    // the projection writes only the refunds it is given that moved. Its row exists: it was read above.
    await recordPaymentProjection(this.deps.dataSource, this.deps.secretBox, outcome.payment, { exists: true });
    return outcome.refund;
  }
}

/** A refund of this id the read model already shows past its first report. */
function settledRefund(payment: PaymentView, refundId: string): RefundView | null {
  const refund = payment.refunds.find((r) => r.id === refundId);
  return refund && refund.status !== 'PENDING' ? refund : null;
}

function paymentNotFound(paymentId: string): ApiError {
  // Only a well-formed id is echoed: anything else the merchant sent could be sensitive.
  const message = isId('payment', paymentId) ? `No such payment: ${paymentId}.` : '`payment_id` is not a Payment of this account.';
  return new ApiError('object_not_found', { param: 'payment_id', message });
}

function notRefundable(payment: PaymentView): ApiError {
  const message = payment.status === 'SUCCEEDED'
    ? `Payment ${payment.id} can no longer be refunded.`
    : `Payment ${payment.id} is ${payment.status}; only SUCCEEDED payments can be refunded.`;
  return new ApiError('payment_not_refundable', { param: 'payment_id', message });
}

/** The workflow's rejections carry only their code; the API adds the field it concerns. */
function withParam(error: unknown, payment: PaymentView, requested: number): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.code === 'payment_not_refundable') return notRefundable(payment);
  if (error.code === 'amount_exceeds_refundable') {
    return new ApiError('amount_exceeds_refundable', {
      param: 'amount',
      message: `The amount ${requested} exceeds the amount still refundable on payment ${payment.id}.`,
    });
  }
  return error;
}
