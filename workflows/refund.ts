// RefundWorkflow: one per Refund (workflow id = refund id), started by its PaymentWorkflow, which
// keeps the refundable balance. It submits the refund with a provider idempotency key derived from
// its id, follows it to a terminal status and reports every step back to the Payment.
import { getExternalWorkflowHandle, proxyActivities, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities/payment';
import type { FailureCode } from '../src/domain/failure-codes';
import type { RefundView } from '../src/domain/payment';
import type { RefundStatus } from '../src/domain/refunds';
import { ObjectStatusKey } from '../src/temporal/search-attributes';

export interface RefundWorkflowInput {
  refund: RefundView;
  livemode: boolean;
  merchantId: string;
  paymentWorkflowId: string;
  authorizationId: string;
  pollIntervalSeconds: number;
  maxPollIntervalSeconds: number;
}

export interface RefundProgress {
  refundId: string;
  status: RefundStatus;
  failureCode: FailureCode | null;
}

const provider = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export async function RefundWorkflow(input: RefundWorkflowInput): Promise<RefundProgress> {
  const refundId = input.refund.id;
  const payment = getExternalWorkflowHandle(input.paymentWorkflowId);
  let interval = input.pollIntervalSeconds;

  async function report(status: RefundStatus, failureCode: FailureCode | null): Promise<RefundProgress> {
    const progress = { refundId, status, failureCode };
    upsertSearchAttributes([{ key: ObjectStatusKey, value: status }]);
    // Imported signal name kept as a string to avoid a module cycle with the Payment workflow.
    await payment.signal<[RefundProgress]>('refundProgress', progress);
    return progress;
  }

  // Submit until the provider gives a clear answer; the same key makes resubmission safe.
  let providerId: string | null = null;
  let settleAt: number | null = null;
  for (;;) {
    const result = await provider.submitRefund({
      refundId, livemode: input.livemode, authorizationId: input.authorizationId,
      amount: input.refund.amount, currency: input.refund.currency,
    });
    if (result.kind === 'rejected') return report('FAILED', result.failureCode);
    if (result.kind === 'failed') return report('FAILED', result.failureCode);
    if (result.kind === 'succeeded') return report('SUCCEEDED', null);
    if (result.kind === 'processing') {
      providerId = result.providerId;
      settleAt = result.settleAt;
      break;
    }
    await sleep(interval * 1000);
    interval = Math.min(interval * 2, input.maxPollIntervalSeconds);
  }
  await report('PROCESSING', null);

  interval = input.pollIntervalSeconds;
  for (;;) {
    const waitMs = settleAt !== null ? Math.max(settleAt - Date.now(), 50) : interval * 1000;
    await sleep(waitMs);
    settleAt = null;
    const result = await provider.getRefund({ providerId, livemode: input.livemode });
    if (result.kind === 'succeeded') return report('SUCCEEDED', null);
    if (result.kind === 'failed' || result.kind === 'rejected') return report('FAILED', result.failureCode);
    if (result.kind === 'processing') settleAt = result.settleAt > Date.now() ? result.settleAt : null;
    interval = Math.min(interval * 2, input.maxPollIntervalSeconds);
  }
}
