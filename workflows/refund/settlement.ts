// Phase 2, settlement: the provider has taken the refund; look it up (at the settle time it gave,
// then with backoff: src/domain/polling.ts) until it is terminal.
import { sleep } from '@temporalio/workflow';
import { nextPoll, pollDelayMs, pollHint, startPolling } from '../../src/domain/polling';
import { isTerminalRefundStatus } from '../../src/domain/refunds';
import type { RefundProgress } from '../../contracts/refund';
import { provider } from './activities';
import { refundProgress } from './progress';
import type { RefundState } from './state';

export async function settlement(state: RefundState, providerId: string): Promise<RefundProgress> {
  await state.report({ refundId: state.refundId, status: 'PROCESSING', failureCode: null });
  if (!state.input.continued?.providerId) state.poll = startPolling(state.schedule, pollHint(state.submission));
  for (;;) {
    await state.continueAsNewIfDue();
    await sleep(pollDelayMs(state.poll, Date.now()));
    const answer = await provider.getRefund({ providerId, livemode: state.input.livemode });
    state.called();
    state.poll = nextPoll(state.poll, state.schedule, pollHint(answer));
    const progress = refundProgress(state.refundId, answer);
    if (isTerminalRefundStatus(progress.status)) return state.report(progress);
  }
}
