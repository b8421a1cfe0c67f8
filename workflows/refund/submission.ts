// Phase 1, submission: from the Payment's submission, resubmit under the same provider key (derived
// from the refund id, so resubmitting is safe) until the provider takes the refund or answers it.
import { sleep } from '@temporalio/workflow';
import { nextPoll, pollDelayMs, pollHint, startPolling } from '../../src/domain/polling';
import { isTerminalRefundStatus } from '../../src/domain/refunds';
import type { RefundProgress } from '../../contracts/refund';
import { provider } from './activities';
import { refundProgress } from './progress';
import type { RefundState } from './state';

/** The refund's final progress when the provider answered it at once; null once the provider has taken it to settle. */
export async function submission(state: RefundState): Promise<RefundProgress | null> {
  const { input } = state;
  if (!input.continued) state.poll = startPolling(state.schedule, pollHint(state.submission));
  for (;;) {
    const answer = state.submission;
    const progress = refundProgress(state.refundId, answer);
    if (isTerminalRefundStatus(progress.status)) return state.report(progress);
    if (answer.kind === 'processing') {
      state.providerId = answer.providerId;
      return null;
    }
    // No answer: the refund may be with the provider. It stays PROCESSING until one comes.
    await state.report(progress);
    await state.continueAsNewIfDue();
    await sleep(pollDelayMs(state.poll, Date.now()));
    state.submission = await provider.submitRefund({
      refundId: state.refundId, livemode: input.livemode, authorizationId: input.authorizationId, amount: input.refund.amount, currency: input.refund.currency,
    });
    state.called();
    state.poll = nextPoll(state.poll, state.schedule, pollHint(state.submission));
  }
}
