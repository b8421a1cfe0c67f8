// The Shape B operations that behave differently, not only look different: a Direct payment that
// answers with its outcome, and a refund of everything that remains. Both drive the same
// PaymentWorkflow and Refund path as Shape A (no second payment engine).
import { scopeOf, type AuthContext, type Deps } from './context';
import { SHAPE_B_VERSION } from '../representations/versions';
import { ApiError } from '../domain/errors';
import { shapeBStatus } from '../domain/payment-shape-b';
import type { PaymentView } from '../domain/payment';
import { findPayment } from '../read-models/payments';
import { executeUpdate, WorkflowClosedError } from '../temporal/calls';
import { destinationPolicy, urlRefusal } from '../webhooks/destination';
import { settledUpdate } from '../../contracts/payment';
import { PaymentService, type NewPayment } from './payments';
import { RefundService } from './refunds';

/** What a refund through `POST /v1/payments/{id}/refund` records as its reason (Shape B sends none). */
export const SHAPE_B_REFUND_REASON = 'Full refund (Service-Version 2024-06-01)';

export class ShapeBPaymentService {
  private readonly payments: PaymentService;
  private readonly refunds: RefundService;

  constructor(private readonly deps: Deps) {
    this.payments = new PaymentService(deps);
    this.refunds = new RefundService(deps);
  }

  /** A `callback_url` that delivery would refuse (the service's own ports, a private address, ...) is refused at once. */
  checkCallbackUrl(url: string | null | undefined, livemode: boolean): void {
    const refusal = url ? urlRefusal(url, livemode, destinationPolicy(this.deps.config)) : null;
    if (refusal) throw new ApiError('parameter_invalid', { param: 'callback_url', message: `\`callback_url\` is refused: ${refusal}.` });
  }

  /** A Shape B Direct payment, settled: SUCCEEDED, or FAILED (3D Secure is a decline here). */
  async createDirect(auth: AuthContext, request: Pick<NewPayment, 'amount' | 'currency' | 'card'>, paymentId: string, retry: boolean): Promise<PaymentView> {
    const payment = await this.payments.create(auth, {
      ...request,
      integrationType: 'DIRECT',
      merchantReference: null,
      description: null,
      billingDetails: null,
      customerIpAddress: null,
      merchantCustomerId: null,
      returnUrl: null,
      apiVersion: SHAPE_B_VERSION,
      declineIfActionRequired: true,
    }, paymentId, retry);
    return this.settled(auth, payment);
  }

  /** A Shape B Hosted Payment Page payment: the page is its `redirect_url`. */
  async createHosted(auth: AuthContext, request: NewPayment, paymentId: string, retry: boolean): Promise<PaymentView> {
    return this.payments.create(auth, { ...request, integrationType: 'HOSTED_PAYMENT_PAGE', apiVersion: SHAPE_B_VERSION }, paymentId, retry);
  }

  /** Waits in the workflow (not by polling) until the Payment has left PENDING/PROCESSING. */
  private async settled(auth: AuthContext, payment: PaymentView): Promise<PaymentView> {
    if (payment.status !== 'PENDING' && payment.status !== 'PROCESSING') return payment;
    try {
      return await executeUpdate(this.deps.temporal, this.deps.config.workflowUpdateTimeoutMs, payment.id, settledUpdate);
    } catch (error) {
      if (!(error instanceof WorkflowClosedError)) throw error;
      // Finished meanwhile: the read model holds its final state.
      return (await findPayment(this.deps.dataSource, this.deps.secretBox, scopeOf(auth), payment.id)) ?? payment;
    }
  }

  /**
   * Refunds the whole remaining amount through the Refund path of `POST /v1/refunds`, then answers
   * with the Payment: `refunded` unless the provider rejected the refund at submission.
   */
  async refundInFull(auth: AuthContext, paymentId: string, refundId: string, retry: boolean): Promise<PaymentView> {
    const payment = await findPayment(this.deps.dataSource, this.deps.secretBox, scopeOf(auth), paymentId);
    if (!payment) throw new ApiError('object_not_found', { param: 'id', message: `No such payment: ${paymentId}.` });
    const earlier = payment.refunds.find((refund) => refund.id === refundId);
    if (!earlier) {
      if (payment.refunded_at !== null) throw alreadyRefunded(paymentId);
      if (payment.status !== 'SUCCEEDED') {
        throw new ApiError('payment_not_refundable', { param: 'id', message: `Payment ${paymentId} is ${shapeBStatus(payment)}; only succeeded payments can be refunded.` });
      }
    }
    try {
      await this.refunds.create(auth, {
        paymentId,
        amount: earlier?.amount ?? payment.amount_refundable,
        reason: SHAPE_B_REFUND_REASON,
        merchantReference: null,
        // The read above may miss a refund another request has just reserved: the workflow takes the rest.
        remaining: true,
      }, refundId, retry);
    } catch (error) {
      throw shapeBRefundError(error, paymentId);
    }
    // The read model shows the refund by now (the service projected its answer).
    return (await findPayment(this.deps.dataSource, this.deps.secretBox, scopeOf(auth), paymentId)) ?? payment;
  }
}

function alreadyRefunded(paymentId: string): ApiError {
  return new ApiError('charge_already_refunded', { param: 'id', message: `Payment ${paymentId} has already been refunded.` });
}

/** The Refund path names `payment_id`; here the Payment is the path's `id`, and nothing left is "already refunded". */
function shapeBRefundError(error: unknown, paymentId: string): unknown {
  if (!(error instanceof ApiError)) return error;
  // Nothing remained when the workflow took the command: another refund took the rest after our read.
  if (error.code === 'amount_exceeds_refundable') return alreadyRefunded(paymentId);
  if (error.param === 'payment_id') return new ApiError(error.code, { param: 'id', message: error.message });
  return error;
}
