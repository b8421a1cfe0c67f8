// Activities of the Payment and Refund workflows: provider calls and the read-model projection.
// Provider idempotency keys are derived from object ids, so a retried activity cannot act twice.
import { ApplicationFailure } from '@temporalio/activity';
import type { PaymentView } from '../src/domain/payment';
import { isDefiniteAuthorization, type AuthorizationResult, type LookupResult, type RefundResult } from '../src/provider/types';
import { recordPaymentProjection } from '../src/read-models/payments';
import { providerFor, type ActivityDeps } from './deps';
import { publishEvents, type PendingEvent } from './webhooks';

export interface AuthorizeCardInput {
  paymentId: string;
  livemode: boolean;
  cardToken: string;
  amount: number;
  currency: string;
  cardholderName: string | null;
  expMonth: number;
  expYear: number;
  returnUrl: string;
  notifyUrl: string;
  /**
   * Leave the card in the vault after a definite answer. A local activity can run again if its
   * workflow task is lost, and it must then find the card to replay the same provider call; the
   * workflow shreds the card with its next change record, once the answer is in history.
   */
  keepCard?: boolean;
}

/** Everything that follows a persisted change of a Payment, in one activity (one round trip). */
export interface PaymentChange {
  /** The Payment to project, or null when only events or a shredding are due. */
  payment: PaymentView | null;
  /** Events the projection shows, published after it (the outbox). */
  events: PendingEvent[];
  /** Cards whose definite authorization answers are now in history. */
  shredCardTokens: string[];
}

export interface SubmitRefundInput {
  refundId: string;
  livemode: boolean;
  authorizationId: string;
  amount: number;
  currency: string;
}

/** The provider-side key of a Payment's authorization: every attempt and every lookup use it. */
const authorizationKey = (paymentId: string) => `${paymentId}:authorize`;

export function createPaymentActivities(deps: ActivityDeps) {
  return {
    async authorizeCard(input: AuthorizeCardInput): Promise<AuthorizationResult> {
      const card = await deps.vault.reveal(input.cardToken);
      if (!card) throw ApplicationFailure.nonRetryable('card token not found in the vault', 'CardTokenMissing');
      const result = await providerFor(deps, input.livemode).authorize({
        idempotencyKey: authorizationKey(input.paymentId),
        reference: input.paymentId,
        amount: input.amount,
        currency: input.currency,
        card: { number: card.number, exp_month: input.expMonth, exp_year: input.expYear, cvc: card.cvc ?? '', holder_name: input.cardholderName },
        returnUrl: input.returnUrl,
        notifyUrl: input.notifyUrl,
      });
      // A definite answer ends the card's life in the vault: the CVC and the PAN are not needed again.
      if (!input.keepCard && isDefiniteAuthorization(result)) {
        await deps.vault.shred(input.cardToken);
      }
      return result;
    },

    /**
     * The provider's answer to this Payment's authorization, if the provider ever took one (a create
     * answered 502, say). Retried until the provider can tell.
     */
    async findAuthorization(input: { paymentId: string; livemode: boolean }): Promise<AuthorizationResult | null> {
      const found = await providerFor(deps, input.livemode).getAuthorizationByKey(authorizationKey(input.paymentId));
      if (found.kind === 'not_found') return null;
      if (found.kind === 'uncertain') throw ApplicationFailure.retryable('the provider could not tell', 'ProviderUncertain');
      return found;
    },

    async getAuthorization(input: { providerId: string; livemode: boolean }): Promise<LookupResult<AuthorizationResult>> {
      return providerFor(deps, input.livemode).getAuthorization(input.providerId);
    },

    async submitRefund(input: SubmitRefundInput): Promise<RefundResult> {
      return providerFor(deps, input.livemode).refund({
        idempotencyKey: `${input.refundId}:refund`,
        reference: input.refundId,
        authorizationId: input.authorizationId,
        amount: input.amount,
        currency: input.currency,
      });
    },

    async getRefund(input: { providerId: string; livemode: boolean }): Promise<LookupResult<RefundResult>> {
      return providerFor(deps, input.livemode).getRefund(input.providerId);
    },

    async recordPayment(payment: PaymentView): Promise<void> {
      await recordPaymentProjection(deps.dataSource, payment);
    },

    async recordChange(change: PaymentChange): Promise<void> {
      for (const token of change.shredCardTokens) await deps.vault.shred(token);
      if (change.payment) await recordPaymentProjection(deps.dataSource, change.payment);
      await publishEvents(deps, change.events);
    },

    async shredCard(token: string): Promise<void> {
      await deps.vault.shred(token);
    },
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
