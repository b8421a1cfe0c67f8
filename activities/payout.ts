// Activities of the PayoutWorkflow: the provider submission and look-up (its projection and the
// destination card's shredding are `recordChange`, activities/projection.ts). The provider
// idempotency key is derived from the payout id (`po_x:payout`), so a resubmission, or a retried
// activity, can never pay out twice.
import { Context } from '@temporalio/activity';
import type { PayoutRecipient } from '../src/domain/payout';
import type { Lookup, PayoutAnswer, PayoutResult } from '../src/provider/types';
import { actingRequest, providerKey } from '../src/domain/idempotency';
import { providerFor, vaultedCard, type ActivityDeps } from './deps';

export interface SubmitPayoutInput {
  payoutId: string;
  livemode: boolean;
  /** Vault token of the destination card; the number itself never enters the workflow. */
  cardToken: string;
  amount: number;
  currency: string;
  recipient: PayoutRecipient;
}

export function createPayoutActivities(deps: ActivityDeps) {
  return {
    async submitPayout(input: SubmitPayoutInput): Promise<PayoutResult> {
      const card = await vaultedCard(deps, input.cardToken, 'destination card not found in the vault');
      return providerFor(deps, input.livemode).payout(
        { ...actingRequest(input.payoutId, 'payout', input), cardNumber: card.number, recipient: input.recipient },
        // The first attempt is a local activity cancelled at the answer's deadline: stop waiting then.
        { signal: Context.current().cancellationSignal },
      );
    },

    /** Asks the provider what became of the submission; never submits. */
    async pollPayoutStatus(input: { payoutId: string; livemode: boolean }): Promise<Lookup<PayoutAnswer>> {
      return providerFor(deps, input.livemode).getPayoutByKey(providerKey(input.payoutId, 'payout'), { signal: Context.current().cancellationSignal });
    },
  };
}

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;
