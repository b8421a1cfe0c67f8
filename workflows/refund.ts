// RefundWorkflow: one per Refund (workflow id = refund id), started by the projector of its
// PaymentWorkflow, which keeps the refundable balance and has submitted the refund already
// (workflows/payment/refund-window.ts).
// It starts from the provider's answer to that submission: resubmits under the same provider key
// while the provider has not answered, follows the refund to a terminal status, and reports every
// later step back to the Payment through the payment contract's `refundProgress` signal.
import { getExternalWorkflowHandle, proxyActivities, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities/payment';
import type { FailureCode } from '../src/domain/failure-codes';
import type { RefundStatus } from '../src/domain/refunds';
import type { RefundResult } from '../src/provider/types';
import { ObjectStatusKey } from './contracts/search-attributes';
import { refundProgressSignal } from './contracts/payment';
import type { RefundProgress, RefundWorkflowFn } from './contracts/refund';

// The provider client times out after 8 s and never throws, so an activity only fails when its
// worker dies; it is then retried (with the same provider key) once this timeout has passed.
const provider = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '12 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export const RefundWorkflow: RefundWorkflowFn = async (input) => {
  const refundId = input.refund.id;
  const payment = getExternalWorkflowHandle(input.paymentWorkflowId);
  let reported: RefundStatus = input.refund.status;

  async function report(status: RefundStatus, failureCode: FailureCode | null): Promise<RefundProgress> {
    const progress = { refundId, status, failureCode };
    if (status !== reported) {
      reported = status;
      upsertSearchAttributes([{ key: ObjectStatusKey, value: status }]);
      await payment.signal(refundProgressSignal, progress);
    }
    return progress;
  }

  const backoff = (seconds: number) => Math.min(seconds * 2, input.maxPollIntervalSeconds);

  // The Payment's submission first; then resubmit until the provider gives a clear answer: the key
  // derived from the refund id makes resubmission safe. Without an answer the refund may be with the
  // provider: it stays PROCESSING, never a failure and never a second refund.
  let providerId: string | null = null;
  let settleAt: number | null = null;
  let interval = input.pollIntervalSeconds;
  let submission: RefundResult | null = input.submission;
  while (providerId === null) {
    const result = submission ?? await provider.submitRefund({
      refundId, livemode: input.livemode, authorizationId: input.authorizationId,
      amount: input.refund.amount, currency: input.refund.currency,
    });
    submission = null;
    switch (result.kind) {
      case 'rejected':
      case 'failed':
        return report('FAILED', result.failureCode);
      case 'succeeded':
        return report('SUCCEEDED', null);
      case 'processing':
        providerId = result.providerId;
        settleAt = result.settleAt;
        break;
      case 'unanswered':
        await report('PROCESSING', null);
        await sleep(interval * 1000);
        interval = backoff(interval);
        break;
    }
  }
  await report('PROCESSING', null);

  // Follow it to a terminal status: at the provider's settle time, then with backoff.
  interval = input.pollIntervalSeconds;
  for (;;) {
    const waitMs = settleAt !== null ? settleAt - Date.now() : interval * 1000;
    await sleep(Math.max(waitMs, 50));
    if (settleAt === null) interval = backoff(interval);
    settleAt = null;
    const result = await provider.getRefund({ providerId, livemode: input.livemode });
    switch (result.kind) {
      case 'succeeded':
        return report('SUCCEEDED', null);
      case 'failed':
      case 'rejected':
        return report('FAILED', result.failureCode);
      case 'processing':
        if (result.settleAt > Date.now()) settleAt = result.settleAt;
        break;
      case 'not_found':
      case 'unanswered':
        break; // look again later
    }
  }
};
