// Phase 3, settlement: an authorized Payment is PROCESSING until the provider settles it. The
// provider says when to look (its settle time, its Retry-After); otherwise looks back off
// (src/domain/polling.ts). Shape B's `settled` update answers once the Payment is past PENDING and
// PROCESSING.
import { condition, setHandler, sleep } from '@temporalio/workflow';
import { nextPoll, pollDelayMs, pollHint, startPolling } from '../../src/domain/polling';
import { settledUpdate } from '../../contracts/payment';
import { refreshFromProvider } from './authorization';
import type { PaymentState } from './state';

export function handleSettlement(state: PaymentState): void {
  setHandler(settledUpdate, async () => {
    await condition(() => state.payment.status !== 'PENDING' && state.payment.status !== 'PROCESSING');
    await state.projection.projected();
    return state.payment;
  }, {
    validator: () => state.assertCreated(),
  });
}

export async function settlement(state: PaymentState): Promise<void> {
  const schedule = { initialSeconds: state.settings.pollIntervalSeconds, maxSeconds: state.settings.maxPollIntervalSeconds };
  let poll = startPolling(schedule, { settleAtMs: state.settleAt });
  while (state.payment.status === 'PROCESSING') {
    await sleep(pollDelayMs(poll, Date.now()));
    const answer = await state.exclusive(() => refreshFromProvider(state));
    poll = nextPoll(poll, schedule, answer ? pollHint(answer) : {});
  }
}
