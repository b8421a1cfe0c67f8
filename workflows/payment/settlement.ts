// Phase 3, settlement: an authorized Payment is PROCESSING until the provider settles it. The
// provider says when to look first; later looks back off. Shape B's `settled` update answers once
// the Payment is past PENDING and PROCESSING.
import { condition, setHandler, sleep } from '@temporalio/workflow';
import { settledUpdate } from '../contracts/payment';
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
  let interval = state.settings.pollIntervalSeconds;
  while (state.payment.status === 'PROCESSING') {
    const waitMs = state.settleAt !== null ? Math.max(state.settleAt - Date.now(), 0) : interval * 1000;
    await sleep(Math.max(waitMs, 50));
    await state.exclusive(() => refreshFromProvider(state));
    if (state.payment.status === 'PROCESSING') {
      state.settleAt = null;
      interval = Math.min(interval * 2, state.settings.maxPollIntervalSeconds);
    }
  }
}
