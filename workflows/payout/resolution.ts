// Phase 2, resolution: the Payout is looked up at the provider under its idempotency key, and
// submitted again (same key) only when the provider says it never received it, on durable timers
// (src/domain/polling.ts), until the Payout is terminal. There is no completion deadline; history
// stays bounded through continue-as-new.
import { allHandlersFinished, condition, continueAsNew, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import { isTerminalPayoutStatus } from '../../src/domain/payout';
import { nextPoll, pollDelayMs, pollHint } from '../../src/domain/polling';
import type { PayoutWorkflowFn } from '../../contracts/payout';
import { LastPolledAtKey, PollAttemptsKey } from '../../contracts/search-attributes';
import { orUnanswered } from '../unanswered';
import { lookup } from './activities';
import type { PayoutState, ProviderAnswer } from './state';
import { submit } from './submission';

export async function resolution(state: PayoutState): Promise<void> {
  let pollsThisRun = 0;
  while (!isTerminalPayoutStatus(state.payout.status)) {
    // The run's own count decides, never the server's per-task hint (workflows/payment/state.ts, rollOverDue).
    if (pollsThisRun >= state.settings.pollsPerRun) {
      await condition(() => state.projection.idle() && allHandlersFinished());
      await continueAsNew<PayoutWorkflowFn>(state.continued());
    }
    await sleep(pollDelayMs(state.poll, Date.now()));
    const answer = await look(state);
    pollsThisRun += 1;
    state.poll = nextPoll(state.poll, state.settings, pollHint(answer));
  }
}

/** One look at the provider; never received: submit again under the same provider key (only a PENDING payout can be unknown). */
async function look(state: PayoutState): Promise<ProviderAnswer> {
  const polledAtMs = Date.now();
  const { id, livemode } = state.payout;
  let answer: ProviderAnswer = await orUnanswered(lookup.pollPayoutStatus({ payoutId: id, livemode }));
  if (answer.kind === 'not_found' && state.payout.status === 'PENDING') answer = await submit(state);
  const attempts = state.payout.poll_attempts + 1;
  upsertSearchAttributes([
    { key: PollAttemptsKey, value: attempts },
    { key: LastPolledAtKey, value: new Date(polledAtMs) },
  ]);
  state.change({ poll_attempts: attempts, last_polled_at: Math.floor(polledAtMs / 1000), ...state.outcome(answer) });
  return answer;
}
