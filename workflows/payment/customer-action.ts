// Phase 2, customer action: 3D Secure steps or the hosted page, until the Payment moves on or its
// action expires. The provider notifies us of authentication steps (`providerEvent`); the shopper's
// card from the hosted page arrives as `submitHostedCard`.
import { condition, setHandler } from '@temporalio/workflow';
import { providerEventUpdate, submitHostedCardUpdate, type CreateOutcome, type HostedCardSubmission } from '../../contracts/payment';
import { nowSeconds } from '../projection';
import { sync } from './activities';
import { adoptHeldAuthorization, authorize, refreshFromProvider } from './authorization';
import type { PaymentState } from './state';

export function handleCustomerAction(state: PaymentState): void {
  setHandler(submitHostedCardUpdate, (submission) => state.exclusive(() => submitHostedCard(state, submission)), {
    validator: (_submission) => state.assertCreated(),
  });
  setHandler(providerEventUpdate, () => state.exclusive(async () => {
    await refreshFromProvider(state);
    await state.projection.projected();
    return state.payment;
  }));
}

export async function customerAction(state: PaymentState): Promise<void> {
  while (state.payment.status === 'REQUIRES_ACTION') {
    const deadlineMs = ((state.payment.status_transitions.requires_action_at ?? nowSeconds()) + state.settings.actionTtlSeconds) * 1000;
    if (await condition(() => state.payment.status !== 'REQUIRES_ACTION', Math.max(0, deadlineMs - Date.now()))) return;
    await state.exclusive(async () => {
      // The provider has the last word: an authentication completed just now still counts.
      await refreshFromProvider(state);
      if (state.payment.status === 'REQUIRES_ACTION') state.change({ status: 'EXPIRED', next_action: null });
    });
  }
}

async function submitHostedCard(state: PaymentState, submission: HostedCardSubmission): Promise<CreateOutcome> {
  const { payment } = state;
  if (payment.status !== 'REQUIRES_ACTION' || payment.next_action?.reason !== 'hosted_payment_page' || state.providerId) {
    await sync.shredCard(submission.cardToken);
    return { kind: 'payment', payment };
  }
  if (state.providerMayHoldAuthorization) {
    // Under the same key the provider would answer this card with the earlier card's authorization:
    // if it holds one, that is the Payment's, and this card is not used.
    if (await adoptHeldAuthorization(state, submission.cardToken)) {
      await state.projection.projected();
      return { kind: 'payment', payment: state.payment };
    }
    state.providerMayHoldAuthorization = false;
  }
  state.change({ card: submission.card });
  const unanswered = await authorize(state, submission.cardToken, submission.cardExpired);
  if (unanswered) return unanswered;
  await state.projection.projected();
  return { kind: 'payment', payment: state.payment };
}
