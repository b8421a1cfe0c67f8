// The PaymentWorkflow and the provider's authorization of its card: authorizing, reading the
// provider's current answer, and adopting an authorization the provider holds without our knowing.
import type { AuthorizationAnswer, Lookup, Unanswered } from '../../src/provider/types';
import { orUnanswered } from '../unanswered';
import { background, local, sync } from './activities';
import type { PaymentState } from './state';

/**
 * Authorizes the vaulted card under the Payment's provider key. Returns the provider's non-answer,
 * which leaves the Payment as it was, or null once the answer has moved the Payment.
 */
export async function authorize(state: PaymentState, cardToken: string, cardExpired: boolean): Promise<Unanswered | null> {
  if (cardExpired) {
    await sync.shredCard(cardToken);
    state.fail('expired_card');
    return null;
  }
  const { payment, settings } = state;
  const result = await orUnanswered(local.authorizeCard({
    paymentId: payment.id,
    livemode: payment.livemode,
    cardToken,
    amount: payment.amount,
    currency: payment.currency,
    cardholderName: payment.card?.cardholder_name ?? null,
    expMonth: payment.card?.exp_month ?? 0,
    expYear: payment.card?.exp_year ?? 0,
    returnUrl: settings.authenticationReturnUrl,
    notifyUrl: settings.notifyUrl,
  }));
  if (result.kind === 'unanswered') {
    if (result.mayHaveActed) state.providerMayHoldAuthorization = true;
    return result;
  }
  // The answer is in history with this task: the card goes with the next change record.
  state.projection.shredCard(cardToken);
  state.apply(result);
  return null;
}

/** Reads the provider's current answer for the authorization, and returns it; no answer changes nothing. */
export async function refreshFromProvider(state: PaymentState): Promise<Lookup<AuthorizationAnswer> | null> {
  if (!state.providerId) return null;
  const result = await sync.getAuthorization({ providerId: state.providerId, livemode: state.payment.livemode });
  if (result.kind === 'not_found' || result.kind === 'unanswered') return result;
  const { payment } = state;
  const unchanged = (result.kind === 'requires_action' && payment.status === 'REQUIRES_ACTION' && payment.next_action?.redirect_url === result.redirectUrl)
    || (result.kind === 'processing' && payment.status === 'PROCESSING');
  if (!unchanged) state.apply(result);
  if (result.kind === 'processing') state.settleAt = result.settleAt;
  return result;
}

/**
 * An attempt that got no answer (a create answered 502, a workflow task lost with its local
 * authorization) may still have reached the provider: asks it under the Payment's key, and an
 * authorization it holds becomes the Payment's, as if that attempt had been answered. The card
 * `unusedCardToken` is then not used. Returns whether the provider held one.
 */
export async function adoptHeldAuthorization(state: PaymentState, unusedCardToken: string): Promise<boolean> {
  const held = await background.findAuthorization({ paymentId: state.payment.id, livemode: state.payment.livemode });
  if (!held) return false;
  state.projection.shredCard(unusedCardToken);
  state.apply(held);
  return true;
}
