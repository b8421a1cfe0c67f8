// Phase 1, create: the `create` update registers the Payment; for a Direct payment, once the
// provider has answered its authorization. A create the provider left unanswered registers nothing:
// the API answers 429, 502 or 503 and the merchant retries with the same key, which updates this same
// workflow. If nobody does, the phase ends it, leaving no Payment behind.
import { ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import { createUpdate, type CreateOutcome } from '../../contracts/payment';
import { background } from './activities';
import { adoptHeldAuthorization, authorize } from './authorization';
import type { PaymentState } from './state';

export function handleCreate(state: PaymentState): void {
  setHandler(createUpdate, () => state.exclusive(async (): Promise<CreateOutcome> => {
    if (state.created) return { kind: 'payment', payment: state.payment };
    const { payment, input } = state;
    if (payment.integration_type === 'DIRECT') {
      if (!input.cardToken) throw ApplicationFailure.nonRetryable('direct payment without a card token');
      const unanswered = await authorize(state, input.cardToken, input.cardExpired);
      if (unanswered) return unanswered;
    } else {
      state.change({ status: 'REQUIRES_ACTION' });
    }
    // The API projects the Payment this update returns (state the server has persisted by then),
    // so a create answers without waiting for the projector's activity and workflow task.
    state.markCreated();
    return { kind: 'payment', payment: state.payment };
  }));
}

/** Resolves true once the Payment is registered, false when the workflow should end without it. */
export async function awaitCreate(state: PaymentState): Promise<boolean> {
  if (state.created) return true;
  if (await condition(() => state.created, state.settings.abandonAfterSeconds * 1000)) return true;
  const { cardToken } = state.input;
  // Before giving up, the provider is asked whether it holds an authorization under the Payment's key.
  const registered = await state.exclusive(async () => {
    if (state.created) return true;
    if (!cardToken || !(await adoptHeldAuthorization(state, cardToken))) return false;
    state.markCreated();
    return true;
  });
  if (!registered && cardToken) await background.shredCard(cardToken);
  return registered;
}
