// Activities of the Payment and Refund workflows: the provider calls, under idempotency keys derived
// from object ids (`providerKey`), so a retried activity cannot act twice.
import { ApplicationFailure } from '@temporalio/activity';
import type { AuthorizationAnswer, AuthorizationResult, Lookup, RefundAnswer, RefundResult } from '../src/provider/types';
import { actingRequest, providerKey } from '../src/domain/idempotency';
import { providerFor, vaultedCard, type ActivityDeps } from './deps';

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
}

export interface SubmitRefundInput {
  refundId: string;
  livemode: boolean;
  authorizationId: string;
  amount: number;
  currency: string;
}

export function createPaymentActivities(deps: ActivityDeps) {
  return {
    /**
     * Leaves the card in the vault: the workflow runs this as a local activity, which runs again if
     * its workflow task is lost, and must then find the card to replay the same provider call. The
     * workflow shreds the card with its next change record, once the answer is in history.
     */
    async authorizeCard(input: AuthorizeCardInput): Promise<AuthorizationResult> {
      const card = await vaultedCard(deps, input.cardToken, 'card token not found in the vault');
      return providerFor(deps, input.livemode).authorize({
        ...actingRequest(input.paymentId, 'authorize', input),
        card: { number: card.number, exp_month: input.expMonth, exp_year: input.expYear, cvc: card.cvc ?? '', holder_name: input.cardholderName },
        returnUrl: input.returnUrl,
        notifyUrl: input.notifyUrl,
      });
    },

    /**
     * The provider's answer to this Payment's authorization, if the provider ever took one (a create
     * answered 502, say). Retried until the provider can tell.
     */
    async findAuthorization(input: { paymentId: string; livemode: boolean }): Promise<AuthorizationAnswer | null> {
      const found = await providerFor(deps, input.livemode).getAuthorizationByKey(providerKey(input.paymentId, 'authorize'));
      if (found.kind === 'not_found') return null;
      if (found.kind === 'unanswered') throw ApplicationFailure.retryable('the provider could not tell', 'ProviderUnanswered');
      return found;
    },

    async getAuthorization(input: { providerId: string; livemode: boolean }): Promise<Lookup<AuthorizationAnswer>> {
      return providerFor(deps, input.livemode).getAuthorization(input.providerId);
    },

    async submitRefund(input: SubmitRefundInput): Promise<RefundResult> {
      return providerFor(deps, input.livemode).refund({ ...actingRequest(input.refundId, 'refund', input), authorizationId: input.authorizationId });
    },

    async getRefund(input: { providerId: string; livemode: boolean }): Promise<Lookup<RefundAnswer>> {
      return providerFor(deps, input.livemode).getRefund(input.providerId);
    },
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
